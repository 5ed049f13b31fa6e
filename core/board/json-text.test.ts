import { describe, expect, it } from 'vitest';
import { JsonText, spliceJsonText } from './json-text.ts';

describe('JsonText', () => {
  const state = '{"page":"wb:0","seq":3,"items":[{"id":"a","uid":"1","data":{"kind":"text","text":"say \\"hi\\"","x":1,"y":2}}]}';
  const answer = { code: '0', msg: 'ok', data: { state: new JsonText(state), ops: [{ seq: 4, text: '\u0000json-text:0' }] } };

  it('serialises as the JSON it holds, parsed, under a plain JSON.stringify', () => {
    expect(JSON.parse(JSON.stringify(answer))).toEqual({ ...answer, data: { ...answer.data, state: JSON.parse(state) } });
  });

  it('is spliced in as its text, unparsed, by spliceJsonText; other parts are left alone', () => {
    const parse = JSON.parse;
    let parsed = 0;
    JSON.parse = ((...a: Parameters<typeof parse>) => (parsed++, parse(...a))) as typeof JSON.parse;
    let out: Array<string | Uint8Array>;
    try {
      out = spliceJsonText(() => [`3/board,7${JSON.stringify([answer])}`, new Uint8Array([1])]);
    } finally {
      JSON.parse = parse;
    }
    expect(parsed).toBe(0);
    expect(out[1]).toEqual(new Uint8Array([1]));
    expect(out[0]).toContain(`"state":${state},`);
    expect(parse((out[0] as string).slice('3/board,7'.length))).toEqual(JSON.parse(JSON.stringify([answer])));
  });

  it('a string that looks like a placeholder stays a string', () => {
    const text = new JsonText('[1,2]');
    const [s] = spliceJsonText(() => [JSON.stringify({ a: text, b: '\u0000json-text:x:0', c: [text] })]);
    expect(JSON.parse(s!)).toEqual({ a: [1, 2], b: '\u0000json-text:x:0', c: [[1, 2]] });
  });
});
