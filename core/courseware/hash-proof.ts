/**
 * A hash is no proof of having a file (ADR 069). Reusing a file another user stored, by its MD5,
 * needs the answer to a challenge: the MD5 of a signed nonce followed by a random range of the
 * file's bytes, checked here against the stored bytes. Split out of the courseware library
 * (issue 29): the library asks `challenge` when it answers checkFileHash and `proves` when it
 * registers a hash match.
 */
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Clock } from '../platform/clock.ts';
import type { ObjectStore } from '../platform/objects.ts';
import { safeEqual, type TokenSigner } from '../platform/secrets.ts';
import { HASH_CHALLENGE_MAX_BYTES, HASH_CHALLENGE_TTL_SECONDS, type HashChallenge } from '../contracts/courseware.ts';
import type { DocumentRow } from './document.repository.ts';

/** What a challenge nonce carries (signed, ADR 069): whose answer, for which file and range. */
interface ChallengeClaims extends Record<string, unknown> {
  p: 'hash-challenge';
  u: string;
  h: string;
  o: number;
  l: number;
}

/**
 * The answer to a challenge over a stream of the file: MD5 of the nonce's characters, then the
 * bytes [offset, offset + length). Reads no further than the range's end.
 */
export async function rangeAnswer(stream: AsyncIterable<unknown> & { destroy?(): void }, nonce: string, offset: number, length: number) {
  const hash = createHash('md5').update(nonce, 'utf8');
  const end = offset + length;
  let at = 0;
  let seen = 0;
  try {
    for await (const chunk of stream) {
      const buf = chunk as Buffer;
      const from = Math.max(offset - at, 0);
      const to = Math.min(end - at, buf.length);
      if (to > from) {
        hash.update(buf.subarray(from, to));
        seen += to - from;
      }
      at += buf.length;
      if (at >= end) break;
    }
  } finally {
    stream.destroy?.();
  }
  return seen === length ? hash.digest('hex') : null;
}

/** The MD5 of a whole file on disk (a conversion checks the stored original against the registered hash). */
export async function md5File(file: string): Promise<string> {
  const hash = createHash('md5');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export class HashProof {
  readonly #signer: TokenSigner;
  readonly #objects: ObjectStore;
  readonly #clock: Clock;

  constructor(signer: TokenSigner, objects: ObjectStore, clock: Clock) {
    this.#signer = signer;
    this.#objects = objects;
    this.#clock = clock;
  }

  /** A random range of the file (at most HASH_CHALLENGE_MAX_BYTES) and a signed nonce naming it, the caller and the file. */
  challenge(userId: string, fileHash: string, size: number): HashChallenge {
    const length = Math.min(size, HASH_CHALLENGE_MAX_BYTES);
    const offset = randomInt(0, size - length + 1);
    const now = this.#clock.now().getTime();
    const claims: ChallengeClaims = { p: 'hash-challenge', u: userId, h: fileHash, o: offset, l: length };
    // The random part makes two challenges of one range differ: an answer seen once is no answer later.
    const nonce = this.#signer.sign({ ...claims, r: randomBytes(12).toString('base64url') }, HASH_CHALLENGE_TTL_SECONDS, now);
    return { offset, length, nonce, expiresAt: now + HASH_CHALLENGE_TTL_SECONDS * 1000 };
  }

  /** Whether `rangeHash` answers `nonce` for this caller and file, checked against the stored bytes. */
  async proves(
    userId: string,
    doc: Pick<DocumentRow, 'source_key'>,
    input: { fileHash: string; nonce?: string | undefined; rangeHash?: string | undefined },
  ): Promise<boolean> {
    if (!input.nonce || !input.rangeHash) return false;
    const c = this.#signer.verify<ChallengeClaims>(input.nonce, this.#clock.now().getTime());
    if (!c || c.p !== 'hash-challenge' || c.u !== userId || c.h !== input.fileHash) return false;
    if (!Number.isSafeInteger(c.o) || !Number.isSafeInteger(c.l) || c.l < 1 || c.l > HASH_CHALLENGE_MAX_BYTES) return false;
    const object = await this.#objects.get(doc.source_key);
    if (!object) return false;
    const expected = await rangeAnswer(object.stream, input.nonce, c.o, c.l);
    return expected !== null && safeEqual(expected, input.rangeHash);
  }
}
