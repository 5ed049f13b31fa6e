/**
 * A load process of bench/realtime: holds whole rooms of socket.io room-channel clients, so every
 * send and its deliveries are timed on one clock (performance.now() of this process). IPC only,
 * advanced serialization: `node bench/lib/realtime-clients.ts`.
 *
 * Messages from the parent:
 * - {type:'connect', url, rooms, concurrency}: connects every token of every room (`/room`,
 *   websocket) and sends `joinRoom`; answers {type:'connected', ok, errors, ms}.
 * - {type:'run', rate, warmupMs, durationMs, drainMs}: each client sends `rate` events per second,
 *   evenly spread over all clients of this process (in a shuffled order, so neighbours in time are
 *   in different rooms): the room's creator a `customRoomEvent` {showState, roomExtend:'{"t":..}'},
 *   the others a `chat` {text:'t<ms>'}. Fan-out latency = receive time at every other client of the
 *   room - the sender's emit time. Sends are counted from the end of the warm-up to the end of the
 *   window; then sending stops and deliveries are awaited for up to drainMs. A client with
 *   maxInFlight requests unanswered skips its turn (counted as 'skipped'): an overloaded server
 *   then holds a bounded backlog, and the skips show the overload. Answers 'window' at
 *   the start and end of the measured window (for the parent's CPU readings), then 'result'.
 * - {type:'close'}: closes every socket and exits.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ROOM_PROTOCOL_VERSION } from '../../core/contracts/room-events.ts';
import { ask, connectRoom, type RoomSocket } from '../../tests/support/room-client.ts';
import type { SeededRoom } from './realtime-server.ts';

export type ClientsToParent =
  | { type: 'connected'; ok: number; errors: Record<string, number>; ms: number }
  | { type: 'window'; edge: 'start' | 'end' }
  | { type: 'result'; result: RunResult };

export type ParentToClients =
  | { type: 'connect'; url: string; rooms: SeededRoom[]; concurrency: number }
  | { type: 'run'; rate: number; warmupMs: number; durationMs: number; drainMs: number; maxInFlight: number }
  | { type: 'close' };

export interface KindResult {
  /** Sends emitted inside the window. */
  sent: number;
  /** Of those, acknowledged with code '0'. */
  acked: number;
  /** Acks with another code, by code; 'none' = no ack by the end of the drain; 'skipped' = turns
   * not taken because the client had maxInFlight requests unanswered. */
  ackErrors: Record<string, number>;
  /** Deliveries expected at the other clients of the room (acked sends x others). */
  expected: number;
  /** Fan-out latencies (ms) of deliveries of window sends, at the other clients. */
  latencies: Float64Array;
  /** Send -> ack latencies (ms). */
  acks: Float64Array;
}

export interface RunResult {
  seconds: number;
  custom: KindResult;
  chat: KindResult;
  /** Scheduled -> actual emit time, p99 and max (ms): this process keeping up or not. */
  sendLagP99: number;
  sendLagMax: number;
  /** This process's event-loop delay p99 over the run (ms). */
  loopDelayP99: number;
}

interface Client {
  socket: RoomSocket;
  uid: string;
  creator: boolean;
  /** Other connected clients of the room. */
  others: number;
  inFlight: number;
}

class Growable {
  a = new Float64Array(1024);
  n = 0;
  add(v: number): void {
    if (this.n === this.a.length) {
      const b = new Float64Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
  take(): Float64Array {
    return this.a.slice(0, this.n);
  }
}

function send(m: ClientsToParent): void {
  process.send?.(m);
}

const clients: Client[] = [];

/** Set while a run measures: deliveries of sends emitted in [start, end) are recorded. */
let window: { start: number; end: number; custom: Growable; chat: Growable } | null = null;

function onDelivery(kind: 'custom' | 'chat', sentAt: number): void {
  const w = window;
  if (!w || !(sentAt >= w.start && sentAt < w.end)) return;
  w[kind].add(performance.now() - sentAt);
}

async function connectAll(url: string, rooms: SeededRoom[], concurrency: number): Promise<ClientsToParent> {
  const t0 = performance.now();
  const errors: Record<string, number> = {};
  const jobs: Array<{ token: string; creator: boolean; others: number }> = [];
  for (const r of rooms) r.tokens.forEach((token, i) => jobs.push({ token, creator: i === 0, others: r.tokens.length - 1 }));
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      try {
        const socket = await connectRoom(url, job.token);
        const joined = await ask(socket, 'joinRoom', { version: ROOM_PROTOCOL_VERSION }, 30_000);
        if (joined.code !== '0' || !joined.data) throw Object.assign(new Error(joined.msg), { code: `join ${joined.code}` });
        const c: Client = { socket, uid: joined.data.you.userId, creator: job.creator, others: job.others, inFlight: 0 };
        socket.on('customRoomEvent', (p: { by?: string; roomExtend?: string }) => {
          if (p.by === c.uid || typeof p.roomExtend !== 'string' || !p.roomExtend.startsWith('{"t":')) return;
          onDelivery('custom', Number(p.roomExtend.slice(5, -1)));
        });
        socket.on('messageevent', (m: { uid: string; text: string }) => {
          if (m.uid === c.uid || m.text[0] !== 't') return;
          onDelivery('chat', Number(m.text.slice(1)));
        });
        socket.on('disconnect', (reason: string) => {
          errors[`disconnect ${reason}`] = (errors[`disconnect ${reason}`] ?? 0) + 1;
        });
        clients.push(c);
      } catch (err) {
        const raw = (err as { code?: unknown }).code;
        const code = typeof raw === 'string' ? raw : err instanceof Error ? err.message : 'unknown';
        errors[code] = (errors[code] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { type: 'connected', ok: clients.length, errors, ms: performance.now() - t0 };
}

/** A fixed shuffle (xorshift), so runs send in the same order. */
function shuffled<T>(items: T[]): T[] {
  const a = items.slice();
  let s = 0x9e3779b9;
  for (let i = a.length - 1; i > 0; i--) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    const j = (s >>> 0) % (i + 1);
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

async function run(rate: number, warmupMs: number, durationMs: number, drainMs: number, maxInFlight: number): Promise<RunResult> {
  const order = shuffled(clients);
  const n = order.length;
  const interval = 1000 / rate / n; // ms between two sends of this process
  const t0 = performance.now();
  const start = t0 + warmupMs;
  const end = start + durationMs;
  const kinds = {
    custom: { sent: 0, acked: 0, ackErrors: {} as Record<string, number>, expected: 0, acks: new Growable() },
    chat: { sent: 0, acked: 0, ackErrors: {} as Record<string, number>, expected: 0, acks: new Growable() },
  };
  const w = { start, end, custom: new Growable(), chat: new Growable() };
  window = w;
  const lag = new Growable();
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  let pendingAcks = 0;
  let done = 0;
  let flip = false;
  let started = false;

  const emitOne = (c: Client, scheduled: number) => {
    const at = performance.now();
    const inWindow = at >= start && at < end;
    if (inWindow) lag.add(at - scheduled);
    const k = c.creator ? kinds.custom : kinds.chat;
    if (c.inFlight >= maxInFlight) {
      if (inWindow) k.ackErrors['skipped'] = (k.ackErrors['skipped'] ?? 0) + 1;
      return;
    }
    c.inFlight++;
    if (inWindow) {
      k.sent++;
      pendingAcks++;
    }
    const onAck = (a: { code: string }) => {
      c.inFlight--;
      if (!inWindow) return;
      pendingAcks--;
      if (a.code === '0') {
        k.acked++;
        k.expected += c.others;
        k.acks.add(performance.now() - at);
      } else {
        k.ackErrors[a.code] = (k.ackErrors[a.code] ?? 0) + 1;
      }
    };
    const stamp = at.toFixed(3);
    if (c.creator) {
      flip = !flip;
      c.socket.emit('customRoomEvent', { showState: flip ? 'wb' : 'ppt', roomExtend: `{"t":${stamp}}` }, onAck);
    } else {
      c.socket.emit('chat', { text: `t${stamp}` }, onAck);
    }
  };

  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      if (!started && now >= start) {
        started = true;
        send({ type: 'window', edge: 'start' });
      }
      if (now >= end) {
        send({ type: 'window', edge: 'end' });
        resolve();
        return;
      }
      // Every send due by now, each at its own slot of the even schedule.
      const due = Math.floor((now - t0) / interval) + 1;
      while (done < due) {
        emitOne(order[done % n]!, t0 + done * interval);
        done++;
      }
      setTimeout(tick, 1);
    };
    tick();
  });

  // Drain: until every window send is acknowledged and delivered, or drainMs.
  const drainEnd = performance.now() + drainMs;
  while (performance.now() < drainEnd) {
    const delivered = w.custom.n + w.chat.n;
    if (pendingAcks === 0 && delivered >= kinds.custom.expected + kinds.chat.expected) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  window = null;
  loop.disable();
  const lags = lag.take().sort();
  const p99 = (a: Float64Array) => (a.length ? a[Math.min(a.length - 1, Math.ceil(0.99 * a.length) - 1)]! : Number.NaN);
  const finish = (k: (typeof kinds)['custom'], lat: Growable): KindResult => {
    const answered = Object.entries(k.ackErrors).reduce((x, [code, v]) => (code === 'skipped' ? x : x + v), 0);
    const pendingForKind = k.sent - k.acked - answered;
    if (pendingForKind > 0) k.ackErrors['none'] = pendingForKind;
    return { sent: k.sent, acked: k.acked, ackErrors: k.ackErrors, expected: k.expected, latencies: lat.take(), acks: k.acks.take() };
  };
  return {
    seconds: durationMs / 1000,
    custom: finish(kinds.custom, w.custom),
    chat: finish(kinds.chat, w.chat),
    sendLagP99: p99(lags),
    sendLagMax: lags.length ? lags[lags.length - 1]! : Number.NaN,
    loopDelayP99: loop.percentile(99) / 1e6,
  };
}

process.on('disconnect', () => process.exit(0));
process.on('message', (raw) => {
  const m = raw as ParentToClients;
  if (m.type === 'connect') {
    void connectAll(m.url, m.rooms, m.concurrency).then(send);
  } else if (m.type === 'run') {
    void run(m.rate, m.warmupMs, m.durationMs, m.drainMs, m.maxInFlight).then((result) => send({ type: 'result', result }));
  } else if (m.type === 'close') {
    for (const c of clients) c.socket.close();
    setTimeout(() => process.exit(0), 200);
  }
});
