/**
 * The server side of bench/realtime, run as a child process (under --expose-gc) so the socket.io
 * clients and the server do not share an event loop. `node --expose-gc bench/lib/realtime-server.ts
 * <pglite|postgres> [NAME=value ...]`, IPC only (advanced serialization).
 *
 * The whole product via tests/support/server.ts (API + room channel, console SMS, its own fresh
 * database; postgres needs BENCH_POSTGRES_ADMIN_URL), with REALTIME_SERVER_ENV and any `NAME=value`
 * arguments merged over the product's settings. The test server's clock is a ManualClock; here it
 * follows the wall clock (set every 20 ms) so rate-limit windows slide as in production.
 *
 * Messages: the child sends {type:'ready', url, pid, database}. The parent may send
 * - {type:'seed', id, rooms, perRoom}: creates `rooms` whiteboard classes (type 2, cap 200), each
 *   by its own signed-in teacher (through AccountService: code from the dev outbox, login) who
 *   joins it, plus perRoom-1 tourists joined through RoomService.touristJoin; answered with
 *   {type:'seeded', id, rooms: [{room, tokens: [creator imToken, ...tourist imTokens]}], ms}.
 * - {type:'mem', id}: two full GCs, then process.memoryUsage() -> {type:'mem', id, mem}.
 * - {type:'profile', id, action:'start'} and {type:'profile', id, action:'stop', file}: a V8 CPU
 *   profile (the same format as node --cpu-prof) of just that span, written to `file`; answered
 *   with {type:'profiled', id}.
 * - {type:'close'}.
 * The child exits when the parent goes away.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { TestServer } from '../../tests/support/server.ts';

export interface SeededRoom {
  room: string;
  /** The creator's imToken first, then the members'. */
  tokens: string[];
}

export type ServerToParent =
  | { type: 'ready'; url: string; pid: number; database: string | null }
  | { type: 'seeded'; id: number; rooms: SeededRoom[]; ms: number }
  | { type: 'mem'; id: number; mem: NodeJS.MemoryUsage }
  | { type: 'profiled'; id: number }
  | { type: 'error'; id: number; message: string };
export type ParentToServer =
  | { type: 'seed'; id: number; rooms: number; perRoom: number }
  | { type: 'mem'; id: number }
  | { type: 'profile'; id: number; action: 'start' }
  | { type: 'profile'; id: number; action: 'stop'; file: string }
  | { type: 'close' };

/** Limits raised so the load is measured, not refused (the limiter still runs its queries). */
export const REALTIME_SERVER_ENV: Record<string, string> = {
  LOG_LEVEL: 'silent',
  SMS_HOURLY_PER_ADDRESS: '10000000',
  SMS_HOURLY_PER_MOBILE: '1000',
  SMS_DAILY_PER_MOBILE: '1000',
  TOURIST_JOINS_PER_MINUTE: '10000000',
  CHAT_MESSAGES_PER_10S: '100000',
};

function send(m: ServerToParent): void {
  process.send?.(m);
}

function parseOverrides(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of argv) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/s.exec(a);
    if (!m) throw new Error(`not a NAME=value setting: ${a}`);
    out[m[1]!] = m[2]!;
  }
  return out;
}

async function seed(product: TestServer, rooms: number, perRoom: number): Promise<SeededRoom[]> {
  const { account, rooms: roomService } = product.banshu.platform.services;
  const outbox = product.banshu.platform.services.devOutbox;
  if (!outbox) throw new Error('no dev outbox: the bench server needs console SMS');
  const base = 13_900_000_000 + (process.pid % 10_000) * 10_000;
  const seedRoom = async (i: number): Promise<SeededRoom> => {
    const mobile = String(base + i);
    const ip = `127.1.${String(i >> 8)}.${String(i & 255)}`;
    await account.sendPhoneCode({ mobile, area: '86', ip });
    const code = outbox.list().find((e) => e.mobile === mobile)?.code;
    if (!code) throw new Error(`no code for ${mobile}`);
    const { user } = await account.login({ mobile, code, ip });
    const viewer = { userId: user.id, name: user.name, mobile, type: '1' as const };
    const info = await roomService.createRoom(viewer, { roomType: 2, consumption: 'off' });
    const creator = await roomService.join(viewer, { roomNumber: info.roomNumber });
    const tokens = [creator.imToken];
    for (let k = 1; k < perRoom; k++) {
      const joined = await roomService.touristJoin({ roomNumber: info.roomNumber, userName: `s${String(k)}`, ip });
      tokens.push(joined.imToken);
    }
    return { room: info.roomNumber, tokens };
  };
  // A few rooms at a time: PostgreSQL overlaps them; PGlite runs one statement at a time anyway.
  const out: SeededRoom[] = new Array(rooms);
  let next = 0;
  const worker = async () => {
    while (next < rooms) {
      const i = next++;
      out[i] = await seedRoom(i);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return out;
}

let inspector: Session | null = null;
async function profile(m: Extract<ParentToServer, { type: 'profile' }>): Promise<void> {
  if (m.action === 'start') {
    inspector = new Session();
    inspector.connect();
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.setSamplingInterval', { interval: 1000 });
    await inspector.post('Profiler.start');
    return;
  }
  if (!inspector) throw new Error('no profile running');
  const { profile: p } = await inspector.post('Profiler.stop');
  writeFileSync(m.file, JSON.stringify(p));
  inspector.disconnect();
  inspector = null;
}

async function main(): Promise<void> {
  const [kind, ...rest] = process.argv.slice(2);
  if (kind !== 'pglite' && kind !== 'postgres')
    throw new Error(`usage: realtime-server.ts <pglite|postgres> [NAME=value ...] (got ${String(kind)})`);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run under node --expose-gc');
  const { startTestServer } = await import('../../tests/support/server.ts');
  const product = await startTestServer({
    engine: kind,
    postgresAdminUrl: process.env['BENCH_POSTGRES_ADMIN_URL'],
    env: { ...REALTIME_SERVER_ENV, ...parseOverrides(rest) },
  });
  const clockTimer = setInterval(() => product.clock.set(Date.now()), 20);
  clockTimer.unref();

  let closing = false;
  const close = async () => {
    if (closing) return;
    closing = true;
    clearInterval(clockTimer);
    // Clients may still be connected: do not wait on their disconnect handling for long.
    await Promise.race([product.close(), new Promise((r) => setTimeout(r, 5000))]);
    if (process.connected) process.disconnect();
    process.exit(0);
  };
  process.on('disconnect', () => void close());
  process.on('message', (raw) => {
    const m = raw as ParentToServer;
    if (m.type === 'close') {
      void close();
    } else if (m.type === 'mem') {
      gc();
      gc();
      send({ type: 'mem', id: m.id, mem: process.memoryUsage() });
    } else if (m.type === 'profile') {
      void profile(m).then(
        () => send({ type: 'profiled', id: m.id }),
        (err: unknown) => send({ type: 'error', id: m.id, message: String(err) }),
      );
    } else if (m.type === 'seed') {
      const t0 = performance.now();
      seed(product, m.rooms, m.perRoom).then(
        (rooms) => send({ type: 'seeded', id: m.id, rooms, ms: performance.now() - t0 }),
        (err: unknown) => send({ type: 'error', id: m.id, message: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
      );
    }
  });
  const dbUrl = product.banshu.platform.database.url;
  send({
    type: 'ready',
    url: product.url,
    pid: process.pid,
    database: dbUrl ? decodeURIComponent(new URL(dbUrl).pathname.slice(1)) : null,
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
