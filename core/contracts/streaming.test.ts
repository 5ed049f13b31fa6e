import { describe, expect, it } from 'vitest';
import { ingestUrlProblem, pushUrl, streamKeyProblem, streamKeySchema, STREAM_KEY_MALFORMED } from './streaming.ts';

describe('the stream key rule', () => {
  it.each([
    ['abcd-efgh-ijkl-mnop', null],
    ['ABCD-1234', null],
    ['  a1b2-c3d4-e5f6-g7h8-i9j0  ', null],
    ['', 'empty'],
    ['   ', 'empty'],
    ['abcd', 'malformed'],
    ['abcd-efg', 'malformed'],
    ['abcd--efgh', 'malformed'],
    ['abcd-efgh-', 'malformed'],
    ['abcd_efgh', 'malformed'],
    ['abcd-efgh-ijkl-mnop-qrst-uvwx-yz12-3456-7890', 'malformed'],
    ['ａｂｃｄ-ｅｆｇｈ', 'malformed'], // full-width letters
    ['abcd-efgh\n', null],
    ['abcd-ef\u200bgh', 'malformed'], // a zero-width space inside
    ['abcd-efgh/../x', 'malformed'],
  ])('%j -> %s', (key, problem) => {
    expect(streamKeyProblem(key)).toBe(problem);
  });

  it('is the same rule in the schema the server parses with, which trims', () => {
    expect(streamKeySchema.parse(' abcd-efgh ')).toBe('abcd-efgh');
    const bad = streamKeySchema.safeParse('abcd');
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toBe(STREAM_KEY_MALFORMED);
    expect(streamKeySchema.safeParse('a'.repeat(65)).success).toBe(false);
  });
});

describe('ingest addresses', () => {
  it.each([
    ['rtmp://a.rtmp.youtube.com/live2', null],
    ['rtmps://live-api-s.facebook.com:443/rtmp/', null],
    ['http://example.com/live', 'not rtmp:// or rtmps://'],
    ['rtmp://example.com', 'no application path'],
    ['rtmp://user:pw@example.com/live', 'credentials in the URL'],
    ['rtmp://example.com/live?x=1', 'a query or fragment'],
    ['not a url', 'not a URL'],
  ])('%s -> %s', (url, problem) => {
    expect(ingestUrlProblem(url)).toBe(problem);
  });

  it('puts the key last', () => {
    expect(pushUrl('rtmp://127.0.0.1:1935/live/', ' abcd-efgh ')).toBe('rtmp://127.0.0.1:1935/live/abcd-efgh');
  });
});
