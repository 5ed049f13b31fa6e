import { describe, expect, it } from 'vitest';
import { checkName, cleanRoomNumber, isValidRoomNumber, loginPath, safeRedirect, studioNumber } from './names.ts';

describe('checkName (docs/product/decisions.md name rule)', () => {
  it.each([
    ['  Li Lei ', { ok: true, name: 'Li Lei' }],
    ['王老师', { ok: true, name: '王老师' }],
    ['Teacher 12', { ok: true, name: 'Teacher 12' }],
    ['   ', { ok: false, reason: 'empty' }],
    ['Li  Lei', { ok: false, reason: 'invalid' }],
    ['<script>', { ok: false, reason: 'invalid' }],
    ['abcdefghijk', { ok: false, reason: 'invalid' }],
  ] as const)('%j', (raw, expected) => {
    expect(checkName(raw)).toEqual(expected);
  });
});

describe('join box and redirects', () => {
  it('keeps letters and digits, at most 10, and wants at least 6', () => {
    expect(cleanRoomNumber(' 12-34 56ab cdef')).toBe('123456abcd');
    expect(isValidRoomNumber('12345')).toBe(false);
    expect(isValidRoomNumber('123456')).toBe(true);
  });
  it('remembers only same-site paths', () => {
    expect(safeRedirect('/live/123456')).toBe('/live/123456');
    expect(safeRedirect('//evil.example/x')).toBe('/');
    expect(safeRedirect('https://evil.example/')).toBe('/');
    expect(safeRedirect('/\\evil.example')).toBe('/');
    expect(safeRedirect(null)).toBe('/');
    expect(loginPath('/live/123456')).toBe('/login?redirect=/live/123456');
  });
  it('makes 8-digit studio numbers', () => {
    for (let i = 0; i < 20; i++) expect(studioNumber()).toMatch(/^[1-9]\d{7}$/);
  });
});
