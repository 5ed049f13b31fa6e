import { describe, expect, it } from 'vitest';
import { CUSTOM_PLATFORM, customPushUrlProblem, STREAM_KEY_EMPTY, STREAM_KEY_MALFORMED } from '#core/contracts/streaming.ts';
import { errorCatalogue } from '#core/platform/errors.ts';
import { liveEn } from '#app/i18n/live.en.ts';
import { liveZh } from '#app/i18n/live.zh.ts';
import { failureMessage, fieldMessageOfCode, formatKbps, formatLiveClock, liveButtonView, liveFieldProblem } from './live-format.ts';
import { liveText } from './live-text.ts';

describe('formatLiveClock', () => {
  it('is hh:mm:ss, hours counting past a day', () => {
    expect(formatLiveClock(0)).toBe('00:00:00');
    expect(formatLiveClock(999)).toBe('00:00:00');
    expect(formatLiveClock(12 * 60_000 + 34_000)).toBe('00:12:34');
    expect(formatLiveClock(3_600_000 + 61_000)).toBe('01:01:01');
    expect(formatLiveClock(25 * 3_600_000)).toBe('25:00:00');
    expect(formatLiveClock(-5000)).toBe('00:00:00');
  });
});

describe('formatKbps', () => {
  it('shows kbit/s below a megabit and Mbit/s with one decimal above', () => {
    expect(formatKbps(2900)).toBe('2.9 Mbit/s');
    expect(formatKbps(3000)).toBe('3.0 Mbit/s');
    expect(formatKbps(2949)).toBe('2.9 Mbit/s');
    expect(formatKbps(1000)).toBe('1.0 Mbit/s');
    expect(formatKbps(999)).toBe('999 kbit/s');
    expect(formatKbps(128)).toBe('128 kbit/s');
  });
  it('is null (unknown) for 0 or nonsense', () => {
    expect(formatKbps(0)).toBeNull();
    expect(formatKbps(-3)).toBeNull();
    expect(formatKbps(Number.NaN)).toBeNull();
  });
});

describe('the key and address checks', () => {
  it("a named platform's key: empty, malformed, or fine (spaces of the paste ignored)", () => {
    expect(liveFieldProblem('YouTube', '')).toBe('keyEmpty');
    expect(liveFieldProblem('YouTube', '   ')).toBe('keyEmpty');
    expect(liveFieldProblem('YouTube', 'abcd')).toBe('keyMalformed');
    expect(liveFieldProblem('YouTube', 'abcd-efg')).toBe('keyMalformed');
    expect(liveFieldProblem('YouTube', 'abcd_efgh')).toBe('keyMalformed');
    expect(liveFieldProblem('YouTube', 'abcd-efgh-ijkl-mnop')).toBeNull();
    expect(liveFieldProblem('YouTube', ' AB12-cd34-EF56-gh78-ij90 ')).toBeNull();
  });
  it("'custom' takes a full rtmp:// or rtmps:// address with a path", () => {
    expect(liveFieldProblem(CUSTOM_PLATFORM, ' ')).toBe('addressEmpty');
    expect(liveFieldProblem(CUSTOM_PLATFORM, 'abcd-efgh-ijkl-mnop')).toBe('addressMalformed');
    expect(customPushUrlProblem('http://live.example.com/app/key')).toBe('malformed');
    expect(customPushUrlProblem('rtmp://live.example.com')).toBe('malformed');
    expect(customPushUrlProblem('rtmp://live.example.com/')).toBe('malformed');
    expect(customPushUrlProblem('rtmp:///app/key')).toBe('malformed');
    expect(customPushUrlProblem('rtmp://live.example.com/app/key')).toBeNull();
    expect(customPushUrlProblem('RTMPS://live.example.com:443/app/abcd-efgh')).toBeNull();
    // The server's rule, the same function: an application without a key is refused on both ends.
    expect(customPushUrlProblem('rtmp://live.example.com/app')).toBe('malformed');
    expect(customPushUrlProblem('rtmp://user:pw@live.example.com/app/key')).toBe('malformed');
  });
  it('the server codes of the field stay under it; the others go to the failure dialog', () => {
    expect(fieldMessageOfCode('38001')).toBe('keyMalformed');
    expect(fieldMessageOfCode('38006')).toBe('keyEmpty');
    expect(fieldMessageOfCode('38005')).toBe('addressMalformed');
    for (const code of ['38002', '38003', '31004', 'network']) expect(fieldMessageOfCode(code)).toBeNull();
  });
});

describe('the messages, in both languages', () => {
  it("the key's messages are the contract's words in English and the catalogue's in Chinese", () => {
    expect(liveText('en', 'keyEmpty')).toBe(STREAM_KEY_EMPTY);
    expect(liveText('en', 'keyEmpty')).toBe('Key can not null');
    expect(liveText('en', 'keyMalformed')).toBe(STREAM_KEY_MALFORMED);
    expect(liveText('zh', 'keyEmpty')).toBe(errorCatalogue['38006'].zh);
    expect(liveText('zh', 'keyMalformed')).toBe(errorCatalogue['38001'].zh);
  });
  it('failure reasons', () => {
    expect(liveText('en', failureMessage('refused'))).toBe('The platform refused the stream key');
    expect(liveText('en', failureMessage('unreachable'))).toBe('The platform could not be reached');
    expect(liveText('en', failureMessage('timeout'))).toBe('No recorder was available to start the live stream');
    expect(failureMessage('failed')).toBe('failure.failed');
    expect(failureMessage(undefined)).toBe('failure.failed');
    expect(liveText('zh', failureMessage('refused'))).toBe('直播平台拒绝了推流秘钥');
  });
  it('fills placeholders, and every string exists and differs from its key in both languages', () => {
    expect(liveText('en', 'loading.text', { platform: 'YouTube' })).toBe('Connecting to YouTube…');
    expect(liveText('zh', 'loading.text', { platform: 'B站' })).toBe('正在连接B站…');
    expect(liveText('en', 'button.liveName', { time: '00:12:34' })).toBe('Live 00:12:34, show the live stream');
    const keys = (o: object, prefix = ''): string[] =>
      Object.entries(o).flatMap(([k, v]) => (typeof v === 'string' ? [prefix + k] : keys(v as object, `${prefix}${k}.`)));
    expect(keys(liveEn)).toEqual(keys(liveZh));
    for (const key of keys(liveZh)) {
      for (const lang of ['zh', 'en'] as const) expect(liveText(lang, key as never)).not.toBe(key);
    }
  });
});

describe('liveButtonView', () => {
  it("'0' start, '2' starting, '1' live with the time since it went live", () => {
    expect(liveButtonView('0', null, 5000)).toEqual({ kind: 'start', disabled: false });
    expect(liveButtonView('0', null, 5000, true)).toEqual({ kind: 'start', disabled: true });
    expect(liveButtonView('2', null, 5000, true)).toEqual({ kind: 'starting', disabled: false });
    expect(liveButtonView('1', 1000, 1000 + 754_000)).toEqual({ kind: 'live', disabled: false, elapsed: '00:12:34' });
    expect(liveButtonView('1', null, 9000)).toEqual({ kind: 'live', disabled: false, elapsed: '00:00:00' });
  });
});
