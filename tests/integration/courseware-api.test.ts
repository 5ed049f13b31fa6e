/**
 * Courseware on the server (docs/product/03-board-courseware-billing.md §2.1, §3, §4, §7; ADRs 040-044), on both database engines:
 * every /api call and its rules and codes, uploads checked by content and hash, the hash reuse
 * (no second upload, no second conversion), cancel, delete, other people's documents and rooms,
 * the room channel's paging and video control, and the whole flow upload -> registration -> job
 * -> pages -> events through a real converter, on the disk store and on S3 (s3rver).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BusMessage } from '#core/platform/events.ts';
import { call, signIn } from '#tests/support/api.ts';
import { answerChallenge, makePdf, md5, sharedConverter, testConverter, uploadCourseware } from '#tests/support/courseware.ts';
import { testMp4 } from '../fixtures/courseware.ts';
import { slideLayer } from '#core/contracts/courseware.ts';
import { connectBoard, createOp } from '#tests/support/board-client.ts';
import { eachEngine } from '#tests/support/engines-matrix.ts';
import { ask, connectRoom, connectUser, rawAsk, record, waitFor, type RoomSocket } from '#tests/support/room-client.ts';
import { startS3, type TestS3 } from '#tests/support/s3.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';
import { until } from '#tests/support/until.ts';

const { converter: real } = await testConverter();
/** Each server closes its converter; the suite's one is closed once at the end. */
const shared = sharedConverter(real);
afterAll(async () => {
  await real.close();
});

const sockets: RoomSocket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

const PDF3 = makePdf(3, { label: 'Deck' });

/** The hash check of these bytes as another user, and the answer to its challenge (ADR 069). */
async function proof(s: TestServer, token: string, bytes: Uint8Array) {
  const check = await call(s.url, 'checkFileHash', { fileHash: md5(bytes) }, { token });
  expect(check.data.challenge).not.toBeNull();
  return answerChallenge(check.data.challenge!, bytes);
}

async function jobsQueued(s: TestServer): Promise<number> {
  const r = await sql<{ n: string }>`select count(*) as n from pgboss.job where name = 'courseware.convert'`.execute(
    s.banshu.platform.database.db,
  );
  return Number(r.rows[0]!.n);
}

function busLog(s: TestServer): BusMessage[] {
  const seen: BusMessage[] = [];
  s.banshu.platform.events.subscribe((m) => seen.push(m));
  return seen;
}

async function docRow(s: TestServer, id: string) {
  return s.banshu.platform.database.db.selectFrom('documents').selectAll().where('id', '=', id).executeTakeFirst();
}

async function converted(s: TestServer, id: string) {
  return until(
    'conversion',
    () => docRow(s, id),
    (r) => !!r && r.status !== 1,
    20_000,
  );
}

async function room(s: TestServer, students = 1) {
  const teacher = await signIn(s);
  const created = await call(s.url, 'createRoom', { roomType: 2 }, { token: teacher.token });
  const roomNumber = created.data.roomInfo.roomNumber;
  const people = [];
  for (const who of [teacher, ...(await Promise.all(Array.from({ length: students }, () => signIn(s))))]) {
    const joined = await call(s.url, 'userJoinAgoraRoom', { roomNumber }, { token: who.token });
    expect(joined.code).toBe('0');
    const socket = await connectRoom(s.url, joined.data.imToken);
    sockets.push(socket);
    const snap = await ask(socket, 'joinRoom', {});
    expect(snap.code).toBe('0');
    people.push({ ...who, socket, joined: joined.data, snapshot: snap.data });
  }
  const [t, ...rest] = people;
  return { roomNumber, teacher: t!, students: rest };
}

eachEngine(
  'courseware /api',
  (server) => {
    it('answers the resource type and signs uploads by type and size, with keys of the spec', async () => {
      const s = server();
      const { teacher, students, roomNumber } = await room(s);
      const token = teacher.token;
      expect((await call(s.url, 'getResourceType', {}, { token })).data).toEqual({ resourceType: 1 });
      expect((await call(s.url, 'getResourceType', {})).code).toBe('7');
      const hash = md5(PDF3);
      const sign = (body: Record<string, unknown>, t = token) =>
        call(s.url, 'createUpyunSign', { fileName: 'a.pdf', fileSize: 100, fileHash: hash, ...body }, { token: t });
      for (const fileName of ['a.txt', 'a.exe', 'pdf', '.pdf', 'a.pdf.js', 'a', '   .pptx', '\u202e\u200b.pdf']) {
        expect((await sign({ fileName })).code, fileName).toBe('34001');
      }
      expect((await sign({ fileSize: 50_000_001 })).code).toBe('34002');
      expect((await sign({ fileSize: 0 })).code).toBe('34003');
      // Only the room's creator uploads for a room.
      expect((await sign({ roomNumber }, students[0]!.token)).code).toBe('31004');
      expect((await sign({ roomNumber: '000000' })).code).toBe('31002');

      const ok = await sign({ fileName: 'Lesson 1 第一课.PDF', fileSize: 50_000_000, roomNumber });
      expect(ok.code).toBe('0');
      expect(ok.data.saveName).toMatch(/^documentConvert\/\d{4}\/\d{2}\/\d{2}\/[0-9a-f]{32}\/Lesson_1\.pdf$/);
      expect(ok.data).toMatchObject({ method: 'PUT', headers: { 'Content-Type': 'application/pdf' }, resourceType: 1 });
      expect(ok.data.uploadUrl).toContain(`${s.url}/objects/documentConvert/`);
      expect(ok.data.expiresAt - Date.now()).toBeGreaterThan(3500_000);
      const video = await sign({ fileName: '视频.mp4' });
      expect(video.data.saveName).toMatch(/^documentConvert\/videos\/\d{4}\/\d{2}\/\d{2}\/[0-9a-f]{32}\/file\.mp4$/);
      expect(video.data.headers).toEqual({ 'Content-Type': 'video/mp4' });
      // Odd Unicode names: shown cleaned (no direction overrides, zero-width or control characters), keyed in ASCII.
      const odd = await sign({ fileName: '\u202eevil\u200b\u0000 课件\ud800.pptx' });
      expect(odd.code).toBe('0');
      expect(odd.data.saveName).toMatch(/\/evil\.pptx$/);
      const row = await s.banshu.platform.database.db
        .selectFrom('documents')
        .select(['name', 'status'])
        .where('source_key', '=', odd.data.saveName)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ name: 'evil 课件.pptx', status: 0 });
      // Signed but not registered: not in the library.
      expect((await call(s.url, 'getMyDocumentList', {}, { token })).data).toEqual({ documentList: [], total: 0 });
    });

    it('registers an upload only when it is there, whole, of the claimed hash and courseware by content', async () => {
      const s = server();
      const { token } = await signIn(s);
      const objects = s.banshu.platform.objects;
      const register = (saveName: string, hash: string, documentName = 'a.pdf', documentType = 1) =>
        call(s.url, 'addRoomDocument', { documentSource: saveName, documentName, fileHash: hash, documentType }, { token });
      const sign = async (fileName: string, bytes: Uint8Array, hash = md5(bytes)) =>
        (await call(s.url, 'createUpyunSign', { fileName, fileSize: bytes.byteLength, fileHash: hash }, { token })).data as {
          saveName: string;
          uploadUrl: string;
          headers: Record<string, string>;
        };

      // Nothing uploaded.
      const missing = await sign('a.pdf', PDF3);
      expect((await register(missing.saveName, md5(PDF3))).code).toBe('34004');
      // Not the signed size (written behind the signed link's back).
      const short = await sign('a.pdf', PDF3);
      await objects.put(short.saveName, PDF3.subarray(0, 100), 'application/pdf');
      expect((await register(short.saveName, md5(PDF3))).code).toBe('34004');
      // Other bytes than the hash claimed: refused and forgotten.
      const other = makePdf(3, { label: 'Kced' });
      expect(other.byteLength).toBe(PDF3.byteLength);
      const forged = await sign('a.pdf', other, md5(PDF3));
      expect((await fetch(forged.uploadUrl, { method: 'PUT', headers: forged.headers, body: new Uint8Array(other) })).status).toBe(200);
      expect((await register(forged.saveName, md5(PDF3))).code).toBe('34005');
      expect(await objects.head(forged.saveName)).toBeNull();
      expect((await register(forged.saveName, md5(PDF3))).code).toBe('34004');
      // A text file named .pptx, and a PDF named .docx: refused by content.
      for (const [name, bytes] of [
        ['slides.pptx', Buffer.from('just some text, not a presentation at all')],
        ['letter.docx', makePdf(1)],
        ['clip.mp4', makePdf(1)],
      ] as const) {
        const signed = await sign(name, bytes);
        expect((await fetch(signed.uploadUrl, { method: 'PUT', headers: signed.headers, body: new Uint8Array(bytes) })).status).toBe(200);
        const type = name.endsWith('.mp4') ? 3 : 1;
        expect((await register(signed.saveName, md5(bytes), name, type)).code, name).toBe('34003');
        expect(await objects.head(signed.saveName)).toBeNull();
      }
      // The claimed type must be the signed one.
      const typed = await sign('a.pdf', PDF3);
      expect((await register(typed.saveName, md5(PDF3), 'a.pdf', 3)).code).toBe('34005');
      expect(await jobsQueued(s)).toBe(0);
      expect(await s.banshu.platform.database.db.selectFrom('documents').select('id').where('status', '!=', 0).execute()).toEqual([]);
    });

    it('converts once per file: the same bytes again (same user or another) reuse it with no upload and no second job', async () => {
      const s = server();
      const events = busLog(s);
      const { teacher, students, roomNumber } = await room(s);
      const first = await uploadCourseware(s.url, teacher.token, PDF3, '第一课.pdf', { roomNumber });
      expect(first.put).toBe(200);
      expect(first.add.code).toBe('0');
      expect(first.add.data).toMatchObject({
        documentStatus: 1,
        courseware: { documentName: '第一课.pdf', documentType: 1, status: 1, pptCurrentPage: 1 },
      });
      const documentId = first.add.data.documentId;
      expect(events.find((e) => e.event === 'addDocumentConvertEvent')).toMatchObject({
        target: { user: teacher.userId },
        payload: { document: { documentId, status: 1 } },
      });
      expect(await jobsQueued(s)).toBe(1);
      const done = await converted(s, documentId);
      expect(done).toMatchObject({ status: 3, page_count: 3, fail_reason: '' });

      // The same user: the hash check finds it, registering it again is the same document.
      const check = await call(s.url, 'checkFileHash', { fileHash: first.hash.toUpperCase() }, { token: teacher.token });
      expect(check.data).toMatchObject({
        fileExist: true,
        documentInfo: { documentId, status: 3, pageCount: 3, documentName: '第一课.pdf' },
      });
      const again = await call(
        s.url,
        'addRoomDocument',
        { documentSource: '', documentName: 'x.pdf', fileHash: first.hash, documentType: 1 },
        { token: teacher.token },
      );
      expect(again.data).toMatchObject({ documentId, documentStatus: 3, courseware: null });

      // Another user: told it exists (nothing of the other's document), registers without upload
      // with the answer to the challenge (ADR 069; tests/integration/courseware-proof.test.ts).
      const other = students[0]!;
      const theirCheck = await call(s.url, 'checkFileHash', { fileHash: first.hash }, { token: other.token });
      expect(theirCheck.data).toMatchObject({ fileExist: true, documentInfo: null });
      const reuse = await call(
        s.url,
        'addRoomDocument',
        {
          documentSource: '',
          documentName: '复习.pdf',
          fileHash: first.hash,
          documentType: '1',
          ...answerChallenge(theirCheck.data.challenge!, PDF3),
        },
        { token: other.token },
      );
      expect(reuse.code).toBe('0');
      expect(reuse.data.documentId).not.toBe(documentId);
      expect(reuse.data.documentStatus).toBe(3);
      const theirs = await call(s.url, 'getMyDocumentList', {}, { token: other.token });
      expect(theirs.data.documentList).toMatchObject([{ documentName: '复习.pdf', status: 3, pageCount: 3, size: PDF3.byteLength }]);
      // Even an upload of the same bytes is not converted again.
      const uploadedAgain = await uploadCourseware(s.url, other.token, PDF3, 'copy.pdf');
      expect(uploadedAgain.add.data.documentStatus).toBe(3);
      expect(await jobsQueued(s)).toBe(1);
      // An unknown hash with no upload is refused.
      const unknown = await call(
        s.url,
        'addRoomDocument',
        { documentSource: '', documentName: 'x.pdf', fileHash: 'f'.repeat(32), documentType: 1 },
        { token: other.token },
      );
      expect(unknown.code).toBe('34004');
      expect((await call(s.url, 'checkFileHash', { fileHash: 'f'.repeat(32) }, { token: other.token })).data).toEqual({
        fileExist: false,
        documentInfo: null,
        challenge: null,
      });
    });

    it('registers an upload once, even when the browser sends the registration twice at the same time', async () => {
      const s = server();
      const { token } = await signIn(s);
      const hash = md5(PDF3);
      const signed = await call(s.url, 'createUpyunSign', { fileName: 'twice.pdf', fileSize: PDF3.byteLength, fileHash: hash }, { token });
      expect((await fetch(signed.data.uploadUrl, { method: 'PUT', headers: signed.data.headers, body: new Uint8Array(PDF3) })).status).toBe(
        200,
      );
      const body = { documentSource: signed.data.saveName, documentName: 'twice.pdf', fileHash: hash, documentType: 1 };
      const [a, b] = await Promise.all([call(s.url, 'addRoomDocument', body, { token }), call(s.url, 'addRoomDocument', body, { token })]);
      expect([a.code, b.code]).toEqual(['0', '0']);
      expect(a.data.documentId).toBe(b.data.documentId);
      expect(await jobsQueued(s)).toBe(1);
      expect((await call(s.url, 'getMyDocumentList', {}, { token })).data.total).toBe(1);
    });

    it('cancels a pending upload: forgotten, then not registrable; another user cannot cancel it', async () => {
      const s = server();
      const { teacher, students, roomNumber } = await room(s);
      const hash = md5(PDF3);
      const signed = await call(
        s.url,
        'createUpyunSign',
        { fileName: 'a.pdf', fileSize: PDF3.byteLength, fileHash: hash, roomNumber },
        { token: teacher.token },
      );
      const half = await fetch(signed.data.uploadUrl, { method: 'PUT', headers: signed.data.headers, body: new Uint8Array(PDF3) });
      expect(half.status).toBe(200);
      const body = { roomNumber, documentSource: signed.data.saveName };
      expect((await call(s.url, 'updateDocumentNotice', body, { token: students[0]!.token })).code).toBe('34006');
      expect((await call(s.url, 'updateDocumentNotice', { roomNumber }, { token: teacher.token })).code).toBe('5');
      expect((await call(s.url, 'updateDocumentNotice', body, { token: teacher.token })).code).toBe('0');
      expect(await s.banshu.platform.objects.head(signed.data.saveName)).toBeNull();
      expect((await call(s.url, 'updateDocumentNotice', body, { token: teacher.token })).code).toBe('34006');
      const late = await call(
        s.url,
        'addRoomDocument',
        { documentSource: signed.data.saveName, documentName: 'a.pdf', fileHash: hash, documentType: 1, roomNumber },
        { token: teacher.token },
      );
      expect(late.code).toBe('34004');
      expect(await jobsQueued(s)).toBe(0);
      // Registered a moment before the cancel: the cancel by task id is a no-op.
      const up = await uploadCourseware(s.url, teacher.token, PDF3, 'b.pdf');
      expect((await call(s.url, 'updateDocumentNotice', { roomNumber, taskId: up.add.data.taskId }, { token: teacher.token })).code).toBe(
        '0',
      );
      expect(
        (await call(s.url, 'updateDocumentNotice', { roomNumber, taskId: up.add.data.taskId }, { token: students[0]!.token })).code,
      ).toBe('34006');
    });

    it('lists the library 10 a page, newest first; deletes finished or failed own documents only, keeping shared files', async () => {
      const s = server();
      const a = await signIn(s);
      const b = await signIn(s);
      const objects = s.banshu.platform.objects;
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) {
        const up = await uploadCourseware(s.url, a.token, makePdf(1, { label: `Doc ${i}` }), `doc-${i}.pdf`);
        expect(up.add.code).toBe('0');
        ids.push(up.add.data.documentId);
        s.clock.advance(1000);
      }
      const page1 = await call(s.url, 'getMyDocumentList', { pageNo: 1, pageSize: 10 }, { token: a.token });
      expect(page1.data.total).toBe(12);
      expect(page1.data.documentList.map((d: { documentName: string }) => d.documentName)).toEqual(
        Array.from({ length: 10 }, (_, i) => `doc-${11 - i}.pdf`),
      );
      const page2 = await call(s.url, 'getMyDocumentList', { pageNo: '2' }, { form: true, token: a.token });
      expect(page2.data.documentList.map((d: { documentName: string }) => d.documentName)).toEqual(['doc-1.pdf', 'doc-0.pdf']);
      expect((await call(s.url, 'getMyDocumentList', {}, { token: b.token })).data.total).toBe(0);

      // Still converting (status 1): not deletable yet.
      const pending = await uploadCourseware(s.url, a.token, makePdf(2, { label: 'Busy' }), 'busy.pdf');
      await s.banshu.platform.database.db
        .updateTable('documents')
        .set({ status: 1 })
        .where('id', '=', pending.add.data.documentId)
        .execute();
      expect(
        (
          await call(
            s.url,
            'delUserDocument',
            { taskId: pending.add.data.taskId, documentId: pending.add.data.documentId },
            { token: a.token },
          )
        ).code,
      ).toBe('34007');

      // Shared: a converted file reused by b stays until both delete it.
      const shared = await uploadCourseware(s.url, a.token, PDF3, 'shared.pdf');
      const doc = await converted(s, shared.add.data.documentId);
      expect(doc!.status).toBe(3);
      const bReuse = await call(
        s.url,
        'addRoomDocument',
        { documentSource: '', documentName: 'mine.pdf', fileHash: shared.hash, documentType: 1, ...(await proof(s, b.token, PDF3)) },
        { token: b.token },
      );
      const keys = [doc!.source_key, `${doc!.pages_prefix}/pages/1.jpg`, `${doc!.pages_prefix}/thumbs/3.jpg`];
      for (const k of keys) expect(await objects.head(k), k).not.toBeNull();
      // Someone else's document, or a task id that is not this document's: not found.
      expect(
        (
          await call(
            s.url,
            'delUserDocument',
            { taskId: shared.add.data.taskId, documentId: shared.add.data.documentId },
            { token: b.token },
          )
        ).code,
      ).toBe('34006');
      expect(
        (await call(s.url, 'delUserDocument', { taskId: bReuse.data.taskId, documentId: shared.add.data.documentId }, { token: a.token }))
          .code,
      ).toBe('34006');
      expect(
        (await call(s.url, 'delUserDocument', { taskId: shared.add.data.taskId, documentId: '999999999' }, { token: a.token })).code,
      ).toBe('34006');
      expect(
        (
          await call(
            s.url,
            'delUserDocument',
            { taskId: shared.add.data.taskId, documentId: shared.add.data.documentId },
            { token: a.token },
          )
        ).code,
      ).toBe('0');
      for (const k of keys) expect(await objects.head(k), k).not.toBeNull();
      expect(
        (await call(s.url, 'delUserDocument', { taskId: bReuse.data.taskId, documentId: bReuse.data.documentId }, { token: b.token })).code,
      ).toBe('0');
      for (const k of keys) expect(await objects.head(k), k).toBeNull();
      expect((await call(s.url, 'getMyDocumentList', {}, { token: b.token })).data.total).toBe(0);
    });

    it('opens, shows and closes courseware in rooms: creator only, own converted documents only; downloads are own', async () => {
      const s = server();
      const { teacher, students, roomNumber } = await room(s, 1);
      const student = students[0]!;
      const up = await uploadCourseware(s.url, teacher.token, PDF3, 'deck.pdf');
      const documentId = up.add.data.documentId;
      const open = (token: string, body: Record<string, unknown> = { documentId, roomNumber }) =>
        call(s.url, 'analysisDocumentExisting', body, { token });
      expect((await converted(s, documentId))!.status).toBe(3);
      // Not converted (yet, or failed): not opened.
      const db = s.banshu.platform.database.db;
      for (const status of [1, 2, 4]) {
        await db.updateTable('documents').set({ status }).where('id', '=', documentId).execute();
        expect((await open(teacher.token)).code, String(status)).toBe('34008');
      }
      await db.updateTable('documents').set({ status: 3 }).where('id', '=', documentId).execute();
      const shownToStudent = waitFor(student.socket, 'courseware', (p) => p.courseware.documentId === documentId);
      expect((await open(student.token)).code).toBe('31004'); // not the student's room
      const theirRoom = await call(s.url, 'createRoom', { roomType: 2 }, { token: student.token });
      const theirNumber = theirRoom.data.roomInfo.roomNumber;
      expect((await open(student.token, { documentId, roomNumber: theirNumber })).code).toBe('34006'); // not the student's document
      expect((await open(teacher.token, { documentId, roomNumber: theirNumber })).code).toBe('31004');
      const opened = await open(teacher.token);
      expect(opened.code).toBe('0');
      expect(opened.data.courseware).toMatchObject({
        documentId,
        documentType: 1,
        resourceType: 1,
        pptCurrentPage: 1,
        pptTotalPage: 3,
        status: 3,
        videoUrl: '',
      });
      expect(opened.data.courseware.images).toHaveLength(3);
      expect(opened.data.courseware.sizes[0]!.width).toBe(1280);
      const image = await fetch(opened.data.courseware.images[0]!);
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toBe('image/jpeg');
      expect((await shownToStudent).by).toBe(teacher.userId);
      // Opening it turns the room to the document view, for the student too.
      expect((await call(s.url, 'getRoomInfoByRoomNumber', { roomNumber }, { token: student.token })).data.roomInfo.showState).toBe('ppt');

      // Anyone in the room reads it; someone outside may not.
      expect((await call(s.url, 'getRoomCourseware', { roomNumber }, { token: student.token })).data.courseware.documentId).toBe(
        documentId,
      );
      const outsider = await signIn(s);
      expect((await call(s.url, 'getRoomCourseware', { roomNumber }, { token: outsider.token })).code).toBe('31004');
      // A late joiner has it in the join answer and in the room snapshot.
      const late = await signIn(s);
      const joined = await call(s.url, 'userJoinAgoraRoom', { roomNumber }, { token: late.token });
      expect(joined.data.courseware).toMatchObject({ documentId, pptTotalPage: 3 });
      const socket = await connectRoom(s.url, joined.data.imToken);
      sockets.push(socket);
      expect((await ask(socket, 'joinRoom')).data.courseware).toMatchObject({ documentId, pptCurrentPage: 1 });

      // Downloads: own documents only.
      const dl = await call(s.url, 'getDocumentDownloadUrl', { documentId }, { token: teacher.token });
      expect(Buffer.from(await (await fetch(dl.data.url)).arrayBuffer()).equals(PDF3)).toBe(true);
      expect((await call(s.url, 'getDocumentDownloadUrl', { documentId }, { token: student.token })).code).toBe('34006');

      // Closing: the creator only; everyone sees it closed (type 0, page 1 of 1).
      expect((await call(s.url, 'closeRoomDocument', { roomNumber }, { token: student.token })).code).toBe('31004');
      const closedForStudent = waitFor(student.socket, 'courseware', (p) => p.courseware.documentId === '');
      expect((await call(s.url, 'closeRoomDocument', { roomNumber }, { token: teacher.token })).code).toBe('0');
      expect((await closedForStudent).courseware).toMatchObject({ documentType: 0, images: [], pptCurrentPage: 1, pptTotalPage: 1 });
      expect((await call(s.url, 'getRoomCourseware', { roomNumber }, { token: student.token })).data.courseware.documentId).toBe('');
    });

    it('pages and scrolls on the room channel: the creator only, within the pages, in steps of 0.1 to 1.8', async () => {
      const s = server();
      const { teacher, students, roomNumber } = await room(s, 1);
      const student = students[0]!;
      expect((await ask(teacher.socket, 'setCoursewarePage', { page: 1 })).code).toBe('34009');
      const up = await uploadCourseware(s.url, teacher.token, makePdf(3, { portrait: true }), 'tall.pdf', { roomNumber });
      await converted(s, up.add.data.documentId);
      expect((await ask(student.socket, 'setCoursewarePage', { page: 2 })).code).toBe('31004');
      for (const bad of [{ page: 0 }, { page: 4 }, { page: 2, scroll: 1.9 }, { page: 2, scroll: 0.35 }, { page: 2, scroll: -0.1 }]) {
        expect((await ask(teacher.socket, 'setCoursewarePage', bad)).code, JSON.stringify(bad)).toBe('34010');
      }
      for (const bad of [{ page: '2' }, { page: 1.5 }, {}, { page: 2, scroll: 'x' }, { page: 2, scroll: [1] }]) {
        expect((await rawAsk(teacher.socket, 'setCoursewarePage', bad)).code, JSON.stringify(bad)).toBe('5');
      }
      const seen = waitFor(student.socket, 'courseware', (p) => p.courseware.pptCurrentPage === 3);
      expect((await ask(teacher.socket, 'setCoursewarePage', { page: 3, scroll: 0.3 })).code).toBe('0');
      expect((await seen).courseware).toMatchObject({ pptCurrentPage: 3, scroll: 0.3, pptTotalPage: 3 });
      expect((await ask(teacher.socket, 'setCoursewarePage', { page: 3, scroll: 1.8 })).code).toBe('0');
      // A slide change starts at the top.
      const turned = await ask(teacher.socket, 'setCoursewarePage', { page: 2 });
      expect(turned.data).toMatchObject({ pptCurrentPage: 2, scroll: 0 });
      const info = await call(s.url, 'getRoomInfoByRoomNumber', { roomNumber });
      expect(info.data.roomInfo.pptCurrentPage).toBe(2);
      expect((await call(s.url, 'getRoomCourseware', { roomNumber }, { token: student.token })).data.courseware).toMatchObject({
        pptCurrentPage: 2,
        scroll: 0,
      });
      // Video control needs a video document.
      expect((await ask(teacher.socket, 'videoControl', { type: 'play', currentTime: 0 })).code).toBe('34013');
      // Each slide has its own board layer: ink on slide 2 stays there across page turns.
      const documentId = up.add.data.documentId;
      const wb = await connectBoard(s.url, teacher.joined.wbtoken);
      sockets.push(wb);
      expect((await ask(wb, 'sync', createOp('ink-1', 'ink-1', slideLayer(documentId, 2)))).code).toBe('0');
      expect((await ask(teacher.socket, 'setCoursewarePage', { page: 3 })).code).toBe('0');
      expect((await ask(teacher.socket, 'setCoursewarePage', { page: 2 })).code).toBe('0');
      const layer = await ask(wb, 'getBoard', { page: slideLayer(documentId, 2) });
      expect(layer.data.state?.items.map((i) => i.id)).toEqual(['ink-1']);
      expect((await ask(wb, 'getBoard', { page: slideLayer(documentId, 3) })).data.state?.items).toEqual([]);
      // Slides of a document the room does not show are refused; after closing, this one's too.
      expect((await ask(wb, 'sync', createOp('ink-2', 'ink-2', slideLayer('999999', 1)))).code).toBe('5');
      expect((await call(s.url, 'closeRoomDocument', { roomNumber }, { token: teacher.token })).code).toBe('0');
      expect((await ask(wb, 'sync', createOp('ink-3', 'ink-3', slideLayer(documentId, 2)))).code).toBe('5');
      expect((await ask(wb, 'sync', createOp('ink-4', 'ink-4', 'wb:0'))).code).toBe('0');
    });

    it('video control: the creator only; stamped with server time, kept for a late joiner', async () => {
      const s = server();
      const { teacher, students, roomNumber } = await room(s, 1);
      const student = students[0]!;
      // A video document as the conversion leaves it (the conversion of mp4 is tested with the converter).
      const db = s.banshu.platform.database.db;
      const doc = await db
        .insertInto('documents')
        .values({
          user_id: teacher.userId,
          name: 'clip.mp4',
          source_key: 'documentConvert/videos/2026/11/23/v1/clip.mp4',
          pages_prefix: 'documentConvert/videos/2026/11/23/v1',
          file_hash: 'b'.repeat(32),
          task_id: '22222222-2222-4222-8222-222222222222',
          document_type: 3,
          status: 3,
          size: 1000,
          page_count: 1,
          page_sizes: '[[640,360]]',
          created_at: new Date(),
          updated_at: new Date(),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const opened = await call(s.url, 'analysisDocumentExisting', { documentId: doc.id, roomNumber }, { token: teacher.token });
      expect(opened.data.courseware).toMatchObject({ documentType: 3, pptTotalPage: 1 });
      expect(opened.data.courseware.videoUrl).toContain('/video.mp4');
      expect((await ask(student.socket, 'videoControl', { type: 'play', currentTime: 1 })).code).toBe('31004');
      for (const bad of [
        { type: 'rewind', currentTime: 1 },
        { type: 'play', currentTime: -1 },
        { type: 'play', currentTime: '3' },
        { type: 'play' },
      ]) {
        expect((await rawAsk(teacher.socket, 'videoControl', bad)).code, JSON.stringify(bad)).toBe('5');
      }
      const heard = waitFor(student.socket, 'videoControl');
      const before = s.clock.now().getTime();
      expect((await ask(teacher.socket, 'videoControl', { type: 'play', currentTime: 12.5 })).code).toBe('0');
      expect(await heard).toEqual({ type: 'play', currentTime: 12.5, at: before, by: teacher.userId });
      s.clock.advance(5000);
      expect((await ask(teacher.socket, 'videoControl', { type: 'heartbeat', currentTime: 17.5 })).code).toBe('0');
      const cw = (await call(s.url, 'getRoomCourseware', { roomNumber }, { token: student.token })).data.courseware;
      expect(cw.video).toEqual({ type: 'play', currentTime: 17.5, at: before + 5000 });
      expect((await ask(teacher.socket, 'videoControl', { type: 'pause', currentTime: 18 })).code).toBe('0');
      expect((await call(s.url, 'getRoomCourseware', { roomNumber }, { token: student.token })).data.courseware.video!.type).toBe('pause');
    });
  },
  { overrides: { jobs: true, converter: shared } },
);

eachEngine(
  'courseware upload limit',
  (server) => {
    it('limits signed uploads per user and hour', async () => {
      const s = server();
      const { token } = await signIn(s);
      const sign = () => call(s.url, 'createUpyunSign', { fileName: 'a.pdf', fileSize: 10, fileHash: 'c'.repeat(32) }, { token });
      for (let i = 0; i < 3; i++) expect((await sign()).code).toBe('0');
      expect((await sign()).code).toBe('34011');
      s.clock.advance(3601_000);
      expect((await sign()).code).toBe('0');
    });
  },
  { env: { COURSEWARE_UPLOADS_PER_HOUR: '3' } },
);

/** The whole flow through the real converter, on the disk store and on S3 (s3rver). */
describe.each(['disk', 's3'] as const)('courseware conversion flow [%s store]', (store) => {
  let s3: TestS3 | null = null;
  let s: TestServer;
  beforeAll(async () => {
    if (store === 's3') s3 = await startS3();
    s = await startTestServer({ env: s3?.env ?? {}, overrides: { jobs: true, converter: shared } });
  });
  afterAll(async () => {
    await s.close();
    await s3?.close();
  });

  it('uploads, registers, converts page by page with events to the room and the uploader', async () => {
    const events = busLog(s);
    const { teacher, students, roomNumber } = await room(s, 1);
    const student = students[0]!;
    const progress = record(student.socket, 'documentConvert');
    const finished = waitFor(student.socket, 'documentConvert', (p) => p.phase !== 'progress', 30_000);
    const shown = waitFor(student.socket, 'courseware', (p) => p.courseware.documentId !== '');
    // The uploader's library page listens on the user channel.
    const library = await connectUser(s.url, teacher.token);
    sockets.push(library);
    const added = waitFor(library, 'addDocumentConvertEvent');
    const libraryDone = waitFor(library, 'documentStatus', (p) => p.document.status === 3, 30_000);
    const pdf = makePdf(5, { label: store });
    const up = await uploadCourseware(s.url, teacher.token, pdf, '五页.pdf', { roomNumber });
    expect(up.put).toBe(200);
    expect(up.sign.data.resourceType).toBe(store === 's3' ? 2 : 1);
    if (store === 's3') expect(up.sign.data.uploadUrl).toContain(s3!.endpoint);
    expect(up.add.code).toBe('0');
    const documentId = up.add.data.documentId;
    expect((await shown).courseware).toMatchObject({ documentId, status: 1 });

    const done = await finished;
    expect(done).toMatchObject({
      status: '200',
      phase: 'done',
      documentId,
      taskId: up.add.data.taskId,
      userId: teacher.userId,
      done: 5,
      total: 5,
    });
    expect(done.courseware).toMatchObject({ documentId, status: 3, pptTotalPage: 5, resourceType: store === 's3' ? 2 : 1 });
    // Page by page: the first page showed before the deck was done.
    expect(progress.filter((p) => p.phase === 'progress').map((p) => [p.done, p.courseware.images.length])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
      [4, 4],
      [5, 5],
    ]);
    expect((await added).document).toMatchObject({
      documentId: up.add.data.documentId,
      status: 1,
      documentName: '五页.pdf',
      documentType: 1,
    });
    expect((await libraryDone).document).toMatchObject({ documentId: up.add.data.documentId, status: 3, pageCount: 5 });
    // The uploader's library heard of it: registered, then each status change.
    const userEvents = events.filter((e) => 'user' in e.target && e.target.user === teacher.userId);
    expect(userEvents[0]).toMatchObject({ event: 'addDocumentConvertEvent', payload: { document: { documentId, status: 1 } } });
    expect(userEvents.at(-1)).toMatchObject({ event: 'documentStatus', payload: { document: { documentId, status: 3, pageCount: 5 } } });

    const row = (await docRow(s, documentId))!;
    expect(row).toMatchObject({ status: 3, page_count: 5 });
    const sizes = JSON.parse(row.page_sizes) as number[][];
    expect(sizes).toHaveLength(5);
    for (const [w, h] of sizes) {
      expect(w).toBe(1280);
      expect(Math.abs(h! - Math.round((1280 * 595) / 842))).toBeLessThanOrEqual(2);
    }
    for (let n = 1; n <= 5; n++) {
      expect((await s.banshu.platform.objects.head(`${row.pages_prefix}/pages/${n}.jpg`))?.contentType).toBe('image/jpeg');
      expect((await s.banshu.platform.objects.head(`${row.pages_prefix}/thumbs/${n}.jpg`))?.contentType).toBe('image/jpeg');
    }
    const img = await fetch(done.courseware.images[4]!);
    expect(img.status).toBe(200);
    const bytes = new Uint8Array(await img.arrayBuffer());
    expect([bytes[0], bytes[1], bytes[2]]).toEqual([0xff, 0xd8, 0xff]);

    // A retried job (after a crash) rewrites the same pages: nothing duplicated.
    await s.banshu.platform.database.db.updateTable('documents').set({ status: 1 }).where('id', '=', documentId).execute();
    await s.banshu.platform.services.courseware.runConversion(
      { documentId },
      { id: 'retry', retryCount: 1, retryLimit: 3, signal: new AbortController().signal },
    );
    expect(await docRow(s, documentId)).toMatchObject({ status: 3, page_count: 5, page_sizes: row.page_sizes });
    expect(await s.banshu.platform.objects.head(`${row.pages_prefix}/pages/6.jpg`)).toBeNull();
  });

  it('a conversion that fails before the registration answers still closes the courseware in the room', async () => {
    const { teacher, roomNumber } = await room(s, 1);
    const jobs = s.banshu.platform.jobs!;
    const send = jobs.send.bind(jobs);
    // The conversion runs inside the queueing call, so it ends before the registration answers.
    jobs.send = async (name, payload) => {
      if (name !== 'courseware.convert') return send(name, payload);
      const meta = { id: 'at-once', retryCount: 3, retryLimit: 3, signal: new AbortController().signal };
      await s.banshu.platform.services.courseware.runConversion(payload as { documentId: string }, meta);
      return 'at-once';
    };
    try {
      const broken = Buffer.concat([
        Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 9 0 R >>\n'),
        Buffer.alloc(2048, 0x41),
        Buffer.from('\n%%EOF\n'),
      ]);
      const up = await uploadCourseware(s.url, teacher.token, broken, 'broken.pdf', { roomNumber });
      expect(up.add.code).toBe('0');
      expect([2, 4]).toContain((await docRow(s, up.add.data.documentId))!.status);
      // The room does not go on showing a document whose conversion failed.
      expect((await s.banshu.platform.services.courseware.roomCourseware(roomNumber)).documentId).toBe('');
    } finally {
      jobs.send = send;
    }
  });

  it('keeps the checked bytes: writing to the upload link again after registration changes nothing', async () => {
    const { teacher } = await room(s, 1);
    const other = await signIn(s);
    const pdf = makePdf(2, { label: `kept ${store}` });
    const up = await uploadCourseware(s.url, teacher.token, pdf, 'kept.pdf');
    expect(up.add.code).toBe('0');
    const documentId = up.add.data.documentId;
    const row = (await docRow(s, documentId))!;
    // The row points at a copy no signed link reaches; the uploaded object is gone.
    expect(row.source_key).not.toBe(up.sign.data.saveName);
    expect(await s.banshu.platform.objects.head(up.sign.data.saveName)).toBeNull();
    // The uploader writes other bytes of the same size to the still valid link: S3 takes a
    // second PUT (the disk store refuses it); either way the stored file stays what was checked.
    const forged = new Uint8Array(pdf.byteLength).fill(0x41);
    const again = await fetch(up.sign.data.uploadUrl, {
      method: 'PUT',
      headers: up.sign.data.headers,
      body: forged,
    });
    await again.arrayBuffer();
    expect(again.status).toBe(store === 's3' ? 200 : 410);
    if (store === 's3') {
      // What landed there is deleted by a job due once the link has expired.
      const r = await sql<{
        data: { key: string };
        start_after: Date;
      }>`select data, start_after from pgboss.job where name = 'courseware.dropUpload'`.execute(s.banshu.platform.database.db);
      const job = r.rows.find((j) => j.data.key === up.sign.data.saveName);
      expect(job).toBeDefined();
      expect(new Date(job!.start_after).getTime()).toBeGreaterThan(Date.now() + 3600_000);
      expect(await s.banshu.platform.objects.head(up.sign.data.saveName)).not.toBeNull();
      await s.banshu.platform.services.courseware.dropUpload(up.sign.data.saveName);
      expect(await s.banshu.platform.objects.head(up.sign.data.saveName)).toBeNull();
      // A key a document still uses is never dropped.
      await s.banshu.platform.services.courseware.dropUpload(row.source_key);
      expect(await s.banshu.platform.objects.head(row.source_key)).not.toBeNull();
    }
    // Another teacher reuses the file by its hash and downloads the original: the checked bytes.
    const reused = await call(
      s.url,
      'addRoomDocument',
      { documentSource: '', documentName: 'mine.pdf', fileHash: up.hash, documentType: 1, ...(await proof(s, other.token, pdf)) },
      { token: other.token },
    );
    expect(reused.code).toBe('0');
    const link = await call(s.url, 'getDocumentDownloadUrl', { documentId: reused.data.documentId }, { token: other.token });
    expect(link.code).toBe('0');
    const got = new Uint8Array(await (await fetch(link.data.url)).arrayBuffer());
    expect(md5(got)).toBe(up.hash);
  });

  it('an mp4 becomes video courseware: fast-start copy and poster stored, one page, signed video link', async () => {
    const { teacher, students, roomNumber } = await room(s, 1);
    const dir = await mkdtemp(path.join(tmpdir(), 'cw-video-'));
    try {
      const mp4 = await readFile(await testMp4(path.join(dir, 'clip.mp4'), 2));
      const finished = waitFor(students[0]!.socket, 'documentConvert', (p) => p.phase !== 'progress', 60_000);
      const up = await uploadCourseware(s.url, teacher.token, mp4, '视频课.mp4', { roomNumber, documentType: 3 });
      expect(up.sign.data.saveName).toMatch(/^documentConvert\/videos\//);
      expect(up.add.code).toBe('0');
      const done = await finished;
      expect(done).toMatchObject({ phase: 'done', done: 1, total: 1, courseware: { documentType: 3, status: 3, pptTotalPage: 1 } });
      expect(done.courseware.images).toHaveLength(1);
      expect(done.courseware.sizes[0]).toMatchObject({ width: 320, height: 240 });
      const video = await fetch(done.courseware.videoUrl);
      expect(video.status).toBe(200);
      const bytes = Buffer.from(await video.arrayBuffer());
      // Fast start: the moov box comes before the media data.
      expect(bytes.indexOf('moov')).toBeGreaterThan(0);
      expect(bytes.indexOf('moov')).toBeLessThan(bytes.indexOf('mdat'));
      const poster = new Uint8Array(await (await fetch(done.courseware.images[0]!)).arrayBuffer());
      expect([poster[0], poster[1]]).toEqual([0xff, 0xd8]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a file that cannot be converted ends with status 4 and its reason; the room hears it failed and the courseware closes', async () => {
    const { teacher, students, roomNumber } = await room(s, 1);
    const failed = waitFor(students[0]!.socket, 'documentConvert', (p) => p.phase === 'failed', 30_000);
    const broken = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(2000, 0x41), Buffer.from('\n%%EOF\n')]);
    const up = await uploadCourseware(s.url, teacher.token, broken, 'broken.pdf', { roomNumber });
    expect(up.add.code).toBe('0');
    const documentId = up.add.data.documentId;
    expect(await failed).toMatchObject({ status: '500', phase: 'failed', documentId, courseware: { documentId: '', documentType: 0 } });
    expect(await docRow(s, documentId)).toMatchObject({ status: 4, fail_reason: 'corrupt' });
    expect((await call(s.url, 'getRoomCourseware', { roomNumber }, { token: teacher.token })).data.courseware.documentId).toBe('');
    // Failed documents can be deleted.
    expect((await call(s.url, 'delUserDocument', { documentId, taskId: up.add.data.taskId }, { token: teacher.token })).code).toBe('0');
  });
});

describe('courseware conversion retries', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ overrides: { converter: null } });
  });
  afterAll(async () => {
    await s.close();
  });

  it('rethrows a failure that may pass while retries remain; the last attempt ends with status 2', async () => {
    const teacher = await signIn(s);
    const db = s.banshu.platform.database.db;
    const doc = await db
      .insertInto('documents')
      .values({
        user_id: teacher.userId,
        name: 'a.pdf',
        source_key: 'documentConvert/2026/11/23/r1/a.pdf',
        pages_prefix: 'documentConvert/2026/11/23/r1',
        file_hash: 'e'.repeat(32),
        task_id: '33333333-3333-4333-8333-333333333333',
        document_type: 1,
        status: 1,
        size: PDF3.byteLength,
        created_at: new Date(),
        updated_at: new Date(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await s.banshu.platform.objects.put('documentConvert/2026/11/23/r1/a.pdf', PDF3, 'application/pdf');
    const run = (retryCount: number) =>
      s.banshu.platform.services.courseware.runConversion(
        { documentId: doc.id },
        { id: 'j', retryCount, retryLimit: 3, signal: new AbortController().signal },
      );
    // This process has no converter: a failure that a retry (on another worker) may not have.
    await expect(run(0)).rejects.toThrow(/no courseware converter/);
    await expect(run(2)).rejects.toThrow(/no courseware converter/);
    expect(await docRow(s, doc.id)).toMatchObject({ status: 1 });
    await run(3);
    expect(await docRow(s, doc.id)).toMatchObject({ status: 2, fail_reason: 'failed' });
    // A settled document is not converted again.
    await run(0);
    expect(await docRow(s, doc.id)).toMatchObject({ status: 2 });
    // And without a converter nothing can be registered.
    const up = await uploadCourseware(s.url, teacher.token, PDF3, 'a.pdf');
    expect(up.add.code).toBe('34012');
  });
});
