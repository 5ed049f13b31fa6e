import { emptyClassTools } from '#core/contracts/class-tools.ts';
import { describe, expect, it } from 'vitest';
import type { RoomInfo } from '#core/contracts/api.ts';
import type { ChatMessage, RoomSnapshot } from '#core/contracts/room-events.ts';
import type { LiveStatus } from '#core/contracts/streaming.ts';
import { layoutClass, localNetworkQuality, networkBand, NO_LIVE, roomReducer, sfuNetworkQuality } from './roomState.ts';
import { chatText } from './useRoomChannel.ts';
import { NO_GROUPS } from './groups/groups-pure.ts';

const info = { roomNumber: '123456', roomType: 1, showState: '', maxMember: 2 } as RoomInfo;
const snapshot: RoomSnapshot = {
  roomInfo: info,
  you: { userId: '2', name: 'Alice', role: 'member' },
  members: [
    { userId: '1', name: 'T', role: 'creator', networkQuality: 1, online: true },
    { userId: '2', name: 'Alice', role: 'member', networkQuality: 0, online: true },
  ],
  messages: [],
  stage: { seats: 6, onStage: [], invited: [], hands: [], carousel: { seconds: 0, nextAt: 0 } },
  teacherOnline: true,
  serverTime: 10_500,
  tools: emptyClassTools(),
  toolsPrivate: null,
  pollPrivate: null,
  myAnswers: null,
  groups: { ...NO_GROUPS, teacher: '1' },
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
  it('takes the whole stage of each stage event, without what the event says changed', () => {
    const base = { seats: 6, onStage: [], hands: [], carousel: { seconds: 0, nextAt: 0 } };
    const invited = { ...base, invited: [{ userId: '2', name: 'Alice', since: 5, deadline: 9 }] };
    let s = roomReducer(start, { type: 'stage', stage: { ...invited, outcome: 'invited', userIds: ['2'], off: [] } as typeof invited })!;
    expect(s.stage).toEqual(invited);
    const gone = { ...base, invited: [] };
    s = roomReducer(s, { type: 'stage', stage: gone })!;
    expect(s.stage).toEqual(gone);
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

describe('live streaming in the room state', () => {
  // The server's clock is 500 ms ahead of this page's (serverTime 10_500 received at 10_000).
  const start = roomReducer(null, {
    type: 'snapshot',
    snapshot: { ...snapshot, roomInfo: { ...info, liveState: '0' } },
    receivedAt: 10_000,
  })!;
  const status = (over: Partial<LiveStatus>): LiveStatus => ({
    taskId: '7',
    liveState: '2',
    platform: 'YouTube',
    startedAt: null,
    kbps: 0,
    reconnecting: false,
    ...over,
  });

  it("follows roomLive: starting, then live from the server's start in local time, bitrate and reconnecting", () => {
    expect(start.live).toEqual(NO_LIVE);
    let s = roomReducer(start, { type: 'live', status: status({}), at: 11_000 })!;
    expect(s.roomInfo.liveState).toBe('2');
    expect(s.live).toMatchObject({ taskId: '7', platform: 'YouTube', since: null, failure: null });
    s = roomReducer(s, { type: 'live', status: status({ liveState: '1', startedAt: 12_500, kbps: 2900 }), at: 13_000 })!;
    expect(s.roomInfo.liveState).toBe('1');
    expect(s.live).toEqual({ taskId: '7', platform: 'YouTube', since: 12_000, kbps: 2900, reconnecting: false, failure: null });
    s = roomReducer(s, { type: 'live', status: status({ liveState: '1', startedAt: 12_500, kbps: 0, reconnecting: true }), at: 20_000 })!;
    expect(s.live).toMatchObject({ since: 12_000, kbps: 0, reconnecting: true });
  });

  it('live without a start time counts from the first live event, and a repeated one keeps it', () => {
    let s = roomReducer(start, { type: 'live', status: status({ liveState: '1' }), at: 15_000 })!;
    expect(s.live.since).toBe(15_000);
    s = roomReducer(s, { type: 'live', status: status({ liveState: '1', kbps: 3000 }), at: 25_000 })!;
    expect(s.live.since).toBe(15_000);
    // A late '2' (the start answer after roomLive said live) never steps back.
    expect(roomReducer(s, { type: 'live', status: status({ liveState: '2' }), at: 26_000 })).toBe(s);
  });

  it("an end with a failure keeps the reason and the platform; the room's liveState is '0'", () => {
    let s = roomReducer(start, { type: 'live', status: status({ liveState: '1', startedAt: 12_500 }), at: 13_000 })!;
    s = roomReducer(s, { type: 'live', status: status({ liveState: '0', failure: 'refused' }), at: 14_000 })!;
    expect(s.roomInfo.liveState).toBe('0');
    expect(s.live).toEqual({ taskId: '7', platform: 'YouTube', since: null, kbps: 0, reconnecting: false, failure: 'refused' });
    // A new start clears it.
    s = roomReducer(s, { type: 'live', status: status({ taskId: '8' }), at: 15_000 })!;
    expect(s.live.failure).toBeNull();
    expect(s.live.taskId).toBe('8');
  });

  it('a late end of an older task does not stop the running one', () => {
    const s = roomReducer(start, { type: 'live', status: status({ taskId: '9', liveState: '1', startedAt: 12_500 }), at: 13_000 })!;
    expect(roomReducer(s, { type: 'live', status: status({ taskId: '7', liveState: '0', failure: 'unreachable' }), at: 14_000 })).toBe(s);
  });

  it('room patches and a reconnect snapshot move liveState and keep what is known', () => {
    let s = roomReducer(start, { type: 'live', status: status({ liveState: '1', startedAt: 12_500, kbps: 2500 }), at: 13_000 })!;
    s = roomReducer(s, { type: 'snapshot', snapshot: { ...snapshot, roomInfo: { ...info, liveState: '1' } }, receivedAt: 60_000 })!;
    expect(s.live).toMatchObject({ taskId: '7', platform: 'YouTube', since: 12_000 });
    s = roomReducer(s, { type: 'patch', patch: { liveState: '0' }, at: 70_000 })!;
    expect(s.roomInfo.liveState).toBe('0');
    expect(s.live).toMatchObject({ since: null, kbps: 0, failure: null, platform: 'YouTube' });
    // The failure event after the patch still says why.
    s = roomReducer(s, { type: 'live', status: status({ liveState: '0', failure: 'timeout' }), at: 70_100 })!;
    expect(s.live.failure).toBe('timeout');
    // A joining page that finds the class live counts from the join until getLiveState names the start.
    const joined = roomReducer(null, {
      type: 'snapshot',
      snapshot: { ...snapshot, roomInfo: { ...info, liveState: '1' } },
      receivedAt: 10_000,
    })!;
    expect(joined.live.since).toBe(10_000);
    const known = roomReducer(joined, { type: 'live', status: status({ liveState: '1', startedAt: 4_500, kbps: 2900 }), at: 10_200 })!;
    expect(known.live).toMatchObject({ taskId: '7', since: 4_000, kbps: 2900 });
  });
});
