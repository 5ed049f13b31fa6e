/**
 * Signed part addresses for a take's upload (ADR 086): part n's address is asked with the next due
 * parts (one signUploadParts call for up to STUDIO_SIGN_BATCH), kept with the size it was signed
 * for, and asked again when it is about to expire (RESIGN_BEFORE_MS before). Work of an older
 * generation of the upload (it started over or was dropped) is thrown away.
 */
import { STUDIO_SIGN_BATCH, studioPartSize, type SignedPart } from '#core/contracts/studio.ts';
import { isOk } from '#app/lib/api.ts';
import { asUploadError, stepOf, UPLOAD_GONE, UploadError, type Step } from './upload-steps.ts';
import type { UploadTransport } from './upload-transport.ts';

/** A part's address this close to its end is signed again first: a 5 MiB PUT on a slow line takes a while. */
export const RESIGN_BEFORE_MS = 60_000;

/** What the signer reads of the upload. */
export interface SigningHost {
  readonly transport: UploadTransport;
  token: () => { token: string; expiresAt: number } | null;
  /** The upload's generation now. */
  gen: () => number;
  /** The take's size now. */
  bytes: () => number;
  /** The highest part due. */
  lastDuePart: () => number;
  isStored: (n: number) => boolean;
}

interface Signing {
  gen: number;
  parts: ReadonlySet<number>;
  done: Promise<Step<void>>;
}

export class PartSigner {
  readonly #host: SigningHost;
  /** Signed addresses by part number, with the size they were signed for. */
  readonly #urls = new Map<number, { part: SignedPart; size: number }>();
  #signing: Signing | null = null;

  constructor(host: SigningHost) {
    this.#host = host;
  }

  /** Part n's address is not to be used again (the store refused it). */
  forget(n: number): void {
    this.#urls.delete(n);
  }

  /** A new upload: no address of the old one stands. */
  forgetAll(): void {
    this.#urls.clear();
  }

  /** A dropped upload: no address of it stands, and a signing on the way is let go. */
  clear(): void {
    this.#urls.clear();
    this.#signing = null;
  }

  /** Part n's signed address for `size` bytes, signing it with the next due parts (one call for up to STUDIO_SIGN_BATCH). */
  async signedUrl(n: number, size: number, gen: number): Promise<SignedPart | Step<never>> {
    for (let round = 0; round < 3; round++) {
      const token = this.#host.token();
      if (!token || gen !== this.#host.gen()) return { aborted: true };
      if (token.expiresAt <= Date.now()) return { gone: new UploadError(UPLOAD_GONE, 'The upload has expired') };
      const cached = this.#urls.get(n);
      if (cached && cached.size === size && this.#fresh(cached.part)) return cached.part;
      const signing = this.#signing?.gen === gen ? this.#signing : this.#startSigning(n, size, token.token, gen);
      const step = await signing.done;
      if (gen !== this.#host.gen()) return { aborted: true };
      if (!signing.parts.has(n)) continue;
      if (!('ok' in step)) return step;
      const signed = this.#urls.get(n);
      if (signed && signed.size === size) return signed.part;
    }
    return { retry: new UploadError('client', `Part ${n} was not signed`) };
  }

  #startSigning(n: number, size: number, token: string, gen: number): Signing {
    const batch = [{ partNumber: n, size }];
    const bytes = this.#host.bytes();
    const last = this.#host.lastDuePart();
    for (let m = 1; m <= last && batch.length < STUDIO_SIGN_BATCH; m++) {
      if (m === n || this.#host.isStored(m)) continue;
      const s = studioPartSize(m, bytes);
      const cached = this.#urls.get(m);
      if (cached && cached.size === s && this.#fresh(cached.part)) continue;
      batch.push({ partNumber: m, size: s });
    }
    const done = (async (): Promise<Step<void>> => {
      const env = await this.#host.transport.signUploadParts({ uploadToken: token, parts: batch });
      if (!isOk(env)) return stepOf(env);
      if (gen === this.#host.gen()) {
        for (const part of env.data.parts) {
          const asked = batch.find((b) => b.partNumber === part.partNumber);
          if (asked) this.#urls.set(part.partNumber, { part, size: asked.size });
        }
      }
      return { ok: undefined };
    })().catch((error: unknown): Step<void> => ({ fatal: asUploadError(error) }));
    const signing: Signing = { gen, parts: new Set(batch.map((b) => b.partNumber)), done };
    this.#signing = signing;
    // Registered before any caller awaits `done`, so it runs first: a caller that was not in this
    // batch then starts the next one.
    void done.then(() => {
      if (this.#signing === signing) this.#signing = null;
    });
    return signing;
  }

  #fresh(part: SignedPart): boolean {
    return part.expiresAt - Date.now() > RESIGN_BEFORE_MS;
  }
}
