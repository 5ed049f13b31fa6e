/**
 * The board's /api calls: the board token, the stencil list and signed image addresses. They go
 * through the app's api() client (envelope, headers, language) by name.
 */
import type { ApiName, Envelope } from '#core/contracts/api.ts';
import { api, isOk } from '#app/lib/api.ts';

/** Calls an /api name this branch's contract may not list yet; the answer is read defensively. */
async function call(name: string, body: Record<string, unknown>): Promise<Envelope<unknown>> {
  return (api as unknown as (n: ApiName, b: unknown, o: { quietNetworkError: boolean }) => Promise<Envelope<unknown>>)(name as ApiName, body, {
    quietNetworkError: true,
  });
}

/** `/api/createWbToken` (spec §7: userId, channelId -> token, bucketId). */
export async function createWbToken(userId: string, roomNumber: string): Promise<{ token: string; bucketId: string } | null> {
  const envelope = await call('createWbToken', { userId, channelId: roomNumber });
  if (!isOk(envelope)) return null;
  const data = envelope.data as { token?: unknown; bucketId?: unknown };
  return typeof data.token === 'string' ? { token: data.token, bucketId: typeof data.bucketId === 'string' ? data.bucketId : '' } : null;
}

export type StencilGroup = 'basic' | 'math' | 'physics' | 'chemistry';

export interface Stencil {
  id: string;
  group: StencilGroup;
  /** Group name within its subject (stname). */
  set: string;
  name: string;
  imageUrl: string;
}

const SUBJECTS: Record<number, StencilGroup> = { 1: 'basic', 2: 'math', 3: 'physics', 4: 'chemistry' };

/** Reads `teachingPictureList` (JSON text, or already a list) into stencils; unknown rows dropped. */
export function parseStencils(raw: unknown): Stencil[] {
  let list: unknown = raw;
  if (typeof raw === 'string') {
    try {
      list = JSON.parse(raw);
    } catch {
      return [];
    }
  }
  if (!Array.isArray(list)) return [];
  const out: Stencil[] = [];
  for (const row of list as unknown[]) {
    if (typeof row !== 'object' || row === null) continue;
    const r = row as Record<string, unknown>;
    const group = SUBJECTS[Number(r['subjectId'])];
    const imageUrl = typeof r['imageUrl'] === 'string' ? r['imageUrl'] : '';
    const id = typeof r['id'] === 'string' ? r['id'] : typeof r['stencilId'] === 'string' ? r['stencilId'] : '';
    if (!group || !imageUrl || !id) continue;
    out.push({ id, group, set: typeof r['stname'] === 'string' ? r['stname'] : '', name: typeof r['name'] === 'string' ? r['name'] : id, imageUrl });
  }
  return out;
}

let stencilCache: Promise<Stencil[]> | null = null;

/** `/api/getTeachingPictureList`, once per page load. */
export function loadStencils(): Promise<Stencil[]> {
  stencilCache ??= call('getTeachingPictureList', {}).then((envelope) => {
    if (!isOk(envelope)) {
      stencilCache = null;
      return [];
    }
    return parseStencils((envelope.data as { teachingPictureList?: unknown }).teachingPictureList);
  });
  return stencilCache;
}

/**
 * Signed addresses of board images by object key, asked in batches and kept until shortly before
 * they expire. `onReady` runs when new addresses arrived (the renderer repaints).
 */
export class ImageUrls {
  readonly #urls = new Map<string, { url: string; until: number }>();
  readonly #asked = new Set<string>();
  #queue = new Set<string>();
  #scheduled = false;
  readonly #roomNumber: string;
  readonly #token: () => string;
  onReady: () => void = () => undefined;

  constructor(roomNumber: string, token: () => string) {
    this.#roomNumber = roomNumber;
    this.#token = token;
  }

  /** Remembers an address we already have (our own upload's answer). */
  set(key: string, url: string, ttlMs = 3_000_000): void {
    this.#urls.set(key, { url, until: Date.now() + ttlMs });
  }

  get(key: string): string | null {
    const hit = this.#urls.get(key);
    if (hit && hit.until > Date.now()) return hit.url;
    if (!this.#asked.has(key)) {
      this.#asked.add(key);
      this.#queue.add(key);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setTimeout(() => void this.#fetch(), 0);
      }
    }
    return hit?.url ?? null;
  }

  async #fetch(): Promise<void> {
    this.#scheduled = false;
    const keys = [...this.#queue];
    this.#queue = new Set();
    if (!keys.length) return;
    const envelope = await call('getBoardImageUrls', { roomNumber: this.#roomNumber, token: this.#token(), keys });
    const urls = isOk(envelope) ? (envelope.data as { urls?: Record<string, unknown> }).urls : undefined;
    let any = false;
    for (const key of keys) {
      const url = urls?.[key];
      if (typeof url === 'string') {
        this.set(key, url);
        any = true;
      }
      // Asked again only after the address would have expired.
      setTimeout(() => this.#asked.delete(key), isOk(envelope) ? 3_000_000 : 10_000);
    }
    if (any) this.onReady();
  }
}
