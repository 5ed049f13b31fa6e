import { expect, it } from 'vitest';
import type { MediaTokenPayload } from '#core/contracts/media-signaling.ts';
import { Revocations } from './revocations.ts';

const TTL = 120;
const T0 = 1_800_000_000_000;
/** A token issued at `issuedMs` (its expiry is the issue second plus the lifetime). */
const claim = (issuedMs: number, over: Partial<MediaTokenPayload> = {}): MediaTokenPayload & { exp: number } => ({
  scope: 'media',
  room: '123456',
  uid: '42',
  role: 'member',
  rt: 4,
  pub: ['mic'],
  ...over,
  exp: Math.floor(issuedMs / 1000) + TTL,
});

it('refuses a kicked person’s token in that room for the token lifetime, then forgets it', () => {
  const r = new Revocations(TTL);
  r.add({ op: 'removeUser', room: '123456', userId: '42' }, T0);
  expect(() => r.check(claim(T0 - 5000), T0 + 1000)).toThrow(expect.objectContaining({ code: '33001' }));
  expect(r.check(claim(T0 - 5000, { uid: '43' }), T0 + 1000)).toEqual(['mic']);
  expect(r.check(claim(T0 - 5000, { room: '654321' }), T0 + 1000)).toEqual(['mic']);
  expect(() => r.check(claim(T0 + 60_000), T0 + TTL * 1000)).toThrow();
  expect(r.check(claim(T0 + 60_000), T0 + TTL * 1000 + 1)).toEqual(['mic']);
  expect(r.size).toBe(0);
});

it('an ended class refuses tokens issued before it, not those of a new class with the same number', () => {
  const r = new Revocations(TTL);
  r.add({ op: 'closeRoom', room: '123456' }, T0);
  expect(() => r.check(claim(T0 - 2000), T0 + 1000)).toThrow(expect.objectContaining({ code: '33001' }));
  expect(r.check(claim(T0 + 1500), T0 + 2000)).toEqual(['mic']);
});

it('a student taken off the stage: a large-class student’s older token loses camera and microphone', () => {
  const r = new Revocations(TTL);
  r.add({ op: 'stageOff', room: '123456', userId: '42' }, T0);
  expect(r.check(claim(T0 - 3000, { pub: ['mic', 'camera'] }), T0 + 1)).toEqual([]);
  // Going up again brings a newer token; the teacher and other room types are untouched.
  expect(r.check(claim(T0 + 2000), T0 + 3000)).toEqual(['mic']);
  expect(r.check(claim(T0 - 3000, { role: 'creator', pub: ['mic', 'camera', 'screen'] }), T0 + 1)).toEqual(['mic', 'camera', 'screen']);
  expect(r.check(claim(T0 - 3000, { rt: 1, pub: ['mic', 'camera'] }), T0 + 1)).toEqual(['mic', 'camera']);
});

it('is bounded: past the limit the oldest revocation goes first', () => {
  const r = new Revocations(TTL, 3);
  for (let i = 0; i < 5; i++) r.add({ op: 'removeUser', room: '123456', userId: String(i) }, T0 + i);
  expect(r.size).toBe(3);
  expect(r.check(claim(T0, { uid: '0' }), T0 + 10)).toEqual(['mic']);
  expect(() => r.check(claim(T0, { uid: '4' }), T0 + 10)).toThrow();
});
