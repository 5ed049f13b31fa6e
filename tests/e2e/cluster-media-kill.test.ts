/**
 * A media node that dies mid-class (issue 18, ADR 097), on the local cluster (infra/cluster): a
 * teacher (pinned to web-1) and a student (web-2) in a free mini class, Chromium with the fake
 * camera and microphone, both decoding each other's camera through the room's media node. That
 * node is SIGKILLed. Within 10 s both decode each other's camera again, through the other media
 * node; meanwhile the teacher's classroom said 'reconnecting' (screenshot), and it cleared.
 * The measured times are printed.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../infra/cluster/cluster.ts';
import { clusterSignIn, startClusterWorld, type ClusterPerson, type ClusterWorld } from './cluster-helpers.ts';
import { open } from './helpers.ts';

const SHOTS = process.env['SHOTS'] ?? '/tmp/shots-h6';
let cluster: Cluster;
let world: ClusterWorld;

interface Stat {
  userId: string;
  source: string;
  framesDecoded: number;
}

async function stats(page: Page): Promise<Stat[]> {
  return page.evaluate(async () => (window.banshuMedia ? await window.banshuMedia.stats() : []));
}

/** Frames of `userId`'s camera decoded in the page's <video> (0 when not subscribed). */
async function framesOf(page: Page, userId: string): Promise<number> {
  return (await stats(page)).find((s) => s.userId === userId && s.source === 'camera')?.framesDecoded ?? 0;
}

/** Waits until the page decodes `userId`'s camera and the count moves on by `more` frames; resolves with when. */
async function decoding(page: Page, userId: string, what: string, timeoutMs: number, more = 10): Promise<number> {
  const end = Date.now() + timeoutMs;
  let first = 0;
  while (Date.now() < end) {
    const n = await framesOf(page, userId);
    if (first === 0 && n > 0) first = n;
    if (first > 0 && n >= first + more) return Date.now();
    await page.waitForTimeout(100);
  }
  throw new Error(`${what}: no frames advancing within ${String(timeoutMs)} ms`);
}

async function me(page: Page): Promise<string> {
  const res = await page.request.post('/api/queryUserInfoByToken', { data: {} });
  return ((await res.json()) as { data: { userInfo: { userId: string } } }).data.userInfo.userId;
}

/** The media node ports the person's pages opened a WebSocket to, in order. */
function mediaPorts(p: ClusterPerson): number[] {
  const media = new Set(cluster.nodes.filter((n) => n.role === 'media').map((n) => n.port));
  return p.sockets.map((u) => Number(new URL(u).port)).filter((port) => media.has(port));
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  cluster = await startCluster({ webNodes: 2, mediaNodes: 2, workers: 0, recorders: 0 });
  world = await startClusterWorld(cluster);
}, 120_000);

afterAll(async () => {
  await world?.close();
  await cluster?.stop();
});

it('moves the class to the other media node within 10 s of a SIGKILL, saying reconnecting meanwhile', async () => {
  const teacher = await world.person('web-1');
  await clusterSignIn(cluster, teacher.page);
  const teacherId = await me(teacher.page);
  const created = await teacher.page.request.post('/api/createAgoraRoom', { data: { roomType: 1, consumption: 'off' } });
  const room = ((await created.json()) as { data: { roomInfo: { roomNumber: string } } }).data.roomInfo.roomNumber;
  await open(teacher.page, `/${room}`);
  const student = await world.person('web-2');
  await clusterSignIn(cluster, student.page);
  const studentId = await me(student.page);
  await open(student.page, `/${room}`);
  const live = (p: Page) => p.locator('[data-testid="media-controls"][data-status="live"]');
  await live(teacher.page).waitFor({ timeout: 30_000 });
  await live(student.page).waitFor({ timeout: 30_000 });
  await decoding(teacher.page, studentId, "the student's camera at the teacher", 30_000);
  await decoding(student.page, teacherId, "the teacher's camera at the student", 30_000);

  const [port] = mediaPorts(teacher);
  expect(mediaPorts(student)).toEqual([port]);
  const dying = cluster.nodes.find((n) => n.role === 'media' && n.port === port)!;
  const other = cluster.nodes.find((n) => n.role === 'media' && n !== dying)!;

  // What the teacher's media status says from now on, with when (read in the page: the state may be short).
  await teacher.page.evaluate(() => {
    const w = window as unknown as { offlineSeen: Array<{ at: number; text: string; shown: boolean }> };
    w.offlineSeen = [];
    const look = () => {
      const badge = document.querySelector('[data-testid="media-offline"]');
      const shown = !!badge;
      const last = w.offlineSeen.at(-1);
      if (!last || last.shown !== shown) w.offlineSeen.push({ at: Date.now(), text: badge?.textContent ?? '', shown });
    };
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true });
    look();
  });

  const killedAt = Date.now();
  await dying.kill('SIGKILL');
  const badge = teacher.page.getByTestId('media-offline');
  await badge.waitFor({ timeout: 5000 });
  await teacher.page.screenshot({ path: path.join(SHOTS, 'media-kill-teacher-reconnecting.png') });

  const [teacherBack, studentBack] = await Promise.all([
    decoding(teacher.page, studentId, "the student's camera at the teacher again", 15_000),
    decoding(student.page, teacherId, "the teacher's camera at the student again", 15_000),
  ]);
  const recoveredMs = Math.max(teacherBack, studentBack) - killedAt;
  await badge.waitFor({ state: 'detached', timeout: 5000 });
  await live(teacher.page).waitFor();
  await teacher.page.screenshot({ path: path.join(SHOTS, 'media-kill-teacher-back.png') });
  const seen = await teacher.page.evaluate(
    () => (window as unknown as { offlineSeen: Array<{ at: number; text: string; shown: boolean }> }).offlineSeen,
  );
  const shown = seen.find((s) => s.shown)!;
  const cleared = seen.find((s) => !s.shown && s.at > shown.at)!;
  console.info(
    `[cluster-media-kill] killed ${dying.name}: 'reconnecting' shown after ${String(shown.at - killedAt)} ms, ` +
      `cleared after ${String(cleared.at - killedAt)} ms; frames advancing both ways on ${other.name} after ${String(recoveredMs)} ms ` +
      `(teacher ${String(teacherBack - killedAt)} ms, student ${String(studentBack - killedAt)} ms)`,
  );
  expect(shown.text).toMatch(/视频重连中|Video reconnecting/);
  expect(recoveredMs).toBeLessThan(10_000);
  // Both came back through the other node.
  expect(mediaPorts(teacher).at(-1)).toBe(other.port);
  expect(mediaPorts(student).at(-1)).toBe(other.port);
}, 180_000);
