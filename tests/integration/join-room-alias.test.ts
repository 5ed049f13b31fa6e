/**
 * `/api/joinRoom`, the older name of `userJoinAgoraRoom` (docs/product/01 §7, ADR 098): the same
 * call, so the same answer and the same refusals.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, signIn } from '#tests/support/api.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

it('joins a member as userJoinAgoraRoom does', async () => {
  const teacher = await signIn(server);
  const room = await call(server.url, 'createRoom', { roomType: 2 }, { token: teacher.token });
  const roomNumber = room.data.roomInfo.roomNumber;
  const student = await signIn(server);
  const old = await call(server.url, 'joinRoom', { roomNumber, userType: '1' }, { token: student.token, form: true });
  expect(old.code, old.msg).toBe('0');
  expect(old.data.role).toBe('member');
  expect(old.data.roomInfo.roomNumber).toBe(roomNumber);
  const now = await call(server.url, 'userJoinAgoraRoom', { roomNumber }, { token: student.token });
  expect(now.data.role).toBe(old.data.role);
  expect(now.data.userIdForNumber).toBe(old.data.userIdForNumber);
});

it('refuses what userJoinAgoraRoom refuses, with the same codes', async () => {
  const student = await signIn(server);
  for (const [body, token] of [
    [{ roomNumber: '000001' }, student.token],
    [{ roomNumber: '000001' }, undefined],
    [{}, student.token],
    [{ roomNumber: '123456', userType: '9' }, student.token],
  ] as const) {
    const a = await call(server.url, 'joinRoom', body, token ? { token } : {});
    const b = await call(server.url, 'userJoinAgoraRoom', body, token ? { token } : {});
    expect(a.code, JSON.stringify(body)).not.toBe('0');
    expect(a.code, JSON.stringify(body)).toBe(b.code);
  }
});
