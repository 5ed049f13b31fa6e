import { describe, expect, it } from 'vitest';
import type { RoomInfo } from '#core/contracts/api.ts';
import type { ChatMessage, RoomSnapshot } from '#core/contracts/room-events.ts';
import { layoutClass, localNetworkQuality, networkBand, roomReducer, sfuNetworkQuality } from './roomState.ts';
import { chatText } from './useRoomChannel.ts';

const info = { roomNumber: '123456', roomType: 1, showState: '', maxMember: 2 } as RoomInfo;
const snapshot: RoomSnapshot = {
  roomInfo: info,
  you: { userId: '2', name: 'Alice', role: 'member' },
  members: [
    { userId: '1', name: 'T', role: 'creator', networkQuality: 1, online: true },
    { userId: '2', name: 'Alice', role: 'member', networkQuality: 0, online: true },
  ],
  messages: [],
  mic: { phase: 'idle', userId: '', name: '', since: 0, deadline: 0 },
  teacherOnline: true,
  serverTime: 10_500,
};
const msg = (id: string): ChatMessage => ({ id, uid: '1', name: 'T', text: `m${id}`, at: 1 });

describe('roomReducer', () => {
  const start = roomReducer(null, { type: 'snapshot', snapshot, receivedAt: 10_000 })!;
  it('takes a snapshot with the clock skew and ignores events before one', () => {
    expect(start.clockSkew).toBe(500);
    expect(start.participants).toBe(2);
    expect(roomReducer(null, { type: 'message', message: msg('1') })).toBeNull();
  });
  it('applies patches without the `by` field', () => {
    const next = roomReducer(start, { type: 'patch', patch: { showState: 'wb', by: '1' } as Partial<RoomInfo> })!;
    expect(next.roomInfo.showState).toBe('wb');
    expect('by' in next.roomInfo).toBe(false);
  });
  it('keeps a message once (ack and broadcast) and at most 100', () => {
    let s = roomReducer(start, { type: 'message', message: msg('a') })!;
    s = roomReducer(s, { type: 'message', message: msg('a') })!;
    expect(s.messages).toHaveLength(1);
    for (let i = 0; i < 120; i++) s = roomReducer(s, { type: 'message', message: msg(String(i)) })!;
    expect(s.messages).toHaveLength(100);
    expect(s.messages.at(-1)!.id).toBe('119');
  });
  it('clears the microphone on any idle event', () => {
    let s = roomReducer(start, { type: 'mic', mic: { phase: 'inviting', userId: '2', name: 'Alice', since: 5, deadline: 9 } })!;
    expect(s.mic.phase).toBe('inviting');
    s = roomReducer(s, { type: 'mic', mic: { phase: 'idle', userId: '2', name: '', since: 7, deadline: 0 } })!;
    expect(s.mic).toEqual({ phase: 'idle', userId: '', name: '', since: 7, deadline: 0 });
  });
});

describe('helpers', () => {
  it('layout by the number of others', () => {
    expect([0, 1, 2, 3, 4].map(layoutClass)).toEqual(['', 'layout-two', 'layout-three', 'layout-four', '']);
  });
  it('network bands and the local guess', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map(networkBand)).toEqual(['unknown', 'strong', 'strong', 'moderate', 'moderate', 'weak', 'weak']);
    expect(localNetworkQuality({ onLine: false })).toBe(6);
    expect(localNetworkQuality({ onLine: true, connection: { effectiveType: '3g' } })).toBe(3);
    expect(localNetworkQuality({ onLine: true })).toBe(0);
  });
  it('a person’s network is the SFU’s figure wherever it is shown', () => {
    const member = { userId: '2', networkQuality: 5 };
    expect(sfuNetworkQuality({ '2': 1 }, member)).toBe(1);
    expect(sfuNetworkQuality({ '2': 6, '3': 1 }, member)).toBe(6);
    // Before the SFU's first report: what the person reported from it, else unknown.
    expect(sfuNetworkQuality({}, member)).toBe(5);
    expect(sfuNetworkQuality({}, { userId: '2' })).toBe(0);
  });
  it('chat text: trimmed, 1 to 30 characters, line breaks kept', () => {
    expect(chatText('   ')).toBeNull();
    expect(chatText('  a\nb  ')).toBe('a\nb');
    expect(chatText('字'.repeat(30))).toBe('字'.repeat(30));
    expect(chatText('x'.repeat(31))).toBeNull();
  });
});

describe('recording in the room state', () => {
  const start = roomReducer(null, {
    type: 'snapshot',
    snapshot: { ...snapshot, roomInfo: { ...info, recordState: '0' } },
    receivedAt: 10_000,
  })!;
  it("keeps the time recording began from the first '1', and forgets it on '0'", () => {
    expect(start.record).toEqual({ taskId: '', since: null });
    let s = roomReducer(start, { type: 'record', recordState: '2', taskId: '5', at: 11_000 })!;
    expect(s.record).toEqual({ taskId: '5', since: null });
    s = roomReducer(s, { type: 'record', recordState: '1', taskId: '5', at: 12_000 })!;
    expect(s.record).toEqual({ taskId: '5', since: 12_000 });
    // The room patch repeating '1' later does not restart the clock.
    s = roomReducer(s, { type: 'patch', patch: { recordState: '1' }, at: 20_000 })!;
    expect(s.record.since).toBe(12_000);
    s = roomReducer(s, { type: 'patch', patch: { recordState: '0' }, at: 30_000 })!;
    expect(s.roomInfo.recordState).toBe('0');
    expect(s.record.since).toBeNull();
  });
  it('takes the start the server names, and keeps it across a reconnect snapshot', () => {
    let s = roomReducer(start, { type: 'record', recordState: '1', taskId: '8', startedAt: 3_000, at: 12_000 })!;
    expect(s.record.since).toBe(3_000);
    s = roomReducer(s, { type: 'snapshot', snapshot: { ...snapshot, roomInfo: { ...info, recordState: '1' } }, receivedAt: 50_000 })!;
    expect(s.record).toEqual({ taskId: '8', since: 3_000 });
  });
  it('a new task starts its own clock', () => {
    let s = roomReducer(start, { type: 'record', recordState: '1', taskId: '1', at: 1_000 })!;
    s = roomReducer(s, { type: 'record', recordState: '1', taskId: '2', at: 9_000 })!;
    expect(s.record).toEqual({ taskId: '2', since: 9_000 });
  });
});
