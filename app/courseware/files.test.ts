import { describe, expect, it } from 'vitest';
import SparkMD5 from 'spark-md5';
import { createHash } from 'node:crypto';
import { COURSEWARE_MAX_BYTES } from '#core/contracts/courseware.ts';
import { acceptAttribute, checkCoursewareFile, percent, uploadName } from './files.ts';
import { Readable } from 'node:stream';
import { rangeAnswer } from '#core/courseware/courseware-library.ts';
import { answerChallenge, hashFile } from './hash.ts';

describe('courseware file checks', () => {
  it('accepts by extension or by mime, case-insensitive', () => {
    expect(checkCoursewareFile({ name: 'Deck.PPTX', type: '', size: 10 }, false)).toMatchObject({
      ok: true,
      extension: 'pptx',
      documentType: 1,
    });
    expect(checkCoursewareFile({ name: 'blob', type: 'application/PDF', size: 10 }, false)).toMatchObject({ ok: true, extension: 'pdf' });
    expect(checkCoursewareFile({ name: 'a.txt', type: 'text/plain', size: 10 }, false)).toEqual({ ok: false, reason: 'type' });
  });
  it('takes mp4 only where video is allowed', () => {
    expect(checkCoursewareFile({ name: 'a.mp4', type: 'video/mp4', size: 10 }, false)).toEqual({ ok: false, reason: 'type' });
    expect(checkCoursewareFile({ name: 'a.MP4', type: '', size: 10 }, true)).toMatchObject({ ok: true, documentType: 3 });
    expect(acceptAttribute(false)).not.toContain('mp4');
    expect(acceptAttribute(true)).toContain('.mp4');
  });
  it('refuses more than 50,000,000 bytes and empty files', () => {
    expect(checkCoursewareFile({ name: 'a.pdf', type: '', size: COURSEWARE_MAX_BYTES }, false).ok).toBe(true);
    expect(checkCoursewareFile({ name: 'a.pdf', type: '', size: COURSEWARE_MAX_BYTES + 1 }, false)).toEqual({ ok: false, reason: 'size' });
    expect(checkCoursewareFile({ name: 'a.pdf', type: '', size: 0 }, false)).toEqual({ ok: false, reason: 'empty' });
  });
  it('names the upload with the accepted extension', () => {
    expect(uploadName('课件.PPTX', 'pptx')).toBe('课件.PPTX');
    expect(uploadName('blob', 'pdf')).toBe('blob.pdf');
    expect(uploadName('a/b.pdf', 'pdf')).toBe('a_b.pdf');
  });
  it('reports whole percents', () => {
    expect(percent(1, 3)).toBe(33);
    expect(percent(5, 0)).toBe(0);
    expect(percent(9, 3)).toBe(100);
  });
});

describe('hashing in slices', () => {
  it('gives the MD5 of the whole file, with progress per slice', async () => {
    const bytes = new Uint8Array(5 * 1024 * 1024 + 123);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31 + (i >> 9)) & 255;
    const steps: number[] = [];
    const hash = await hashFile(
      new Blob([bytes]),
      2 * 1024 * 1024,
      () => new SparkMD5.ArrayBuffer(),
      (done) => steps.push(done),
    );
    expect(hash).toBe(createHash('md5').update(bytes).digest('hex'));
    expect(steps).toEqual([0, 2 * 1024 * 1024, 4 * 1024 * 1024, bytes.length]);
  });
});

describe('the answer to a hash challenge (ADR 069)', () => {
  it('is what the server computes over its stored copy, and differs for other bytes or another nonce', async () => {
    const bytes = new Uint8Array(300_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7 + (i >> 11)) & 255;
    const challenge = { offset: 123_457, length: 65_536, nonce: 'body.sig' };
    const mine = await answerChallenge(new Blob([bytes]), challenge);
    // The server reads its copy as a stream of uneven chunks.
    const chunks = [bytes.subarray(0, 100_000), bytes.subarray(100_000, 150_001), bytes.subarray(150_001)].map((c) => Buffer.from(c));
    expect(await rangeAnswer(Readable.from(chunks), challenge.nonce, challenge.offset, challenge.length)).toBe(mine.rangeHash);
    expect(mine).toEqual({
      nonce: 'body.sig',
      rangeHash: createHash('md5').update('body.sig').update(bytes.subarray(123_457, 188_993)).digest('hex'),
    });
    const other = bytes.slice();
    other[150_000] = (bytes[150_000]! + 1) & 255;
    expect((await answerChallenge(new Blob([other]), challenge)).rangeHash).not.toBe(mine.rangeHash);
    expect((await answerChallenge(new Blob([bytes]), { ...challenge, nonce: 'other.sig' })).rangeHash).not.toBe(mine.rangeHash);
    // A file shorter than the range has no answer.
    await expect(answerChallenge(new Blob([bytes.subarray(0, 150_000)]), challenge)).rejects.toThrow();
    expect(await rangeAnswer(Readable.from([Buffer.from(bytes.subarray(0, 150_000))]), 'n', 123_457, 65_536)).toBeNull();
  });
});
