/**
 * The bus's half of the channels (ADR 108), through its real route: a process without channels (a
 * worker, a media node) publishes on its event bus, the Redis emitter (server/redis.ts) sends each
 * message through Redis to the web node's socket.io server (the Redis adapter), and the browser's
 * channel hears it. Each message is parsed by its event's schema before it leaves: one that breaks
 * it is logged and dropped there, and the messages after it arrive as ever.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Server } from 'socket.io';
import { io as connect, type Socket } from 'socket.io-client';
import type { ChannelProblem } from '#core/channel/open.ts';
import { InMemoryEventBus, type BusMessage } from '#core/platform/events.ts';
import { listenUserEvents } from '#app/billing/useUserEvents.ts';
import { attachRedisEmitter, connectRedisAdapter, type RedisAdapterLink } from '#server/redis.ts';
import { capturingLogger } from '#tests/support/log-capture.ts';
import { startRedis, type TestRedis } from '#tests/support/redis.ts';

let redis: TestRedis;
let link: RedisAdapterLink;
let server: Server;
let url: string;
let emitter: { close(): Promise<void> };
let client: Socket;
const bus = new InMemoryEventBus();
const { logger, lines } = capturingLogger('warn');

beforeAll(async () => {
  redis = await startRedis();
  link = await connectRedisAdapter(redis.url, logger);
  const http = createServer();
  server = new Server(http, { adapter: link.adapter, transports: ['websocket'] });
  // The web node's user channel, reduced to its routing: each connection joins its person's room.
  server.of('/user').on('connection', (socket) => void socket.join('user:7'));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  emitter = await attachRedisEmitter(bus, redis.url, logger);
  client = connect(`${url}/user`, { transports: ['websocket'], forceNew: true, reconnection: false });
  await new Promise<void>((resolve, reject) => {
    client.once('connect', resolve);
    client.once('connect_error', reject);
  });
}, 30_000);

afterAll(async () => {
  client?.close();
  await emitter?.close();
  await new Promise<void>((resolve) => (server ? void server.close(() => resolve()) : resolve()));
  await link?.close();
  await redis?.close();
});

it('drops a bus message whose payload breaks its event schema before it leaves, and delivers the good ones', async () => {
  const problems: ChannelProblem[] = [];
  const paid: string[] = [];
  const recorded: string[] = [];
  listenUserEvents(
    client,
    () => ({ paymentSuccess: (p) => paid.push(p.orderId), roomRecord: (p) => recorded.push(p.fileId) }),
    (p) => problems.push(p),
  );
  // Typed wrong on purpose: a process whose code and contract disagree (a cast, an older build).
  const bad = (m: unknown) => bus.publish(m as BusMessage);
  bad({ target: { user: '7' }, event: 'paymentSuccess', payload: { orderId: 42 } });
  bad({ target: { user: '7' }, event: 'roomRecord', payload: { code: '0', taskId: '1', fileId: '2', extra: true } });
  bad({ target: { user: '7' }, event: 'roomRecord', payload: { code: '0', taskId: '1', recordState: '1', startedAt: 5 } });
  bus.publish({ target: { user: '7' }, event: 'paymentSuccess', payload: { orderId: 'BS1' } });
  bus.publish({ target: { user: '7' }, event: 'roomRecord', payload: { code: '0', taskId: '1', fileId: '2' } });
  await expect.poll(() => [paid, recorded], { timeout: 10_000 }).toEqual([['BS1'], ['2']]);
  // What broke its schema never left the process: logged there, not heard by the browser.
  expect(lines.filter((l) => l.msg.startsWith('bus message refused'))).toHaveLength(3);
  expect(problems).toEqual([]);
  expect(client.connected).toBe(true);
});
