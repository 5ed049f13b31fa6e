import { describe, expect, it } from 'vitest';
import { LocalRoomChangeRelay, RoomCache } from './room-state.ts';

function setup(ttlMs = 1000) {
  const relay = new LocalRoomChangeRelay();
  let now = 1_000_000;
  const cache = new RoomCache<string>({ onChange: (l) => relay.subscribe(l) }, ttlMs, 2, () => now);
  let reads = 0;
  const load = (value: string) => () => {
    reads++;
    return Promise.resolve(value);
  };
  return { relay, cache, load, reads: () => reads, advance: (ms: number) => (now += ms) };
}

describe('RoomCache', () => {
  it('keeps an entry for its time to live and drops it when the room changes', async () => {
    const { relay, cache, load, reads, advance } = setup();
    expect(await cache.get('123456', load('a'))).toBe('a');
    expect(await cache.get('123456', load('b'))).toBe('a');
    expect(reads()).toBe(1);
    relay.publish({ roomNumber: '123456', fields: ['wb_power'] });
    expect(await cache.get('123456', load('c'))).toBe('c');
    // Another room's change leaves it; so does a housekeeping touch alone.
    relay.publish({ roomNumber: '654321', fields: ['state'] });
    relay.publish({ roomNumber: '123456', fields: ['last_active_at'] });
    expect(await cache.get('123456', load('d'))).toBe('c');
    advance(1000);
    expect(await cache.get('123456', load('e'))).toBe('e');
    expect(reads()).toBe(3);
  });

  it('a change heard while a read runs keeps that read from later readers', async () => {
    const { relay, cache } = setup();
    let finish: (v: string) => void = () => undefined;
    const slow = cache.get('123456', () => new Promise<string>((r) => (finish = r)));
    relay.publish({ roomNumber: '123456', fields: ['show_state'] });
    finish('old');
    expect(await slow).toBe('old');
    expect(await cache.get('123456', () => Promise.resolve('new'))).toBe('new');
  });

  it('does not keep a failure, and holds at most `max` rooms', async () => {
    const { cache, load, reads } = setup();
    await expect(cache.get('123456', () => Promise.reject(new Error('gone')))).rejects.toThrow('gone');
    expect(await cache.get('123456', load('a'))).toBe('a');
    await cache.get('222222', load('b'));
    await cache.get('333333', load('c'));
    expect(await cache.get('123456', load('again'))).toBe('again');
    expect(reads()).toBe(4);
  });

  it('with a time to live of 0 reads every time', async () => {
    const { cache, load, reads } = setup(0);
    await cache.get('123456', load('a'));
    await cache.get('123456', load('a'));
    expect(reads()).toBe(2);
  });
});
