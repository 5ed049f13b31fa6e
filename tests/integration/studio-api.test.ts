/**
 * The recording studio's upload over /api with a real server, on the disk store and on S3
 * (s3rver), and the worker's remux through the real converter (ADR 086): a take in parts PUT
 * straight to the store, joined on save, listed in the library's studio tab, made into a
 * fast-start MP4 (H.264 copied, Opus to AAC) with a poster; a double save makes one record; a part
 * sent again replaces itself; refusals that write nothing (another user's upload or record, the
 * name rule, missing or altered parts, a take past the operator's limit, a visitor, an expired or
 * dropped upload); a take whose job was lost is made when a worker starts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STUDIO_PART_BYTES, studioPartSize } from '#core/contracts/studio.ts';
import { call, signIn } from '#tests/support/api.ts';
import { browserTake } from '#tests/fixtures/courseware.ts';
import { sharedConverter, testConverter } from '#tests/support/courseware.ts';
import { until } from '#tests/support/until.ts';
import { connectUser, waitFor, type RoomSocket } from '#tests/support/room-client.ts';
import { startS3, type TestS3 } from '#tests/support/s3.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';

const { converter: real } = await testConverter();
const shared = sharedConverter(real);

let dir = '';
/** A take as Chromium's MediaRecorder writes it: fragmented MP4, H.264 and Opus; over one part long. */
let take: Buffer;
const TAKE_SECONDS = 6;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'banshu-studio-'));
  const file = path.join(dir, 'take.mp4');
  take = await browserTake(file, { seconds: TAKE_SECONDS, mbps: 12 });
  // The flow below needs at least two parts, the last one short.
  expect(take.length).toBeGreaterThan(STUDIO_PART_BYTES + 1000);
});

afterAll(async () => {
  await real.close();
  await rm(dir, { recursive: true, force: true });
});

interface Part {
  partNumber: number;
  etag: string;
}

/** PUTs part n of `bytes` to its signed address as a browser does; answers the status and the ETag. */
async function putPart(url: string, headers: Record<string, string>, body: Uint8Array): Promise<{ status: number; etag: string }> {
  const res = await fetch(url, { method: 'PUT', headers, body: new Uint8Array(body) });
  await res.arrayBuffer();
  return { status: res.status, etag: res.headers.get('etag') ?? '' };
}

/** Opens an upload and sends every part of `bytes`; answers the token and the parts as the store named them. */
async function uploadTake(
  s: TestServer,
  token: string,
  bytes: Uint8Array,
  mediaType: 'video/mp4' | 'video/webm' = 'video/mp4',
): Promise<{ uploadToken: string; parts: Part[] }> {
  const opened = await call(s.url, 'createUploadToken', { mediaType }, { token });
  expect(opened.code).toBe('0');
  const uploadToken = opened.data.uploadToken;
  const count = Math.ceil(bytes.length / STUDIO_PART_BYTES);
  const wanted = Array.from({ length: count }, (_, i) => ({ partNumber: i + 1, size: studioPartSize(i + 1, bytes.length) }));
  const signed = await call(s.url, 'signUploadParts', { uploadToken, parts: wanted }, { token });
  expect(signed.code).toBe('0');
  const parts: Part[] = [];
  for (const p of signed.data.parts as Array<{ partNumber: number; url: string; headers: Record<string, string> }>) {
    const start = (p.partNumber - 1) * STUDIO_PART_BYTES;
    const put = await putPart(p.url, p.headers, bytes.subarray(start, start + studioPartSize(p.partNumber, bytes.length)));
    expect(put.status).toBe(200);
    expect(put.etag).not.toBe('');
    parts.push({ partNumber: p.partNumber, etag: put.etag });
  }
  return { uploadToken, parts };
}

function probe(file: string): { streams: Array<{ codec_type: string; codec_name: string; sample_rate?: string }>; duration: number } {
  const r = spawnSync('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], { encoding: 'utf8' });
  const j = JSON.parse(r.stdout) as { streams: Array<{ codec_type: string; codec_name: string }>; format: { duration: string } };
  return { streams: j.streams, duration: Number(j.format.duration) };
}

/** The box types at the top of an MP4, in order (fast start: moov before mdat). */
function topBoxes(bytes: Uint8Array): string[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: string[] = [];
  for (let at = 0; at + 8 <= bytes.length && out.length < 20;) {
    const size = view.getUint32(at);
    out.push(new TextDecoder().decode(bytes.subarray(at + 4, at + 8)));
    if (size < 8) break;
    at += size;
  }
  return out;
}

async function counts(s: TestServer) {
  const db = s.banshu.platform.database.db;
  const records = await db
    .selectFrom('records')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  const saved = await db
    .selectFrom('studio_uploads')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('state', '=', 'saved')
    .executeTakeFirstOrThrow();
  return { records: Number(records.n), saved: Number(saved.n) };
}

describe.each(['disk', 's3'] as const)('studio uploads [%s store]', (store) => {
  let s3: TestS3 | null = null;
  let s: TestServer;
  const sockets: RoomSocket[] = [];
  beforeAll(async () => {
    if (store === 's3') s3 = await startS3();
    s = await startTestServer({ env: { ...(s3?.env ?? {}), STUDIO_MAX_MB: '12' }, overrides: { jobs: true, converter: shared } });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await s.close();
    await s3?.close();
  });

  it('sends a take in parts straight to the store, saves it once, and the worker makes a fast-start MP4 with AAC and a poster', async () => {
    const teacher = await signIn(s);
    const library = await connectUser(s.url, teacher.token);
    sockets.push(library);
    const { uploadToken, parts } = await uploadTake(s, teacher.token, take);
    expect(parts).toHaveLength(2);
    if (store === 's3') {
      const again = await call(s.url, 'signUploadParts', { uploadToken, parts: [{ partNumber: 1, size: 10 }] }, { token: teacher.token });
      expect(again.data.parts[0]!.url).toContain(s3!.endpoint);
    }
    // A part sent again (a retry whose answer was lost) replaces itself.
    const resign = await call(
      s.url,
      'signUploadParts',
      { uploadToken, parts: [{ partNumber: 2, size: studioPartSize(2, take.length) }] },
      { token: teacher.token },
    );
    const second = resign.data.parts[0] as { url: string; headers: Record<string, string> };
    const resent = await putPart(second.url, second.headers, take.subarray(STUDIO_PART_BYTES));
    expect(resent.status).toBe(200);
    parts[1] = { partNumber: 2, etag: resent.etag };

    const ready = waitFor(library, 'studioRecord', (p) => p.state === 'ready', 60_000);
    const body = { fileName: '  第一课 Lesson 1 ', fileUrl: uploadToken, parts, durationMs: TAKE_SECONDS * 1000 };
    // A double submit: two saves at once, and one more after; one record.
    const [a, b] = await Promise.all([
      call(s.url, 'addlocalRecordFile', body, { token: teacher.token }),
      call(s.url, 'addlocalRecordFile', body, { token: teacher.token }),
    ]);
    expect(a.code).toBe('0');
    expect(b.code).toBe('0');
    expect(b.data.fileId).toBe(a.data.fileId);
    const c = await call(s.url, 'addlocalRecordFile', body, { token: teacher.token });
    expect(c.data.fileId).toBe(a.data.fileId);
    const fileId = a.data.fileId;
    expect((await counts(s)).saved).toBe(1);

    // Listed at once in the studio tab, 'transcoding' (no size) until the MP4 is made.
    const listed = await call(s.url, 'getRecordList', { recordType: 1 }, { token: teacher.token });
    expect(listed.data.recordList).toHaveLength(1);
    expect(listed.data.recordList[0]).toMatchObject({ fileId, fileName: '第一课 Lesson 1', type: 1 });
    const event = await ready;
    expect(event).toMatchObject({ fileId, state: 'ready' });
    const made = await call(s.url, 'getRecordList', { recordType: 1 }, { token: teacher.token });
    expect(made.data.recordList[0]!.fileSize).toBe(event.fileSize);
    expect(Number(event.fileSize)).toBeGreaterThan(1000);
    expect(made.data.recordList[0]!.durationMs).toBeGreaterThan(TAKE_SECONDS * 1000 - 300);
    expect(made.data.recordList[0]!.durationMs).toBeLessThan(TAKE_SECONDS * 1000 + 300);

    const urls = await call(s.url, 'getRecordFileUrl', { fileId }, { token: teacher.token });
    expect(urls.code).toBe('0');
    const mp4 = new Uint8Array(await (await fetch(new URL(urls.data.fileUrl, s.url))).arrayBuffer());
    expect(mp4.length).toBe(Number(event.fileSize));
    const boxes = topBoxes(mp4);
    expect(boxes.indexOf('moov')).toBeGreaterThanOrEqual(0);
    expect(boxes.indexOf('moov')).toBeLessThan(boxes.indexOf('mdat'));
    const out = path.join(dir, `${store}-made.mp4`);
    await writeFile(out, mp4);
    const info = probe(out);
    expect(info.streams.find((x) => x.codec_type === 'video')?.codec_name).toBe('h264');
    expect(info.streams.find((x) => x.codec_type === 'audio')).toMatchObject({ codec_name: 'aac', sample_rate: '48000' });
    expect(info.duration).toBeGreaterThan(TAKE_SECONDS - 0.3);
    const poster = await fetch(new URL(urls.data.posterUrl as string, s.url));
    expect(poster.status).toBe(200);
    expect([...new Uint8Array(await poster.arrayBuffer()).subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);

    // Another user reaches none of it.
    const other = await signIn(s);
    expect((await call(s.url, 'getRecordList', { recordType: 1 }, { token: other.token })).data.recordList).toEqual([]);
    for (const name of ['getRecordFileUrl', 'delRecord', 'createRecordShareLink'] as const) {
      expect((await call(s.url, name, { fileId }, { token: other.token })).code, name).toBe('37001');
    }
    expect((await call(s.url, 'addlocalRecordFile', body, { token: other.token })).code).toBe('39001');

    // The owner deletes it: the row and its objects go.
    const objects = s.banshu.platform.objects;
    const row = await s.banshu.platform.database.db
      .selectFrom('records')
      .select(['object_key', 'poster_key', 'source_key'])
      .where('id', '=', fileId)
      .executeTakeFirstOrThrow();
    expect(row.source_key).toBeNull();
    expect(await objects.head(row.object_key!)).not.toBeNull();
    expect((await call(s.url, 'delRecord', { fileId }, { token: teacher.token })).code).toBe('0');
    expect(await objects.head(row.object_key!)).toBeNull();
    expect(await objects.head(row.poster_key!)).toBeNull();
    expect((await call(s.url, 'getRecordList', { recordType: 1 }, { token: teacher.token })).data.recordList).toEqual([]);
  }, 120_000);

  it('refuses what does not make the take, and writes nothing', async () => {
    const teacher = await signIn(s);
    const other = await signIn(s);
    const before = await counts(s);
    const { uploadToken, parts } = await uploadTake(s, teacher.token, take);
    const body = { fileName: 'lesson', fileUrl: uploadToken, parts };
    // Another user's upload is answered like a missing one.
    expect((await call(s.url, 'signUploadParts', { uploadToken, parts: [{ partNumber: 1, size: 5 }] }, { token: other.token })).code).toBe(
      '39001',
    );
    expect((await call(s.url, 'abortUpload', { uploadToken }, { token: other.token })).code).toBe('39001');
    // The name: trimmed empty, or 16 characters.
    expect((await call(s.url, 'addlocalRecordFile', { ...body, fileName: '   ' }, { token: teacher.token })).code).toBe('39003');
    expect(
      (await call(s.url, 'addlocalRecordFile', { ...body, fileName: '一二三四五六七八九十abcdef' }, { token: teacher.token })).code,
    ).toBe('39004');
    // Parts: one missing, one out of order twice, an ETag that is not the stored part's.
    expect((await call(s.url, 'addlocalRecordFile', { ...body, parts: [parts[1]] }, { token: teacher.token })).code).toBe('39005');
    expect((await call(s.url, 'addlocalRecordFile', { ...body, parts: [parts[0], parts[0]] }, { token: teacher.token })).code).toBe(
      '39005',
    );
    // (s3rver joins whatever ETags it is given; S3 itself answers InvalidPart, which the adapter turns into a refusal.)
    if (store === 'disk') {
      const altered = [parts[0]!, { partNumber: 2, etag: '"0123456789abcdef0123456789abcdef"' }];
      expect((await call(s.url, 'addlocalRecordFile', { ...body, parts: altered }, { token: teacher.token })).code).toBe('39005');
    }
    // Past the operator's limit (STUDIO_MAX_MB 12 here): part 3 would end at 15 MiB.
    expect(
      (await call(s.url, 'signUploadParts', { uploadToken, parts: [{ partNumber: 3, size: STUDIO_PART_BYTES }] }, { token: teacher.token }))
        .code,
    ).toBe('39002');
    expect(await counts(s)).toEqual(before);
    // After all that the upload is still whole and open: it saves.
    const saved = await call(s.url, 'addlocalRecordFile', body, { token: teacher.token });
    expect(saved.code).toBe('0');
    // Saved: no more parts, no drop.
    expect(
      (await call(s.url, 'signUploadParts', { uploadToken, parts: [{ partNumber: 1, size: 5 }] }, { token: teacher.token })).code,
    ).toBe('39001');
    expect((await call(s.url, 'abortUpload', { uploadToken }, { token: teacher.token })).code).toBe('39001');
  }, 120_000);

  it('drops an upload the teacher will not save, and one left past its life', async () => {
    const teacher = await signIn(s);
    const opened = await call(s.url, 'createUploadToken', {}, { token: teacher.token });
    expect(opened.code).toBe('0');
    const uploadToken = opened.data.uploadToken;
    const signed = await call(s.url, 'signUploadParts', { uploadToken, parts: [{ partNumber: 1, size: 1000 }] }, { token: teacher.token });
    const p = signed.data.parts[0] as { url: string; headers: Record<string, string> };
    expect((await putPart(p.url, p.headers, take.subarray(0, 1000))).status).toBe(200);
    expect((await call(s.url, 'abortUpload', { uploadToken }, { token: teacher.token })).code).toBe('0');
    expect(
      (await call(s.url, 'signUploadParts', { uploadToken, parts: [{ partNumber: 1, size: 5 }] }, { token: teacher.token })).code,
    ).toBe('39001');
    // The disk store refuses a part of a dropped upload even on a link still valid.
    if (store === 'disk') expect((await putPart(p.url, p.headers, take.subarray(0, 1000))).status).toBe(410);

    const left = await call(s.url, 'createUploadToken', { mediaType: 'video/webm' }, { token: teacher.token });
    const hours = s.banshu.platform.config.STUDIO_UPLOAD_HOURS;
    s.clock.advance(hours * 3_600_000 + 1000);
    expect(
      (
        await call(
          s.url,
          'signUploadParts',
          { uploadToken: left.data.uploadToken, parts: [{ partNumber: 1, size: 5 }] },
          { token: teacher.token },
        )
      ).code,
    ).toBe('39001');
    expect(await s.banshu.platform.services.studio.purgeExpired()).toBeGreaterThanOrEqual(1);
    const row = await s.banshu.platform.database.db
      .selectFrom('studio_uploads')
      .select('state')
      .where('token', '=', left.data.uploadToken)
      .executeTakeFirstOrThrow();
    expect(row.state).toBe('aborted');
  });
});

describe('studio rules [disk store]', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ env: { STUDIO_UPLOADS_PER_HOUR: '3' }, overrides: { jobs: true, converter: shared } });
  });
  afterAll(async () => {
    await s.close();
  });

  it('opens uploads for signed-in teachers only, a few an hour', async () => {
    expect((await call(s.url, 'createUploadToken', {})).code).toBe('7');
    const { token } = await signIn(s);
    const room = await call(s.url, 'createRoom', { roomType: 2 }, { token });
    const visitor = await call(s.url, 'touristJoinRoom', { roomNumber: room.data.roomInfo.roomNumber, userName: 'Ann' });
    expect((await call(s.url, 'createUploadToken', {}, { token: visitor.data.userInfo!.userToken })).code).toBe('31004');
    for (let i = 0; i < 3; i++) expect((await call(s.url, 'createUploadToken', {}, { token })).code).toBe('0');
    expect((await call(s.url, 'createUploadToken', {}, { token })).code).toBe('39006');
  });

  it('makes a WebM take (Firefox records one) into an H.264 + AAC MP4', async () => {
    const file = path.join(dir, 'take.webm');
    const webm = await browserTake(file, { seconds: 3, mbps: 1, container: 'webm', size: '640x360' });
    const teacher = await signIn(s);
    const { uploadToken, parts } = await uploadTake(s, teacher.token, webm, 'video/webm');
    const saved = await call(s.url, 'addlocalRecordFile', { fileName: 'firefox', fileUrl: uploadToken, parts }, { token: teacher.token });
    expect(saved.code).toBe('0');
    let fileUrl = '';
    await until(
      'the WebM take made into an MP4',
      async () => {
        const r = await call(s.url, 'getRecordFileUrl', { fileId: saved.data.fileId }, { token: teacher.token });
        fileUrl = r.code === '0' ? r.data.fileUrl : '';
        return fileUrl !== '';
      },
      60_000,
    );
    const out = path.join(dir, 'from-webm.mp4');
    await writeFile(out, new Uint8Array(await (await fetch(new URL(fileUrl, s.url))).arrayBuffer()));
    const info = probe(out);
    expect(info.streams.find((x) => x.codec_type === 'video')?.codec_name).toBe('h264');
    expect(info.streams.find((x) => x.codec_type === 'audio')?.codec_name).toBe('aac');
    expect(info.duration).toBeGreaterThan(2.7);
  }, 90_000);

  it('makes a saved take whose job was lost when a worker starts', async () => {
    const { userId } = await signIn(s);
    const objects = s.banshu.platform.objects;
    const key = `studio/${userId}/${'r'.repeat(32)}/source.mp4`;
    await objects.put(key, take, 'video/mp4');
    const rec = await s.banshu.platform.database.db
      .insertInto('records')
      .values({ user_id: userId, type: 1, file_name: 'lost job', source_key: key, created_at: new Date() })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(await s.banshu.platform.services.studio.resumeInterrupted(s.banshu.platform.jobs!)).toBeGreaterThanOrEqual(1);
    await until(
      'the lost take made into an MP4',
      async () => {
        const r = await s.banshu.platform.database.db
          .selectFrom('records')
          .select('object_key')
          .where('id', '=', rec.id)
          .executeTakeFirstOrThrow();
        // Made: the record points at the MP4 in the store, and the upload is gone from it.
        return r.object_key !== null && (await objects.head(r.object_key)) !== null && (await objects.head(key)) === null;
      },
      60_000,
    );
  }, 90_000);
});
