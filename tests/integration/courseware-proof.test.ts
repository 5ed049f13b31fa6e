/**
 * Proof of possession for hash reuse (ADR 069): knowing a document's MD5 is not having the file.
 * User B, who knows A's hash but not the bytes, can neither register A's stored file nor download
 * it; with the bytes, B answers the challenge (a hash over a random range) and reuses it at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Converter } from '#core/courseware/converter.ts';
import { HASH_CHALLENGE_MAX_BYTES, HASH_CHALLENGE_TTL_SECONDS } from '#core/contracts/courseware.ts';
import { call, signIn } from '#tests/support/api.ts';
import { answerChallenge, makePdf, md5, testConverter, uploadCourseware } from '#tests/support/courseware.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';
import { until } from '#tests/support/until.ts';

let s: TestServer;
let converter: Converter;

beforeAll(async () => {
  ({ converter } = await testConverter());
  s = await startTestServer({ overrides: { jobs: true, converter } });
}, 60_000);

afterAll(async () => {
  await s?.close();
});

/** A's converted document of `bytes`. */
async function stored(token: string, bytes: Uint8Array, name: string): Promise<string> {
  const up = await uploadCourseware(s.url, token, bytes, name);
  expect(up.add.code).toBe('0');
  const id = up.add.data.documentId;
  await until(
    'the document converted',
    async () =>
      (await call(s.url, 'getMyDocumentList', {}, { token })).data.documentList.find((d: { documentId: string }) => d.documentId === id),
    (doc: { status: number } | undefined) => doc?.status === 3,
    { timeoutMs: 60_000, everyMs: 100 },
  );
  return id;
}

const register = (token: string, fileHash: string, extra: Record<string, string> = {}) =>
  call(s.url, 'addRoomDocument', { documentSource: '', documentName: 'mine.pdf', fileHash, documentType: 1, ...extra }, { token });

describe('reusing another user’s stored file by its hash', () => {
  it('needs the bytes: a hash alone registers nothing and downloads nothing; the answer over the range does', async () => {
    const a = await signIn(s);
    const b = await signIn(s);
    // Longer than one challenge range (long lines of text), so the range is a part of the file at a random place.
    const pdf = makePdf(100, { label: 'Secret '.repeat(100) });
    expect(pdf.byteLength).toBeGreaterThan(HASH_CHALLENGE_MAX_BYTES);
    const hash = md5(pdf);
    const aDoc = await stored(a.token, pdf, 'secret.pdf');

    // B knows the hash only.
    const check = await call(s.url, 'checkFileHash', { fileHash: hash }, { token: b.token });
    expect(check.data).toMatchObject({ fileExist: true, documentInfo: null });
    const challenge = check.data.challenge!;
    expect(challenge.length).toBe(HASH_CHALLENGE_MAX_BYTES);
    expect(challenge.offset).toBeGreaterThanOrEqual(0);
    expect(challenge.offset + challenge.length).toBeLessThanOrEqual(pdf.byteLength);
    expect(challenge.expiresAt).toBeGreaterThan(Date.now());
    expect((await register(b.token, hash)).code).toBe('34015');
    // Guesses: the whole file's hash, an answer over other bytes of the right length.
    expect((await register(b.token, hash, { nonce: challenge.nonce, rangeHash: hash })).code).toBe('34015');
    const guess = answerChallenge(challenge, new Uint8Array(pdf.byteLength));
    expect((await register(b.token, hash, guess)).code).toBe('34015');
    // A's document is not B's to download, and B's library stays empty.
    expect((await call(s.url, 'getDocumentDownloadUrl', { documentId: aDoc }, { token: b.token })).code).toBe('34006');
    expect((await call(s.url, 'getMyDocumentList', {}, { token: b.token })).data.total).toBe(0);

    // B with the bytes: registered at once (no upload, no conversion), and the download is the file.
    const right = answerChallenge(challenge, pdf);
    // The nonce names its user: C cannot use B's answer.
    const c = await signIn(s);
    expect((await register(c.token, hash, right)).code).toBe('34015');
    const reused = await register(b.token, hash, right);
    expect(reused.code).toBe('0');
    expect(reused.data).toMatchObject({ documentStatus: 3 });
    expect(reused.data.documentId).not.toBe(aDoc);
    const link = await call(s.url, 'getDocumentDownloadUrl', { documentId: reused.data.documentId }, { token: b.token });
    expect(link.code).toBe('0');
    expect(md5(new Uint8Array(await (await fetch(link.data.url)).arrayBuffer()))).toBe(hash);
  }, 120_000);

  it('a small file is challenged whole, salted by the nonce; a nonce expires; the user’s own documents need none', async () => {
    const a = await signIn(s);
    const b = await signIn(s);
    const pdf = makePdf(1, { label: 'Small' });
    const hash = md5(pdf);
    await stored(a.token, pdf, 'small.pdf');
    const check = await call(s.url, 'checkFileHash', { fileHash: hash }, { token: b.token });
    expect([check.data.challenge!.offset, check.data.challenge!.length]).toEqual([0, pdf.byteLength]);
    // The whole file's MD5 is known to anyone who knows the hash: it is not the answer.
    expect((await register(b.token, hash, { nonce: check.data.challenge!.nonce, rangeHash: hash })).code).toBe('34015');
    // Expired: the same right answer, past the nonce's life.
    s.clock.advance((HASH_CHALLENGE_TTL_SECONDS + 1) * 1000);
    expect((await register(b.token, hash, answerChallenge(check.data.challenge!, pdf))).code).toBe('34015');
    const fresh = await call(s.url, 'checkFileHash', { fileHash: hash }, { token: b.token });
    expect((await register(b.token, hash, answerChallenge(fresh.data.challenge!, pdf))).code).toBe('0');
    // Own documents: found by the hash with no challenge, registered again as they are.
    const own = await call(s.url, 'checkFileHash', { fileHash: hash }, { token: a.token });
    expect(own.data).toMatchObject({ fileExist: true, challenge: null });
    expect((await register(a.token, hash)).code).toBe('0');
  }, 120_000);
});
