/**
 * Table-driven hostile input against every /api endpoint: missing fields, wrong types, 1 MB
 * strings, SQL and HTML injection, invalid UTF-8, non-object bodies, forged, malformed and expired
 * tokens. Every answer must be an envelope with a non-'0' code, never a 500, and no row may be
 * written (rate_hits excepted: counting attempts is what a rate limit is for).
 */
import { expect, it } from 'vitest';
import type { ApiName } from '#core/contracts/api.ts';
import { call, signIn } from '#tests/support/api.ts';
import { eachEngine } from '#tests/support/engines-matrix.ts';
import type { TestServer } from '#tests/support/server.ts';

const TABLES = [
  'users',
  'sessions',
  'sms_codes',
  'rooms',
  'room_members',
  'idempotency_keys',
  'credit_ledger',
  'documents',
  'record_tasks',
  'records',
] as const;

async function snapshot(server: TestServer): Promise<Record<string, number>> {
  const db = server.banshu.platform.database.db;
  const out: Record<string, number> = {};
  for (const t of TABLES) {
    const r = await db
      .selectFrom(t)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    out[t] = Number(r.n);
  }
  return out;
}

/** Each endpoint with a valid body; `fields` are mutated one at a time. `auth` says if it needs a token. */
const endpoints: Record<ApiName, { body: Record<string, unknown>; auth: boolean }> = {
  sendPhoneCode: { body: { mobile: '13900000001', area: '86' }, auth: false },
  loginUser: { body: { mobile: '13900000001', code: '123456' }, auth: false },
  logout: { body: {}, auth: true },
  queryUserInfoByToken: { body: {}, auth: true },
  getUserInfoById: { body: { id: '1' }, auth: true },
  getUserInfo: { body: { userId: '1' }, auth: true },
  updateUserName: { body: { userName: 'Valid' }, auth: true },
  createAgoraRoom: { body: { roomType: 1, consumption: 'off' }, auth: true },
  createRoom: { body: { roomType: 2, consumption: 'off' }, auth: true },
  getRoomInfoByRoomNumber: { body: { roomNumber: '123456' }, auth: false },
  userJoinAgoraRoom: { body: { roomNumber: '123456', userType: '1' }, auth: true },
  joinRoom: { body: { roomNumber: '123456', userType: '1' }, auth: true },
  createAgoraToken: { body: { roomNumber: '123456' }, auth: true },
  touristJoinRoom: { body: { roomNumber: '123456', userName: 'Ann' }, auth: false },
  // A demo room (ADR 092): the name is its one field; a missing name makes a real demo, so it is not dropped below.
  createDemo: { body: { userName: 'Ann' }, auth: false },
  getConsumptionStatus: { body: {}, auth: true },
  getUserVipInfo: { body: {}, auth: true },
  getMyRoomList: { body: { pageTime: 0, pageSize: 10, page: 1, roomType: 1 }, auth: true },
  endMyRoom: { body: { roomNumber: '123456' }, auth: true },
  delMyRoom: { body: { roomId: '1' }, auth: true },
  updateRoomInfoByRoomNumber: { body: { roomNumber: '123456', showState: 'wb' }, auth: true },
  createObserverLink: { body: { roomNumber: '123456' }, auth: true },
  getGoodsList: { body: { pageTime: 0, pageSize: 10 }, auth: true },
  getOrderList: { body: { pageTime: 0, pageSize: 7 }, auth: true },
  createOrder: { body: { goodsId: 'GB00000005' }, auth: true },
  getOrderInfo: { body: { orderId: 'BS20260101000000000001' }, auth: true },
  paymentOrder: { body: { orderId: 'BS20260101000000000001', promoCode: 'ABCDEF' }, auth: true },
  exchangePromoPoints: { body: { goodsId: 'GB00000005' }, auth: true },
  getAdminMessageList: { body: { pageTime: 0, pageSize: 10 }, auth: true },
  createFeedbackCaptcha: { body: { content: 'Works well', code: '1234' }, auth: true },
  addLog: { body: {}, auth: false },
  createWbToken: { body: { userId: '1', channelId: '123456' }, auth: true },
  getTeachingPictureList: { body: {}, auth: false },
  getRoomView: { body: { roomNumber: '123456' }, auth: true },
  getWbReview: { body: { roomNumber: '123456', page: 'wb:0' }, auth: true },
  createPhoneUploadLink: { body: { roomNumber: '123456' }, auth: true },
  // Courseware: ids that are not the caller's, rooms the caller did not create (filled in below).
  getResourceType: { body: {}, auth: true },
  checkFileHash: { body: { fileHash: 'd41d8cd98f00b204e9800998ecf8427e' }, auth: true },
  createUpyunSign: {
    body: { fileName: '课件.pptx', fileSize: 1000, fileHash: 'd41d8cd98f00b204e9800998ecf8427e', roomNumber: '123456' },
    auth: true,
  },
  addRoomDocument: {
    body: {
      documentSource: 'documentConvert/2026/01/01/abc/a.pdf',
      documentName: 'a.pdf',
      roomNumber: '123456',
      fileHash: 'd41d8cd98f00b204e9800998ecf8427e',
      documentType: 1,
    },
    auth: true,
  },
  updateDocumentNotice: { body: { roomNumber: '123456', taskId: '00000000-0000-4000-8000-000000000000' }, auth: true },
  closeRoomDocument: { body: { roomNumber: '123456' }, auth: true },
  getMyDocumentList: { body: { pageNo: 1, pageSize: 10 }, auth: true },
  delUserDocument: { body: { taskId: '00000000-0000-4000-8000-000000000000', documentId: '1' }, auth: true },
  analysisDocumentExisting: { body: { documentId: '1', roomNumber: '123456' }, auth: true },
  getDocumentDownloadUrl: { body: { documentId: '1' }, auth: true },
  getRoomCourseware: { body: { roomNumber: '123456' }, auth: true },
  // Recording: rooms the caller did not create, records that are not the caller's (filled in below).
  startTask: { body: { roomNumber: '123456' }, auth: true },
  stopTask: { body: { roomNumber: '123456', taskId: '1' }, auth: true },
  getRoomMemberRecordState: { body: { roomNumber: '123456' }, auth: true },
  getRecordList: { body: { recordType: 1, pageSize: 10, pageTime: 0 }, auth: true },
  getRecordFileUrl: { body: { fileId: '1', taskId: '1', download: true }, auth: true },
  delRecord: { body: { fileId: '1' }, auth: true },
  createRecordShareLink: { body: { fileId: '1' }, auth: true },
  getSharedRecord: { body: { token: 'eyJ4IjoxfQ.forged' }, auth: false },
  startLive: { body: { roomNumber: '123456', pushPlatform: 'YouTube', pushStreamUrl: 'abcd-efgh-ijkl-mnop' }, auth: true },
  endLive: { body: { roomNumber: '123456' }, auth: true },
  getLiveState: { body: { roomNumber: '123456' }, auth: true },
  getLivePlatforms: { body: { roomNumber: '123456' }, auth: true },
  // Studio: an upload of another user's (its token filled in below).
  createUploadToken: { body: { mediaType: 'video/mp4' }, auth: true },
  signUploadParts: { body: { uploadToken: 'x'.repeat(32), parts: [{ partNumber: 1, size: 100 }] }, auth: true },
  addlocalRecordFile: {
    body: { fileName: 'lesson', fileUrl: 'x'.repeat(32), parts: [{ partNumber: 1, etag: '"abc"' }], durationMs: 5000 },
    auth: true,
  },
  abortUpload: { body: { uploadToken: 'x'.repeat(32) }, auth: true },
};

/** Values that are not hostile for that field: a number is a fine page time. */
const VALID_AS_WELL = new Set([
  'getMyRoomList.pageTime:number',
  'getMyRoomList.page:number',
  'getMyRoomList.roomType:number',
  'getGoodsList.pageTime:number',
  'getOrderList.pageTime:number',
  'getAdminMessageList.pageTime:number',
  'getRecordList.pageTime:number',
  'getRecordFileUrl.download:boolean',
]);

const MB = 'x'.repeat(1024 * 1024);
const hostileValues: Array<[string, unknown]> = [
  ['number', 123456789],
  ['negative', -1],
  ['float', 1.5],
  ['boolean', true],
  ['null', null],
  ['array', ['13900000001']],
  ['object', { $gt: '' }],
  ['sql', "' OR 1=1; DROP TABLE users; --"],
  ['html', '<script>alert(1)</script>'],
  ['zero-width', '\u200b\u200b\u200b'],
  ['rtl override', '\u202e123456'],
  ['nul byte', '1390000\u00000001'],
  ['lone surrogate', '\ud800abc'],
  ['emoji', '👩‍🏫👩‍🏫'],
  ['long', 'y'.repeat(5000)],
];

eachEngine('hostile input on every endpoint', (server) => {
  it('answers envelopes with non-zero codes and writes nothing', async () => {
    const s = server();
    const teacher = await signIn(s);
    // A room that exists, so forged requests aim at something real.
    const room = await call(s.url, 'createRoom', { roomType: 2 }, { token: teacher.token });
    endpoints.getRoomInfoByRoomNumber.body['roomNumber'] = room.data.roomInfo.roomNumber;
    // A room of somebody else's: the teacher's token must not change it or make links for it.
    const other = await signIn(s);
    const foreign = await call(s.url, 'createRoom', { roomType: 2 }, { token: other.token });
    endpoints.updateRoomInfoByRoomNumber.body['roomNumber'] = foreign.data.roomInfo.roomNumber;
    endpoints.createObserverLink.body['roomNumber'] = foreign.data.roomInfo.roomNumber;
    // A board token for a room the teacher is not in.
    endpoints.createWbToken.body['userId'] = teacher.userId;
    endpoints.createWbToken.body['channelId'] = foreign.data.roomInfo.roomNumber;
    endpoints.getWbReview.body['roomNumber'] = foreign.data.roomInfo.roomNumber;
    endpoints.createPhoneUploadLink.body['roomNumber'] = foreign.data.roomInfo.roomNumber;
    // Courseware: someone else's room, and someone else's document (converted, in their library).
    for (const n of [
      'createUpyunSign',
      'addRoomDocument',
      'updateDocumentNotice',
      'closeRoomDocument',
      'analysisDocumentExisting',
      'getRoomCourseware',
    ] as const) {
      endpoints[n].body['roomNumber'] = foreign.data.roomInfo.roomNumber;
    }
    const theirs = await s.banshu.platform.database.db
      .insertInto('documents')
      .values({
        user_id: other.userId,
        name: '他的课件.pdf',
        source_key: 'documentConvert/2026/01/01/theirs/a.pdf',
        pages_prefix: 'documentConvert/2026/01/01/theirs',
        file_hash: 'a'.repeat(32),
        task_id: '11111111-1111-4111-8111-111111111111',
        document_type: 1,
        status: 3,
        size: 10,
        page_count: 1,
        page_sizes: '[[1280,720]]',
        created_at: new Date(),
        updated_at: new Date(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const n of ['delUserDocument', 'analysisDocumentExisting', 'getDocumentDownloadUrl'] as const)
      endpoints[n].body['documentId'] = theirs.id;
    endpoints.delUserDocument.body['taskId'] = '11111111-1111-4111-8111-111111111111';
    for (const n of [
      'startTask',
      'stopTask',
      'getRoomMemberRecordState',
      'startLive',
      'endLive',
      'getLiveState',
      'getLivePlatforms',
    ] as const)
      endpoints[n].body['roomNumber'] = foreign.data.roomInfo.roomNumber;
    // A finished recording of the other user's.
    const theirRecord = await s.banshu.platform.database.db
      .insertInto('records')
      .values({
        user_id: other.userId,
        type: 1,
        file_name: 'theirs.mp4',
        object_key: 'records/x/1/1.mp4',
        file_size: 10,
        created_at: new Date(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const n of ['getRecordFileUrl', 'delRecord', 'createRecordShareLink'] as const) endpoints[n].body['fileId'] = theirRecord.id;
    // An open studio upload of the other user's.
    const theirToken = 'T'.repeat(32);
    await s.banshu.platform.database.db
      .insertInto('studio_uploads')
      .values({
        token: theirToken,
        user_id: other.userId,
        object_key: `studio/${other.userId}/${theirToken}/source.mp4`,
        store_upload_id: 'upload-of-another-user',
        media_type: 'video/mp4',
        state: 'open',
        created_at: new Date(),
        expires_at: new Date(Date.now() + 3_600_000),
      })
      .execute();
    endpoints.signUploadParts.body['uploadToken'] = theirToken;
    endpoints.addlocalRecordFile.body['fileUrl'] = theirToken;
    endpoints.abortUpload.body['uploadToken'] = theirToken;
    const before = await snapshot(s);
    const seen: string[] = [];

    const expectRefused = async (label: string, p: Promise<Awaited<ReturnType<typeof call>>>) => {
      const r = await p;
      expect(r.status, label).toBeLessThan(500);
      expect(typeof r.code, label).toBe('string');
      expect(r.code, label).not.toBe('0');
      expect(r.data, label).toBeNull();
      expect(JSON.stringify(r), label).not.toMatch(/at .*\.ts:\d+|stack|node_modules/);
      seen.push(r.code);
    };

    for (const [name, { body, auth }] of Object.entries(endpoints) as Array<[ApiName, (typeof endpoints)[ApiName]]>) {
      const token = auth ? teacher.token : undefined;
      // Missing fields.
      for (const field of Object.keys(body)) {
        const { [field]: _dropped, ...rest } = body;
        const optional = (name === 'createAgoraRoom' || name === 'createRoom') && field === 'consumption';
        const optionalToo =
          optional ||
          (name === 'createAgoraRoom' && field === 'roomType') ||
          (name === 'sendPhoneCode' && field === 'area') ||
          ((name === 'userJoinAgoraRoom' || name === 'joinRoom') && field === 'userType') ||
          (name === 'getUserInfo' && field === 'userId') ||
          (name === 'updateRoomInfoByRoomNumber' && field === 'showState') ||
          // Optional: the signed upload and the registration work without a room (the library).
          ((name === 'createUpyunSign' || name === 'addRoomDocument') && field === 'roomNumber') ||
          name === 'getMyDocumentList' ||
          name === 'getMyRoomList' ||
          name === 'getGoodsList' ||
          name === 'getOrderList' ||
          name === 'getAdminMessageList' ||
          name === 'getRecordList' ||
          (name === 'getRecordFileUrl' && (field === 'taskId' || field === 'download')) ||
          (name === 'createUploadToken' && field === 'mediaType') ||
          (name === 'addlocalRecordFile' && field === 'durationMs') ||
          (name === 'paymentOrder' && field === 'promoCode') ||
          (name === 'createDemo' && field === 'userName');
        if (!optionalToo) await expectRefused(`${name} without ${field}`, call(s.url, name, rest, { token }));
        // Wrong types and hostile strings, one field at a time.
        for (const [kind, value] of hostileValues) {
          if (VALID_AS_WELL.has(`${name}.${field}:${kind}`)) continue;
          await expectRefused(`${name}.${field}=${kind}`, call(s.url, name, { ...body, [field]: value }, { token }));
        }
        // A 1 MB string: too large for the body limit.
        const big = await call(s.url, name, { ...body, [field]: MB }, { token });
        expect(big.status, `${name}.${field} 1MB`).toBe(413);
        expect(big.code).toBe('5');
        // The same hostile strings form-encoded.
        await expectRefused(`${name}.${field} form sql`, call(s.url, name, { ...body, [field]: "1' or '1'='1" }, { token, form: true }));
      }
      // Invalid UTF-8 and broken bodies.
      const raw = async (bytes: Buffer, type: string) => {
        const res = await fetch(`${s.url}/api/${name}`, {
          method: 'POST',
          headers: { 'content-type': type, ...(token ? { token } : {}) },
          body: new Uint8Array(bytes),
        });
        const text = await res.text();
        expect(res.status, `${name} raw`).toBeLessThan(500);
        const env = JSON.parse(text) as { code: string; data: unknown };
        return { ...env, status: res.status, setCookie: null, msg: '' };
      };
      const fields = Object.keys(body);
      if (fields.length) {
        const jsonBad = Buffer.concat([Buffer.from(`{"${fields[0]}":"`), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from('"}')]);
        await expectRefused(`${name} invalid utf-8 json`, Promise.resolve(await raw(jsonBad, 'application/json')));
        const formBad = Buffer.concat([Buffer.from(`${fields[0]}=`), Buffer.from([0xff, 0xc0, 0xaf])]);
        await expectRefused(`${name} invalid utf-8 form`, Promise.resolve(await raw(formBad, 'application/x-www-form-urlencoded')));
        await expectRefused(
          `${name} bad percent`,
          Promise.resolve(await raw(Buffer.from(`${fields[0]}=%E0%A4%A`), 'application/x-www-form-urlencoded')),
        );
      }
      for (const broken of ['{', '[1,2]', '"text"', '42', 'null']) {
        const r = await raw(Buffer.from(broken), 'application/json');
        if (fields.length === 0 && broken === 'null') continue;
        await expectRefused(`${name} body ${broken}`, Promise.resolve(r));
      }
      // Tokens: missing, malformed, forged, expired, another user's for someone else's data.
      if (auth && name !== 'logout') {
        await expectRefused(`${name} no token`, call(s.url, name, body));
        await expectRefused(`${name} malformed token`, call(s.url, name, body, { token: 'not-a-token' }));
        await expectRefused(`${name} forged token`, call(s.url, name, body, { token: 'a'.repeat(64) }));
        await expectRefused(`${name} forged cookie`, call(s.url, name, body, { cookie: `banshu_session=${'b'.repeat(64)}` }));
        await expectRefused(`${name} sql token`, call(s.url, name, body, { token: "' or 1=1 --" }));
      }
    }

    // Wrong method and unknown endpoints.
    const get = await fetch(`${s.url}/api/getRoomInfoByRoomNumber`);
    expect(get.status).toBe(405);
    expect(((await get.json()) as { code: string }).code).toBe('8');
    const unknown = await call(s.url, '__proto__', {});
    expect(unknown.code).toBe('21');
    expect((await call(s.url, 'constructor', {})).code).toBe('21');

    // An expired session is refused everywhere.
    const expiring = await signIn(s);
    const mid = await snapshot(s);
    s.clock.advance(31 * 24 * 3600_000);
    for (const [name, { body, auth }] of Object.entries(endpoints)) {
      if (auth && name !== 'logout') {
        const r = await call(s.url, name, body, { token: expiring.token });
        expect(r.code, `${name} expired`).toBe('21001');
      }
    }

    expect(await snapshot(s)).toEqual(mid);
    // Apart from the sign-in just above, the hostile requests wrote nothing.
    expect({ ...mid, users: mid['users']! - 1, sessions: mid['sessions']! - 1, sms_codes: mid['sms_codes']! - 1 }).toEqual(before);
    expect(new Set(seen)).not.toContain('9');
    expect(seen.length).toBeGreaterThan(400);
  });
});
