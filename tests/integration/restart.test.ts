import { describe, expect, it } from 'vitest';
import { openDatabase } from '#core/platform/db/database.ts';
import { createLogger } from '#core/platform/logger.ts';
import { startBanshu } from '#server/app.ts';
import { call, nextMobile } from '#tests/support/api.ts';
import { postgresAdminUrl } from '#tests/support/database.ts';
import { createTestDatabase } from '#tests/support/postgres.ts';
import { connectRoom, ask } from '#tests/support/room-client.ts';

const env = {
  NODE_ENV: 'test',
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'silent',
  SESSION_SECRET: 's'.repeat(64),
  DATA_DIR: '/tmp/banshu-restart-test',
};

async function start(url: string) {
  const database = await openDatabase({ url, dataDir: null });
  return startBanshu(env, { database, jobs: false, logger: createLogger('silent'), web: { mode: 'none' } });
}

describe('a restart', () => {
  it('keeps the room state, the sessions and the chat: they live in the database', async () => {
    const created = await createTestDatabase(postgresAdminUrl());
    try {
      const first = await start(created.url);
      const mobile = nextMobile();
      await call(first.url, 'sendPhoneCode', { mobile });
      const code = first.platform.services.devOutbox!.list()[0]!.code;
      const token = (await call(first.url, 'loginUser', { mobile, code })).data.userInfo.userToken;
      const roomNumber = (await call(first.url, 'createRoom', { roomType: 2 }, { token })).data.roomInfo.roomNumber;
      const joined = await call(first.url, 'userJoinAgoraRoom', { roomNumber }, { token });
      const socket = await connectRoom(first.url, joined.data.imToken);
      expect((await ask(socket, 'joinRoom')).code).toBe('0');
      expect((await ask(socket, 'customRoomEvent', { showState: 'ppt', pptCurrentPage: 4, wbPower: '1' })).code).toBe('0');
      expect((await ask(socket, 'chat', { text: 'before the restart' })).code).toBe('0');
      socket.close();
      await first.close();

      const second = await start(created.url);
      try {
        const info = await call(second.url, 'getRoomInfoByRoomNumber', { roomNumber });
        expect(info.data.roomInfo).toMatchObject({ showState: 'ppt', pptCurrentPage: 4, wbPower: '1' });
        expect((await call(second.url, 'queryUserInfoByToken', {}, { token })).code).toBe('0');
        const again = await connectRoom(second.url, joined.data.imToken);
        const snap = await ask(again, 'joinRoom');
        expect(snap.data.messages.map((m: { text: string }) => m.text)).toEqual(['before the restart']);
        again.close();
      } finally {
        await second.close();
      }
    } finally {
      await created.drop();
    }
  });
});
