/**
 * Token buckets kept in Redis (ADR 096): the same rule as `TokenBuckets`
 * (core/platform/memory-rate-limit.ts), one atomic script per hit, so a person's hits count the
 * same whichever web node they reach. While Redis does not answer, each node counts in its own
 * memory (logged once), as with one node.
 */
import type { Redis } from 'ioredis';
import { TokenBuckets } from '#core/platform/memory-rate-limit.ts';
import type { Clock } from '#core/platform/clock.ts';
import type { Logger } from '#core/platform/logger.ts';
import { openClient, quit, ready } from './redis.ts';

/** KEYS[1] the bucket; ARGV capacity, tokens per ms, now (ms). Answers 1 when a token was taken. */
const TAKE = `
local cap = tonumber(ARGV[1])
local perMs = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local b = redis.call('HMGET', KEYS[1], 't', 'a')
local tokens = tonumber(b[1])
local at = tonumber(b[2])
if tokens == nil or at == nil then tokens = cap; at = now end
if now > at then
  tokens = math.min(cap, tokens + (now - at) * perMs)
  at = now
end
local ok = 0
if tokens >= 1 then
  tokens = tokens - 1
  ok = 1
end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'a', tostring(at))
redis.call('PEXPIRE', KEYS[1], math.ceil(cap / perMs) + 1000)
return ok`;

export interface SharedBuckets {
  take(key: string): Promise<boolean>;
  close(): Promise<void>;
}

export async function connectRedisBuckets(
  url: string,
  name: string,
  clock: Clock,
  capacity: number,
  perMs: number,
  logger: Logger,
): Promise<SharedBuckets> {
  const client: Redis = openClient(url, logger, `buckets-${name}`, { enableOfflineQueue: false, maxRetriesPerRequest: 1 }, 'warn');
  await ready(client, logger, `buckets-${name}`);
  const local = new TokenBuckets(clock, capacity, perMs);
  let failing = false;
  return {
    async take(key) {
      const now = clock.now().getTime();
      try {
        const ok = (await client.eval(TAKE, 1, `banshu:bucket:${name}:${key}`, capacity, perMs, now)) === 1;
        failing = false;
        return ok;
      } catch (err) {
        if (!failing) logger.warn({ err, bucket: name }, 'shared rate limit unreachable; counting on this node');
        failing = true;
        return local.take(key);
      }
    },
    close: () => quit(client),
  };
}
