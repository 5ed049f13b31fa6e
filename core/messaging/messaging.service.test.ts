import { describe, expect, it } from 'vitest';
import { captchaSvg, newCaptchaCode } from './captcha.ts';
import { normaliseFeedback } from './messaging.service.ts';

describe('normaliseFeedback', () => {
  it('collapses white space and keeps single line breaks', () => {
    expect(normaliseFeedback('  a \t  b  ')).toBe('a b');
    expect(normaliseFeedback('one\r\n\r\n  two \n\nthree')).toBe('one\ntwo\nthree');
    expect(normaliseFeedback(' \n \t ')).toBe('');
  });
});

describe('captcha', () => {
  it('draws four digits, each once, in order, in an SVG', () => {
    const code = newCaptchaCode();
    expect(code).toMatch(/^\d{4}$/);
    const svg = captchaSvg(code);
    expect(svg.startsWith('<svg')).toBe(true);
    expect([...svg.matchAll(/>(\d)<\/text>/g)].map((m) => m[1]).join('')).toBe(code);
    expect(() => captchaSvg('12a4')).toThrow();
  });
});
