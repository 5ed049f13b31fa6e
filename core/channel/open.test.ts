import { expect, it } from 'vitest';
import { z } from 'zod';
import { call, channelContract, noAnswer, noPayload } from '#core/contracts/channel.ts';
import { CHANNEL_BAD_ANSWER, CHANNEL_OFFLINE, DEFAULT_TIMEOUT_MS, openChannel, type ChannelProblem, type ChannelSocket } from './open.ts';

const contract = channelContract({
  name: 'test',
  requests: {
    add: call(z.strictObject({ a: z.number(), b: z.number() }), z.strictObject({ sum: z.number() })),
    ping: call(noPayload, noAnswer),
  },
  events: { tick: z.strictObject({ n: z.number().int() }) },
});

/** The minimal socket, by hand: what openChannel asks of any socket. */
function fakeSocket() {
  const listeners = new Map<string, Set<(...args: unknown[]) => void>>();
  const sent: { event: string; payload: unknown; ms: number; ack: (err: Error | null, answer?: unknown) => void }[] = [];
  const socket: ChannelSocket & { connected: boolean } = {
    connected: true,
    on: (event, l) => listeners.set(event, (listeners.get(event) ?? new Set()).add(l)),
    off: (event, l) => listeners.get(event)?.delete(l!),
    timeout: (ms) => ({ emit: (event, payload, ack) => sent.push({ event, payload, ms, ack }) }),
  };
  const fire = (event: string, payload: unknown) => listeners.get(event)?.forEach((l) => l(payload));
  return { socket, sent, fire, listeners };
}

it('sends a request, waits as long as asked, and parses the answer by its schema', async () => {
  const { socket, sent } = fakeSocket();
  const problems: ChannelProblem[] = [];
  const channel = openChannel(contract, socket, { log: (p) => problems.push(p) });
  const good = channel.request('add', { a: 1, b: 2 });
  expect(sent[0]).toMatchObject({ event: 'add', payload: { a: 1, b: 2 }, ms: DEFAULT_TIMEOUT_MS });
  sent[0]!.ack(null, { code: '0', msg: 'ok', data: { sum: 3 } });
  await expect(good).resolves.toEqual({ code: '0', msg: 'ok', data: { sum: 3 } });

  const refused = channel.request('add', { a: 1, b: 2 }, { timeoutMs: 50 });
  expect(sent[1]!.ms).toBe(50);
  sent[1]!.ack(null, { code: '5', msg: 'Illegal parameters' });
  await expect(refused).resolves.toEqual({ code: '5', msg: 'Illegal parameters' });

  const late = channel.request('add', { a: 1, b: 2 });
  sent[2]!.ack(new Error('operation has timed out'));
  await expect(late).resolves.toEqual({ code: CHANNEL_OFFLINE, msg: '' });

  const broken = channel.request('add', { a: 1, b: 2 });
  sent[3]!.ack(null, { code: '0', msg: '', data: { sum: 'three' } });
  await expect(broken).resolves.toEqual({ code: CHANNEL_BAD_ANSWER, msg: '' });
  const shapeless = channel.request('ping', {});
  sent[4]!.ack(null, 'yes');
  await expect(shapeless).resolves.toEqual({ code: CHANNEL_BAD_ANSWER, msg: '' });
  // An answer without data is null, which is what noAnswer says.
  const pinged = channel.request('ping', {});
  sent[5]!.ack(null, { code: '0', msg: '' });
  await expect(pinged).resolves.toEqual({ code: '0', msg: '', data: null });
  expect(problems.map((p) => [p.kind, p.name])).toEqual([
    ['answer', 'add'],
    ['answer', 'ping'],
  ]);

  socket.connected = false;
  await expect(channel.request('add', { a: 1, b: 2 })).resolves.toEqual({ code: CHANNEL_OFFLINE, msg: '' });
  expect(sent).toHaveLength(6);
  expect(channel.connected).toBe(false);
});

it('parses each event, drops a bad one (even when the log throws), and close() takes its listeners away', () => {
  const { socket, fire, listeners } = fakeSocket();
  const seen: number[] = [];
  let logged = 0;
  const channel = openChannel(contract, socket, {
    log: () => {
      logged += 1;
      throw new Error('the log is down');
    },
  });
  const off = channel.on('tick', ({ n }) => seen.push(n));
  channel.on('tick', ({ n }) => seen.push(n * 10));
  fire('tick', { n: 1.5 });
  fire('tick', { n: 2 });
  expect(seen).toEqual([2, 20]);
  expect(logged).toBe(1);
  off();
  fire('tick', { n: 3 });
  expect(seen).toEqual([2, 20, 30]);
  channel.close();
  fire('tick', { n: 4 });
  expect(seen).toEqual([2, 20, 30]);
  expect([...listeners.values()].every((s) => s.size === 0)).toBe(true);
});

it('puts a request in its envelope when the contract says how (the media signaling)', () => {
  const { socket, sent } = fakeSocket();
  const enveloped = channelContract({ ...contract, wire: (type, payload) => ['req', { v: 1, type, ...(payload as object) }] });
  openChannel(enveloped, socket, { log: () => undefined }).send('add', { a: 1, b: 2 });
  expect(sent[0]).toMatchObject({ event: 'req', payload: { v: 1, type: 'add', a: 1, b: 2 } });
});
