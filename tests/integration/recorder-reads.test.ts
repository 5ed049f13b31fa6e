/**
 * What a steady recording costs the database (ADR 109): every statement the recorder's side sends
 * (its task stores, its scene) goes through a counting Kysely plugin, while a class is recorded for
 * a fixed window with the teacher drawing a stroke a second and turning the board's page. The web
 * tier's own statements (it answers the recorder's channel requests, stores the strokes) are not the
 * recorder's and are not counted. The runner, its stage, its scene and the server are real (PGlite);
 * the media session is a fake that closes a 4 s segment every 4 s (the encoder's part is
 * tests/integration/recording-whole). Printed: statements, reads, and per kind, for the ADR.
 * READS_WINDOW_S sets the window (default 30 s).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BoardOp } from '#core/contracts/board.ts';
import { listen, RECORDER_TASKS_CHANNEL } from '#core/platform/db/notify.ts';
import { createLogger } from '#core/platform/logger.ts';
import { RecordingRepository } from '#core/recording/recording.repository.ts';
import { RecordTasks } from '#core/recording/record-tasks.ts';
import { LocalRoomChangeRelay, RoomState } from '#core/rooms/room-state.ts';
import { RoomStateRepository } from '#core/rooms/room-state.repository.ts';
import { LiveTaskRepository } from '#core/streaming/live.repository.ts';
import { LiveTasks } from '#core/streaming/live-tasks.ts';
import { call } from '#tests/support/api.ts';
import { recordingClass, taskRow } from '#tests/support/recording.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';
import { segmentName } from '../../workers/record/encoder.ts';
import { RecorderRunner, type SessionHandle } from '../../workers/record/runner.ts';
import { openRoomScene } from '../../workers/record/scene.ts';
import { TsTap } from '../../workers/record/ts-tap.ts';
import type { ClosedSegment } from '../../workers/record/types.ts';

const WINDOW_S = Number(process.env['READS_WINDOW_S'] ?? 30);

/** Counts the statements of one Kysely instance, by kind and by the table they start from. */
class Counting implements KyselyPlugin {
  on = false;
  readonly kinds = new Map<string, number>();
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (this.on) {
      const node = args.node as RootOperationNode & { from?: { froms?: Array<{ table?: { identifier?: { name?: string } } }> } };
      const table = node.from?.froms?.[0]?.table?.identifier?.name ?? '';
      const key = `${node.kind}${table ? ` ${table}` : ''}`;
      this.kinds.set(key, (this.kinds.get(key) ?? 0) + 1);
    }
    return args.node;
  }
  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(args.result);
  }
  get statements(): number {
    return [...this.kinds.values()].reduce((a, b) => a + b, 0);
  }
  get reads(): number {
    return [...this.kinds].filter(([k]) => k.startsWith('SelectQueryNode')).reduce((a, [, n]) => a + n, 0);
  }
}

let server: TestServer;
let work = '';
beforeAll(async () => {
  server = await startTestServer({ realTime: true });
  work = await mkdtemp(path.join(tmpdir(), 'banshu-recorder-reads-'));
});
afterAll(async () => {
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

const line = (opId: string, page: string, y: number): BoardOp => ({
  opId,
  type: 'create',
  btype: 'brush',
  id: opId,
  page,
  data: { kind: 'stroke', points: [100, y, 300, y, 500, y], color: 'red', width: 4 },
});

it(
  `a steady recording: the recorder's statements over ${WINDOW_S} s are its lease renewals, its sweep and its segments`,
  async () => {
    const p = server.banshu.platform;
    const counting = new Counting();
    const db = p.database.db.withPlugin(counting);
    const roomState = new RoomState(new RoomStateRepository(db), new LocalRoomChangeRelay());
    const tasks = new RecordTasks(new RecordingRepository(db, p.config), roomState, p.events, p.clock);
    const live = new LiveTasks(new LiveTaskRepository(db, p.config), roomState, p.events, p.clock, p.secret);
    const listeners = new Set<(note: string) => void>();
    const listening = await listen(p.database, RECORDER_TASKS_CHANNEL, (note) => listeners.forEach((l) => l(note)));
    const logger = createLogger('silent');
    const segments: ClosedSegment[] = [];
    const runner = new RecorderRunner({
      tasks,
      live,
      notes: { on: (l) => (listeners.add(l), () => void listeners.delete(l)), close: () => listening.close() },
      sweepMs: p.config.RECORDER_SWEEP_SECONDS * 1000,
      objects: p.objects,
      logger,
      settings: { width: 1280, height: 720, fps: 30, videoKbps: 3000, audioKbps: 128, segmentSeconds: 4 },
      slots: 1,
      leaseSeconds: p.config.RECORDING_LEASE_SECONDS,
      workRoot: work,
      mediaFor: () => Promise.resolve({ mediaToken: 'x', mediaUrl: 'ws://nowhere' }),
      openScene: (roomNumber) =>
        openRoomScene({
          db,
          objects: p.objects,
          roomNumber,
          logger,
          width: 960,
          height: 720,
          webUrl: server.url,
          tokens: () => p.services.rooms.recorderTokens(roomNumber),
        }),
      // A session that closes a 4 s segment every 4 s, as the encoder does.
      startSession: (o) => {
        let seq = o.firstSeq;
        const startedAtMs = Date.now();
        const timer = setInterval(() => {
          const s = seq++;
          const file = path.join(o.workDir, segmentName(s));
          void writeFile(file, 'ts').then(() => {
            const segment = { seq: s, file, durationMs: 4000, bytes: 2, startSec: s * 4, endSec: s * 4 + 4 };
            segments.push(segment);
            return o.onSegment(segment);
          });
        }, 4000);
        const session: SessionHandle = {
          flowing: Promise.resolve(),
          broken: new Promise<never>(() => undefined),
          startedAtMs,
          liveTap: new TsTap(),
          stop: () => Promise.resolve(clearInterval(timer)),
          kill: () => clearInterval(timer),
        };
        return Promise.resolve(session);
      },
      join: async (_files, out) => {
        await writeFile(out, 'mp4');
        return { durationMs: 8000, bytes: 3 };
      },
      probeSegment: () => Promise.resolve({ durationMs: 4000, bytes: 2 }),
    });
    runner.start();
    try {
      const { roomNumber, teacher } = await recordingClass(server, 1);
      const creator = { room: roomNumber, uid: teacher.userId, role: 'creator' as const };
      const startAsked = Date.now();
      const started = await call(server.url, 'startTask', { roomNumber }, { token: teacher.token });
      expect(started.code).toBe('0');
      const taskId = started.data.taskId;
      // Claimed on its note, not at the next sweep (5 s).
      await expect.poll(async () => (await taskRow(server, taskId)).state, { timeout: 15_000, interval: 50 }).toBe('recording');
      const claimMs = Date.now() - startAsked;
      console.log(`start to recording: ${claimMs} ms`);
      expect(claimMs).toBeLessThan(p.config.RECORDER_SWEEP_SECONDS * 1000);

      // The window: a stroke a second, a page turn and back; the recorder's statements counted.
      counting.on = true;
      const began = Date.now();
      for (let i = 0; Date.now() - began < WINDOW_S * 1000; i++) {
        await p.services.board.submit(creator, line(`w${i}`, i % 20 < 10 ? 'wb:0' : 'wb:1', 100 + (i % 10) * 20));
        if (i % 10 === 0) await p.services.live.patch(creator, { roomExtend: JSON.stringify({ pageIndex: (i / 10) % 2, color: 0 }) });
        await new Promise((r) => setTimeout(r, Math.max(0, began + (i + 1) * 1000 - Date.now())));
      }
      counting.on = false;
      const kinds = [...counting.kinds].sort((a, b) => b[1] - a[1]);
      console.log(
        `recorder statements in ${WINDOW_S} s of steady recording: ${counting.statements} (${counting.reads} reads); ` +
          `${(counting.statements / WINDOW_S).toFixed(2)}/s; segments ${segments.length}\n` +
          kinds.map(([k, n]) => `  ${n}  ${k}`).join('\n'),
      );
      // Heard, not polled: the lease renewals (every third of the lease), the sweep's two claims
      // (a recording, a live push) and each segment's write; nothing a second for the scene.
      const renewals = WINDOW_S / (p.config.RECORDING_LEASE_SECONDS / 3);
      const sweeps = WINDOW_S / p.config.RECORDER_SWEEP_SECONDS;
      const perSegment = 4;
      const expected = renewals + 2 * sweeps + perSegment * (WINDOW_S / 4);
      expect(counting.statements).toBeLessThanOrEqual(Math.ceil(expected * 1.25) + 4);

      // The stop: heard at once, listed well within 15 s.
      const askedAt = Date.now();
      expect((await call(server.url, 'stopTask', { roomNumber, taskId }, { token: teacher.token })).code).toBe('0');
      await expect.poll(async () => (await taskRow(server, taskId)).state, { timeout: 15_000, interval: 50 }).toBe('done');
      const listedMs = Date.now() - askedAt;
      console.log(`stop to listed: ${listedMs} ms`);
      expect(listedMs).toBeLessThan(15_000);
    } finally {
      await runner.close();
    }
  },
  WINDOW_S * 1000 + 60_000,
);
