/**
 * The whole product as a cluster (issue 18, ADR 095): PostgreSQL, Redis, S3 (s3rver), nginx in
 * front of 2 web nodes, 2 media nodes, a worker and a recorder, each its own process
 * (infra/cluster/cluster.ts). Three Chromium clients through nginx in a paid mini class: the teacher
 * pinned to web-1, two students pinned to web-2 by the pin cookie. Video both ways, board ink and
 * chat both ways, a PDF converted by the worker reaching everyone, a short cloud recording made by
 * the recorder and stored in S3; nginx's headers and access log show which node served whom.
 * Tests run in order and share the class.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kyselyOnPostgres, type Database } from '#core/platform/db/database.ts';
import { BillingRepository } from '#core/billing/billing.repository.ts';
import { simplePdf, writeFixture } from '#tests/fixtures/courseware.ts';
import { startCluster, type Cluster } from '../../infra/cluster/cluster.ts';
import { probeMedia } from '../../workers/record/join.ts';
import { accessLog, clusterSignIn, startClusterWorld, type ClusterPerson, type ClusterWorld } from './cluster-helpers.ts';
import { E2E_BUILD_DIR, open } from './helpers.ts';

/** Set to a directory to keep screenshots of the views (a person's check of the layout). */
const SHOTS = process.env['SHOTS'];

interface Stat {
  userId: string;
  source: string;
  framesDecoded: number;
}

type BoardHook = Window & {
  __banshuBoard?: { store: { snapshot(page: string): { items: Array<{ uid?: string }>; pending: number }; uid: string }; page(): string };
};

interface Person extends ClusterPerson {
  id: string;
  name: string;
  sentBy: string;
}

let cluster: Cluster;
let world: ClusterWorld;
let db: Database;
let dir = '';
let teacher: Person;
const students: Person[] = [];
let room = '';

async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `cluster-${name}.png`) });
}

async function stats(page: Page): Promise<Stat[]> {
  return page.evaluate(async () => (window.banshuMedia ? ((await window.banshuMedia.stats()) as Stat[]) : []));
}

async function person(name: string, pin: string): Promise<Person> {
  const p = await world.person(pin);
  const { sentBy } = await clusterSignIn(cluster, p.page);
  await p.page.request.post('/api/updateUserName', { data: { userName: name } });
  const res = await p.page.request.post('/api/queryUserInfoByToken', { data: {} });
  const id = ((await res.json()) as { data: { userInfo: { userId: string } } }).data.userInfo.userId;
  return { ...p, id, name, sentBy };
}

async function boardItems(page: Page): Promise<number> {
  return page.evaluate(() => {
    const hook = (window as BoardHook).__banshuBoard;
    return hook ? hook.store.snapshot(hook.page()).items.length : -1;
  });
}

async function drag(page: Page, from: [number, number], to: [number, number]): Promise<void> {
  const box = (await page.getByTestId('board-overlay').boundingBox())!;
  await page.mouse.move(box.x + box.width * from[0], box.y + box.height * from[1]);
  await page.mouse.down();
  for (let i = 1; i <= 6; i++)
    await page.mouse.move(
      box.x + box.width * (from[0] + ((to[0] - from[0]) * i) / 6),
      box.y + box.height * (from[1] + ((to[1] - from[1]) * i) / 6),
    );
  await page.mouse.up();
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'banshu-cluster-e2e-'));
  cluster = await startCluster({ env: { RECORDING_FPS: '15', BUILD_DIR: E2E_BUILD_DIR } });
  world = await startClusterWorld(cluster, { clientNice: 10 });
  db = kyselyOnPostgres(cluster.databaseUrl, 2).db;
}, 180_000);

afterAll(async () => {
  await world?.close();
  await db?.destroy();
  await cluster?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a class across the cluster', () => {
  it('the teacher on web-1 and two students on web-2 join one paid mini class through nginx', async () => {
    teacher = await person('Teacher', 'web-1');
    for (const name of ['Ann', 'Ben']) students.push(await person(name, 'web-2'));
    // A paid class: four may join, and the teacher may record (ADR 072).
    await new BillingRepository(db).grant(teacher.id, { vip_room_time: new Date(Date.now() + 86_400_000) });
    const created = await teacher.page.request.post('/api/createAgoraRoom', { data: { roomType: 1, consumption: 'on' } });
    room = ((await created.json()) as { data: { roomInfo: { roomNumber: string } } }).data.roomInfo.roomNumber;
    expect(room).toMatch(/^\d{6}$/);
    for (const p of [teacher, ...students]) {
      await open(p.page, `/${room}`);
      await p.page.getByTestId('media-controls').and(p.page.locator('[data-status="live"]')).waitFor({ timeout: 30_000 });
    }
    // Who served whom: the sign-in code came from the pinned node, and every answer nginx gave carried its name.
    expect(teacher.sentBy).toBe('web-1');
    for (const s of students) expect(s.sentBy).toBe('web-2');
    for (const p of [teacher, ...students]) {
      expect(p.servedBy.length).toBeGreaterThan(3);
      expect(new Set(p.servedBy)).toEqual(new Set([p.pin]));
    }
  }, 120_000);

  it('video both ways: the teacher decodes both students, each student decodes the teacher, all on one media node', async () => {
    const everyone = [teacher, ...students];
    for (const p of everyone) {
      const others = everyone.filter((o) => o !== p);
      await expect
        .poll(
          async () => {
            const s = await stats(p.page);
            return others.every((o) => (s.find((x) => x.userId === o.id && x.source === 'camera')?.framesDecoded ?? 0) > 0);
          },
          { timeout: 45_000, interval: 250 },
        )
        .toBe(true);
      // Still playing: the frames keep coming.
      const first = await stats(p.page);
      const frames = (s: Stat[], o: Person) => s.find((x) => x.userId === o.id && x.source === 'camera')?.framesDecoded ?? 0;
      await expect
        .poll(
          async () => {
            const later = await stats(p.page);
            return others.every((o) => frames(later, o) > frames(first, o));
          },
          { timeout: 15_000, interval: 250 },
        )
        .toBe(true);
    }
    await shot(teacher.page, 'teacher-video');
    await shot(students[0]!.page, 'student-video');
    // The room's media: every browser's signaling socket went to the same media node, directly.
    const mediaUrls = cluster.nodes.filter((n) => n.role === 'media').map((n) => new URL(n.url).host);
    const mediaOf = (p: Person) =>
      new Set(p.sockets.filter((u) => u.includes('/socket.io/') && mediaUrls.includes(new URL(u).host)).map((u) => new URL(u).host));
    const hosts = everyone.map(mediaOf);
    for (const h of hosts) expect(h.size).toBe(1);
    expect(new Set(hosts.flatMap((h) => [...h])).size).toBe(1);
    // The registry placed the room on that node (MEDIA_NODE_ID = the node's name).
    const placed = await db.selectFrom('media_placements').select('node_id').where('room_number', '=', room).executeTakeFirstOrThrow();
    expect(new URL(cluster.node(placed.node_id).url).host).toBe([...hosts[0]!][0]);
    process.stdout.write(`\n  room ${room} on ${placed.node_id}\n`);
    // The room channel went through nginx.
    for (const p of everyone) expect(p.sockets.some((u) => new URL(u).host === new URL(cluster.url).host)).toBe(true);
  }, 120_000);

  it('board ink both ways: the teacher draws on web-1, an allowed student on web-2, and both boards hold both strokes', async () => {
    const t = teacher.page;
    const ann = students[0]!.page;
    await t.getByTestId('view-wb').click();
    for (const p of [teacher, ...students]) await p.page.getByTestId('board-overlay').waitFor();
    const before = await boardItems(t);
    await t.getByTestId('tool-brush').click();
    await drag(t, [0.2, 0.3], [0.5, 0.4]);
    for (const p of [teacher, ...students]) await expect.poll(() => boardItems(p.page), { timeout: 10_000 }).toBe(before + 1);
    await t.getByTestId('tool-power').click();
    await t.getByTestId('power-allow').check();
    await t.getByTestId('power-ok').click();
    await ann.getByTestId('board-mask').waitFor({ state: 'detached' });
    await ann.getByTestId('tool-brush').click();
    await drag(ann, [0.3, 0.7], [0.6, 0.8]);
    for (const p of [teacher, ...students]) await expect.poll(() => boardItems(p.page), { timeout: 10_000 }).toBe(before + 2);
    // The same board on both nodes: the same items in the same order.
    const uids = (p: Page) =>
      p.evaluate(() => {
        const hook = (window as BoardHook).__banshuBoard!;
        return hook.store.snapshot(hook.page()).items.map((i) => i.uid ?? '');
      });
    const [a, b, c] = await Promise.all([t, ann, students[1]!.page].map(uids));
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    const annUid = await ann.evaluate(() => (window as BoardHook).__banshuBoard!.store.uid);
    expect(a?.at(-1)).toBe(annUid);
    await shot(t, 'teacher-board');
    await shot(students[1]!.page, 'student-board');
  }, 60_000);

  it('chat both ways between the nodes', async () => {
    const t = teacher.page;
    const ann = students[0]!.page;
    await t.getByTestId('chat-input').fill('从web-1问好');
    await t.getByTestId('chat-input').press('Enter');
    for (const p of [teacher, ...students]) await p.page.getByTestId('chat-line').filter({ hasText: '从web-1问好' }).waitFor();
    await ann.getByTestId('chat-input').fill('hello from web-2');
    await ann.getByTestId('chat-input').press('Enter');
    for (const p of [teacher, ...students]) await p.page.getByTestId('chat-line').filter({ hasText: 'hello from web-2' }).waitFor();
    await shot(t, 'teacher-chat');
  }, 30_000);

  it('a PDF the teacher uploads is converted by the worker and reaches the students on the other node', async () => {
    const t = teacher.page;
    const pdf = await writeFixture(dir, '讲义.pdf', simplePdf(2));
    await t.getByTestId('view-ppt').click();
    await t.getByTestId('courseware-upload').waitFor();
    await t.getByTestId('courseware-file').setInputFiles(pdf);
    for (const p of [teacher, ...students]) {
      await p.page.locator('[data-testid="courseware-loaded"][data-total="2"]').waitFor({ timeout: 60_000 });
      await p.page.locator('[data-testid="courseware-loaded"][data-page="1"][data-slide-ready="1"]').waitFor({ timeout: 30_000 });
    }
    // The slides are in S3, and the conversion ran in the worker (the web nodes send jobs, never work them).
    const src = (await students[1]!.page.getByTestId('courseware-loaded').getAttribute('data-slide-src'))!;
    expect(src.startsWith(cluster.s3Env['S3_ENDPOINT']!)).toBe(true);
    const doc = await db.selectFrom('documents').select(['id', 'page_count']).orderBy('created_at', 'desc').executeTakeFirstOrThrow();
    expect(Number(doc.page_count)).toBe(2);
    const converted = (log: string) =>
      log.split('\n').some((l) => l.includes('"msg":"courseware converted"') && l.includes(String(doc.id)));
    expect(converted(await readFile(cluster.node('worker-1').logPath, 'utf8'))).toBe(true);
    for (const web of ['web-1', 'web-2']) expect(converted(await readFile(cluster.node(web).logPath, 'utf8'))).toBe(false);
    await shot(students[1]!.page, 'student-deck');
  }, 120_000);

  it('a short cloud recording is made by the recorder and stored in S3 as a playable MP4', async () => {
    const t = teacher.page;
    const button = t.getByTestId('record-button');
    await expect.poll(() => button.getAttribute('data-record-state')).toBe('0');
    await button.click();
    await t.locator('[data-testid="record-button"][data-record-state="1"]').waitFor({ timeout: 30_000 });
    for (const s of students) await s.page.getByTestId('rec-dot').waitFor();
    const task = await db
      .selectFrom('record_tasks')
      .select(['id', 'owner', 'state'])
      .where('room_number', '=', room)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    // The recorder process claimed it (its owner is host:pid:random).
    const recorder = cluster.node('recorder-1');
    expect(task.owner).toContain(`:${String(recorder.pid)}:`);
    // At least two pieces stored before the stop (each RECORDING_SEGMENT_SECONDS long).
    await expect
      .poll(
        async () =>
          Number(
            (
              await db
                .selectFrom('record_segments')
                .select((eb) => eb.fn.countAll<string>().as('n'))
                .where('task_id', '=', task.id)
                .executeTakeFirstOrThrow()
            ).n,
          ),
        { timeout: 30_000, interval: 250 },
      )
      .toBeGreaterThanOrEqual(2);
    await button.click();
    await t.getByRole('dialog', { name: '结束录制？' }).getByRole('button', { name: '结束录制' }).click();
    await expect.poll(() => button.getAttribute('data-record-state'), { timeout: 15_000 }).toBe('0');

    let fileId = '';
    await expect
      .poll(
        async () => {
          const res = await t.request.post('/api/getRecordList', { data: { recordType: 2, pageSize: 10 } });
          const body = (await res.json()) as { data: { recordList: Array<{ fileId: string; fileSize: string; roomNumber: string }> } };
          fileId = body.data.recordList.find((r) => r.roomNumber === room && r.fileSize !== '')?.fileId ?? '';
          return fileId;
        },
        { timeout: 60_000, interval: 250 },
      )
      .not.toBe('');
    const res = await t.request.post('/api/getRecordFileUrl', { data: { fileId } });
    const body = (await res.json()) as { code: string; data: { fileUrl: string } };
    expect(body.code).toBe('0');
    // A presigned link to the S3 store, not to a web node.
    expect(body.data.fileUrl.startsWith(cluster.s3Env['S3_ENDPOINT']!)).toBe(true);
    const got = await fetch(body.data.fileUrl);
    expect(got.status).toBe(200);
    const mp4 = path.join(dir, 'class.mp4');
    await writeFile(mp4, new Uint8Array(await got.arrayBuffer()));
    const probe = await probeMedia(mp4);
    process.stdout.write(`\n  cluster recording: ${JSON.stringify(probe)}\n`);
    expect(probe).toMatchObject({ videoCodec: 'h264', width: 1280, height: 720, audioCodec: 'aac' });
    expect(probe.durationSec).toBeGreaterThan(4);
  }, 150_000);

  it("nginx's access log: every request of a pinned browser, WebSockets too, was answered by its node", async () => {
    // A WebSocket is logged when it closes: leave the class first.
    await Promise.all([teacher, ...students].map((p) => p.context.close()));
    await expect
      .poll(async () => (await accessLog(cluster)).filter((l) => l.status === 101).length, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(6);
    const lines = await accessLog(cluster);
    for (const pin of ['web-1', 'web-2']) {
      const mine = lines.filter((l) => l.pin === pin);
      expect(mine.length).toBeGreaterThan(10);
      expect(mine.filter((l) => l.node !== pin)).toEqual([]);
      expect(mine.some((l) => l.status === 101 && l.request.includes('/socket.io/'))).toBe(true);
    }
  }, 30_000);
});
