import { describe, expect, it } from 'vitest';
import { TokenSigner } from '../platform/secrets.ts';
import { mediaRights, signMediaToken } from './media-grant.ts';

const r = (
  roomType: 1 | 2 | 3 | 4,
  role: 'creator' | 'member' | 'tourist' | 'observer',
  userType: '1' | '2' | '3' = '1',
  micConnected = false,
) => mediaRights({ roomType, role, userType, micConnected });

describe('who publishes what (docs/product/decisions.md room types)', () => {
  it('mini class: everyone seated sends camera and microphone; the creator may share a screen', () => {
    expect(r(1, 'creator')).toEqual(['mic', 'camera', 'screen']);
    expect(r(1, 'member')).toEqual(['mic', 'camera']);
    expect(r(1, 'tourist')).toEqual(['mic', 'camera']);
  });
  it('whiteboard and audio classes are audio only', () => {
    for (const t of [2, 3] as const) for (const role of ['creator', 'member', 'tourist'] as const) expect(r(t, role)).toEqual(['mic']);
  });
  it('large class: the teacher; a student camera and microphone, only while on stage (ADR 112)', () => {
    expect(r(4, 'creator')).toEqual(['mic', 'camera', 'screen']);
    expect(r(4, 'member')).toEqual([]);
    expect(r(4, 'tourist')).toEqual([]);
    expect(r(4, 'member', '1', true)).toEqual(['mic', 'camera']);
  });
  it('observers never publish, invited or not; a screen-share join sends the screen alone', () => {
    for (const t of [1, 2, 3, 4] as const) {
      expect(r(t, 'observer')).toEqual([]);
      expect(r(t, 'observer', '3', true)).toEqual([]);
    }
    expect(r(1, 'creator', '2')).toEqual(['screen']);
    expect(r(4, 'creator', '2')).toEqual(['screen']);
    expect(r(2, 'creator', '2')).toEqual([]);
    expect(r(1, 'member', '2')).toEqual([]);
  });
  it('signs a token that names the room, the person and the rights, and expires', () => {
    const signer = new TokenSigner('s'.repeat(40));
    const now = Date.now();
    const token = signMediaToken(
      signer,
      { roomNumber: '123456', roomType: 4, userId: '7', role: 'member', userType: '1', micConnected: true },
      60,
      now,
    );
    expect(signer.verify(token, now)).toMatchObject({ scope: 'media', room: '123456', uid: '7', rt: 4, pub: ['mic', 'camera'] });
    expect(signer.verify(token, now + 61_000)).toBeNull();
  });
});
