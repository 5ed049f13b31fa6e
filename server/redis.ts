/**
 * The distributed mode of the realtime layer (ADR 053): with REDIS_URL, every web node's socket.io
 * server uses the Redis adapter (a broadcast, fetchSockets or disconnectSockets on one node reaches
 * the sockets of all nodes), and processes without a socket.io server (worker, media) emit their
 * bus messages through the Redis emitter, routed exactly as the web channels route them
 * (server/web/bus-routes.ts). Room changes (ADR 062) travel on their own channel between every
 * process. A Redis outage is logged; it never takes a process down.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { Redis, type RedisOptions } from 'ioredis';
import { createAdapter } from '@socket.io/redis-adapter';
import { Emitter } from '@socket.io/redis-emitter';
import type { EventBus } from '#core/platform/events.ts';
import type { Logger } from '#core/platform/logger.ts';
import type { RoomChange, RoomChangeRelay, RoomField } from '#core/rooms/room-state.ts';
import { ROOM_NUMBER_RULE } from '#core/rooms/room.schema.ts';
import { parseBusMessage, socketRouteOf } from './web/bus-routes.ts';

/** The channel prefix the adapter and the emitter share. */
const KEY = 'banshu';
/** How long a starting process waits for Redis before it goes on (and connects when Redis is back). */
const CONNECT_WAIT_MS = 10_000;

/** Commands the adapter and the emitter send without handling a failure: a failure is logged here. */
const FIRE_AND_FORGET = [
  'publish',
  'spublish',
  'subscribe',
  'psubscribe',
  'ssubscribe',
  'unsubscribe',
  'punsubscribe',
  'sunsubscribe',
] as const;

/**
 * `outage` is the level an outage is logged at: the realtime clients report it as an error; the
 * room-change relay, which only makes caches fresher, as a warning.
 */
export function openClient(url: string, logger: Logger, name: string, opts: RedisOptions, outage: 'error' | 'warn' = 'error'): Redis {
  const client = new Redis(url, { connectionName: `banshu-${name}`, retryStrategy: (n) => Math.min(n * 100, 2000), ...opts });
  // ioredis reports every failed reconnect attempt: one error line per outage is enough.
  let down = false;
  let lastError: unknown = null;
  const lost = () => {
    if (down) return;
    down = true;
    logger[outage]({ err: lastError, client: name }, 'redis unreachable: realtime stays on this node until it is back');
  };
  client.on('error', (err: unknown) => {
    lastError = err;
    lost();
  });
  client.on('reconnecting', lost);
  client.on('ready', () => {
    if (!down) return;
    down = false;
    logger.info({ client: name }, 'redis reachable again');
  });
  const methods = client as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const m of FIRE_AND_FORGET) {
    const original = methods[m]!.bind(client);
    methods[m] = (...args: unknown[]) =>
      original(...args).catch((err: unknown) => {
        logger.warn({ err, client: name, command: m }, 'redis command failed');
        return null;
      });
  }
  return client;
}

export async function ready(client: Redis, logger: Logger, name: string): Promise<void> {
  if (client.status === 'ready') return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      client.off('ready', done);
      logger.error({ client: name }, `redis not reachable within ${CONNECT_WAIT_MS / 1000} s; starting without it`);
      resolve();
    }, CONNECT_WAIT_MS);
    timer.unref();
    function done() {
      clearTimeout(timer);
      resolve();
    }
    client.once('ready', done);
  });
}

/** Closes politely when Redis answers, at once when it does not (queued commands fail, logged). */
export async function quit(client: Redis): Promise<void> {
  if (client.status !== 'ready') return client.disconnect();
  const timer = setTimeout(() => client.disconnect(), 1000);
  await client.quit().catch(() => client.disconnect());
  clearTimeout(timer);
}

export interface RedisAdapterLink {
  /** socket.io's `adapter` option. */
  adapter: ReturnType<typeof createAdapter>;
  close(): Promise<void>;
}

/** The pub/sub pair of one web node and the socket.io adapter over it. */
export async function connectRedisAdapter(url: string, logger: Logger): Promise<RedisAdapterLink> {
  // Publishing fails at once while Redis is down (no queue of stale broadcasts, presence falls
  // back to this node); subscriptions wait for Redis and are renewed on every reconnect.
  const pub = openClient(url, logger, 'pub', { enableOfflineQueue: false });
  const sub = openClient(url, logger, 'sub', { maxRetriesPerRequest: null });
  await Promise.all([ready(pub, logger, 'pub'), ready(sub, logger, 'sub')]);
  return {
    adapter: createAdapter(pub, sub, { key: KEY }),
    async close() {
      await Promise.all([quit(pub), quit(sub)]);
    },
  };
}

/**
 * For a process without the web channels: each bus message is emitted through Redis to the same
 * namespace, socket.io room and event the web channels would use. Web nodes never use this (their
 * channels already broadcast through the adapter), so nothing is delivered twice.
 */
export async function attachRedisEmitter(bus: EventBus, url: string, logger: Logger): Promise<{ close(): Promise<void> }> {
  const client = openClient(url, logger, 'emitter', { enableOfflineQueue: false });
  await ready(client, logger, 'emitter');
  const emitter = new Emitter(client, { key: KEY });
  const unsubscribe = bus.subscribe((message) => {
    // Whatever leaves for the other nodes is checked first: a message they could not route is dropped here, logged.
    const m = parseBusMessage(message);
    if (!m)
      return logger.warn({ event: (message as { event?: unknown }).event }, 'bus message refused: not one the channel contracts allow');
    const r = socketRouteOf(m);
    try {
      (emitter.of(r.nsp).to(r.room).emit as (event: string, payload: unknown) => boolean)(r.event, r.payload);
    } catch (err) {
      logger.warn({ err, event: r.event }, 'redis emit failed');
    }
  });
  return {
    async close() {
      unsubscribe();
      await quit(client);
    },
  };
}

/** The channel room changes travel on (ADR 062). */
const ROOM_CHANGES_CHANNEL = `${KEY}:room-changes`;

/** A room change as published by another process: parsed before any cache hears it. */
const relayedChange = z.object({
  origin: z.string().min(1).max(64),
  roomNumber: z.string().regex(ROOM_NUMBER_RULE),
  fields: z.array(z.string().regex(/^[a-z_]{1,40}$/)).max(64),
});

/**
 * Room changes across processes: each change is told to this process's listeners at once and
 * published on Redis; the changes other processes publish are told here when they arrive. While
 * Redis is down the other processes miss changes: their caches then keep an entry for its time
 * to live (a second by default), as before this relay.
 */
export async function connectRoomChangeRelay(url: string, logger: Logger): Promise<RoomChangeRelay & { close(): Promise<void> }> {
  const origin = randomUUID();
  const listeners = new Set<(change: RoomChange) => void>();
  const tell = (change: RoomChange) => {
    for (const l of listeners) {
      try {
        l(change);
      } catch (err) {
        logger.error({ err, room: change.roomNumber }, 'room change listener failed');
      }
    }
  };
  const pub = openClient(url, logger, 'room-changes-pub', { enableOfflineQueue: false }, 'warn');
  const sub = openClient(url, logger, 'room-changes-sub', { maxRetriesPerRequest: null }, 'warn');
  sub.on('message', (channel: string, text: string) => {
    if (channel !== ROOM_CHANGES_CHANNEL) return;
    let parsed: z.infer<typeof relayedChange>;
    try {
      parsed = relayedChange.parse(JSON.parse(text));
    } catch (err) {
      logger.warn({ err }, 'room change from redis refused');
      return;
    }
    if (parsed.origin === origin) return;
    tell({ roomNumber: parsed.roomNumber, fields: parsed.fields as RoomField[] });
  });
  await Promise.all([ready(pub, logger, 'room-changes-pub'), ready(sub, logger, 'room-changes-sub')]);
  // Sent once connected, and renewed by ioredis on every reconnect (autoResubscribe).
  void sub.subscribe(ROOM_CHANGES_CHANNEL);
  return {
    publish(change) {
      tell(change);
      if (pub.status !== 'ready') return;
      void pub.publish(ROOM_CHANGES_CHANNEL, JSON.stringify({ origin, roomNumber: change.roomNumber, fields: change.fields }));
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
      await Promise.all([quit(pub), quit(sub)]);
    },
  };
}
