import { describe, expect, it } from 'vitest';
import { newToken, TOKEN_RULE, TokenSigner } from './secrets.ts';

describe('TokenSigner', () => {
  const signer = new TokenSigner('k'.repeat(64));
  const now = Date.UTC(2026, 10, 22);

  it('round-trips a payload until it expires', () => {
    const t = signer.sign({ room: '123456', uid: '7' }, 60, now);
    expect(signer.verify(t, now + 59_000)).toMatchObject({ room: '123456', uid: '7' });
    expect(signer.verify(t, now + 61_000)).toBeNull();
  });

  it('refuses tampering, other keys and junk', () => {
    const t = signer.sign({ room: '123456', uid: '7' }, 60, now);
    const [body, sig] = t.split('.') as [string, string];
    const forgedBody = Buffer.from(JSON.stringify({ room: '123456', uid: '1', exp: 9e9 })).toString('base64url');
    expect(signer.verify(`${forgedBody}.${sig}`, now)).toBeNull();
    expect(signer.verify(`${body}.${sig.slice(0, -1)}A`, now)).toBeNull();
    expect(new TokenSigner('x'.repeat(64)).verify(t, now)).toBeNull();
    for (const junk of ['', '.', 'a.b.c', 'x'.repeat(5000), `${body}.`]) expect(signer.verify(junk, now)).toBeNull();
  });

  it('makes 256-bit session tokens', () => {
    const a = newToken();
    expect(a).toMatch(TOKEN_RULE);
    expect(newToken()).not.toBe(a);
  });
});
