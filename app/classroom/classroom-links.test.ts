/**
 * The rules behind the classroom's links out and the download pages' store list (ADR 103): when a
 * room counts as a full free room, what SERVICE_URL accepts, and the order stores are offered in.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '#core/platform/config.ts';
import { parseUa } from '#app/lib/ua.ts';
import { orderedStores, type StoreKey } from '#app/site/stores.ts';
import { freeRoomFull } from '#core/rooms/capabilities.ts';

describe('freeRoomFull', () => {
  // roomType, isVIP, maxMember, participants, full
  const table: Array<[number, '0' | '1', number, number, boolean]> = [
    [1, '0', 2, 1, false], // a free mini class with a seat left
    [1, '0', 2, 2, true], // a free mini class full
    [1, '0', 4, 4, true], // during the 10-minute trial, full at its larger cap
    [1, '1', 4, 4, false], // a paid mini class: nothing to upgrade here
    [4, '0', 2, 2, true], // a free large class full
    [4, '1', 30, 30, false], // a large class of a package
    [2, '0', 200, 200, false], // whiteboard: one cap for everyone
    [3, '0', 3, 3, false], // audio: one cap for everyone
  ];
  it.each(table)('type %i, isVIP %s, %i seats, %i taken: %s', (roomType, isVIP, maxMember, participants, full) => {
    expect(freeRoomFull({ roomType, isVIP, maxMember }, participants)).toBe(full);
  });
});

describe('SERVICE_URL', () => {
  it('is unset by default and takes an http(s) address', () => {
    expect(loadConfig({}).SERVICE_URL).toBeUndefined();
    expect(loadConfig({ SERVICE_URL: 'https://help.example.com/chat' }).SERVICE_URL).toBe('https://help.example.com/chat');
  });
  it.each(['javascript:alert(1)', 'mailto:help@example.com', 'help.example.com'])('refuses %s', (value) => {
    expect(() => loadConfig({ SERVICE_URL: value })).toThrow(ConfigError);
  });
});

describe('orderedStores', () => {
  const all: Record<StoreKey, string | null> = { iphone: 'https://a/iphone', ipad: 'https://a/ipad', android: 'https://a/android' };
  const keys = (ua: string, urls = all) => orderedStores(parseUa(ua), urls).map((s) => s.key);
  const IPHONE =
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
  const IPAD =
    'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
  const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
  const WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

  it("puts this device's own store first", () => {
    expect(keys(IPHONE)).toEqual(['iphone', 'ipad', 'android']);
    expect(keys(IPAD)).toEqual(['ipad', 'iphone', 'android']);
    expect(keys(ANDROID)).toEqual(['android', 'iphone', 'ipad']);
    expect(keys(WINDOWS)).toEqual(['iphone', 'ipad', 'android']);
  });
  it('leaves out a store without an address', () => {
    expect(keys(IPHONE, { ...all, iphone: null })).toEqual(['ipad', 'android']);
    expect(keys(WINDOWS, { iphone: null, ipad: null, android: null })).toEqual([]);
  });
});
