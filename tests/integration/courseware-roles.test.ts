/**
 * Courseware across roles (ADR 042): a web process signs and registers uploads and only sends the
 * conversion job; a worker process on the same PostgreSQL database and the same S3 store converts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '#core/platform/db/database.ts';
import { createLogger } from '#core/platform/logger.ts';
import { startBanshu, type Banshu } from '#server/app.ts';
import { call, nextMobile } from '#tests/support/api.ts';
import { makePdf, uploadCourseware } from '#tests/support/courseware.ts';
import { postgresAdminUrl } from '#tests/support/database.ts';
import { capturingLogger } from '#tests/support/log-capture.ts';
import { createTestDatabase, type TestDatabase } from '#tests/support/postgres.ts';
import { startS3, type TestS3 } from '#tests/support/s3.ts';
import { sleep } from '#tests/support/room-client.ts';

describe('courseware with ROLE=web and ROLE=worker', () => {
  /** The worker's log lines (the warning about REDIS_URL is read here). */
  const { logger: workerLogger, lines: workerLog } = capturingLogger();
  let s3: TestS3;
  let created: TestDatabase;
  let web: Banshu;
  let worker: Banshu;
  beforeAll(async () => {
    s3 = await startS3();
    created = await createTestDatabase(postgresAdminUrl());
    const env = {
      NODE_ENV: 'test',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      SESSION_SECRET: 'w'.repeat(64),
      DATA_DIR: '/tmp/banshu-roles-test',
      DATABASE_URL: created.url,
      MEDIA_PUBLIC_URL: 'http://127.0.0.1:9',
      ...s3.env,
    };
    web = await startBanshu(
      { ...env, ROLE: 'web' },
      { database: await openDatabase({ url: created.url, dataDir: null }), logger: createLogger('silent'), web: { mode: 'none' } },
    );
    worker = await startBanshu(
      { ...env, ROLE: 'worker' },
      { database: await openDatabase({ url: created.url, dataDir: null }), logger: workerLogger },
    );
  });
  afterAll(async () => {
    await web?.close();
    await worker?.close();
    await created?.drop();
    await s3?.close();
  });

  it('a worker without REDIS_URL says at start that browsers will not hear it live', () => {
    expect(workerLog.some((l) => l.level === 40 && l.msg.includes('no REDIS_URL'))).toBe(true);
  });

  it('the web role queues, the worker converts', async () => {
    expect(web.web).not.toBeNull();
    expect(worker.web).toBeNull();
    expect(web.platform.jobs).not.toBeNull();
    const mobile = nextMobile();
    await call(web.url, 'sendPhoneCode', { mobile });
    const code = web.platform.services.devOutbox!.list()[0]!.code;
    const token = (await call(web.url, 'loginUser', { mobile, code })).data.userInfo.userToken;
    const up = await uploadCourseware(web.url, token, makePdf(2), 'roles.pdf');
    expect(up.put).toBe(200);
    expect(up.add.data.documentStatus).toBe(1);
    let list = await call(web.url, 'getMyDocumentList', {}, { token });
    for (let i = 0; i < 300 && list.data.documentList[0]!.status === 1; i++) {
      await sleep(100);
      list = await call(web.url, 'getMyDocumentList', {}, { token });
    }
    expect(list.data.documentList[0]).toMatchObject({ status: 3, pageCount: 2 });
  });
});
