/**
 * Which parts of a take are stored and which are due (ADR 086): part n is bytes (n-1)*P .. n*P of
 * the take (P = STUDIO_PART_BYTES), so a part stored once stands while the take's size keeps it
 * whole; while recording only whole parts are due, after finish() the short last one too.
 */
import { STUDIO_PART_BYTES, studioPartSize } from '#core/contracts/studio.ts';
import type { StoredPart } from './types.ts';

/** Stored parts from meta.json that can stand: sane numbers, and the size part n has in a take of `bytes`. */
export function usableParts(parts: readonly StoredPart[], bytes: number): StoredPart[] {
  return parts.filter(
    (p) =>
      Number.isInteger(p.partNumber) && p.partNumber >= 1 && p.etag !== '' && p.size > 0 && p.size === studioPartSize(p.partNumber, bytes),
  );
}

export class PartLedger {
  readonly #stored = new Map<number, StoredPart>();
  readonly #bytes: () => number;
  /** finish() was called: the short last part is due too. */
  final = false;

  /** `bytes`: the take's size now (it grows while recording). */
  constructor(bytes: () => number) {
    this.#bytes = bytes;
  }

  /** The parts an earlier page stored (meta.upload), those that can stand. */
  restore(parts: readonly StoredPart[]): void {
    for (const p of usableParts(parts, this.#bytes())) this.#stored.set(p.partNumber, p);
  }

  get(n: number): StoredPart | undefined {
    return this.#stored.get(n);
  }

  set(n: number, part: StoredPart): void {
    this.#stored.set(n, part);
  }

  clear(): void {
    this.#stored.clear();
  }

  /** Every stored part, by number (for meta.json). */
  list(): StoredPart[] {
    return [...this.#stored.values()].sort((a, b) => a.partNumber - b.partNumber);
  }

  wholeParts(): number {
    return Math.floor(this.#bytes() / STUDIO_PART_BYTES);
  }

  /** The highest part due: whole parts while recording, the short last one too after finish(). */
  lastDuePart(): number {
    return this.final ? Math.ceil(this.#bytes() / STUDIO_PART_BYTES) : this.wholeParts();
  }

  isStored(n: number): boolean {
    const p = this.#stored.get(n);
    return p !== undefined && p.size === studioPartSize(n, this.#bytes());
  }

  /** A due part neither stored nor on the way. */
  hasDue(onTheWay: ReadonlyMap<number, unknown>): boolean {
    const last = this.lastDuePart();
    for (let n = 1; n <= last; n++) if (!onTheWay.has(n) && !this.isStored(n)) return true;
    return false;
  }

  allStored(): boolean {
    const last = this.lastDuePart();
    for (let n = 1; n <= last; n++) if (!this.isStored(n)) return false;
    return last > 0;
  }

  /** The bytes of the parts stored that still stand. */
  storedBytes(): number {
    let bytes = 0;
    for (const p of this.#stored.values()) if (this.isStored(p.partNumber)) bytes += p.size;
    return bytes;
  }
}
