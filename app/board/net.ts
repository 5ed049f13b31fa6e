/**
 * The board's server calls: the board token and the stencil list over /api, signed addresses of
 * board images over `/board-images/urls` (the board token as a Bearer token).
 */
import { api, isOk } from '#app/lib/api.ts';
import { currentLang } from '#app/lib/lang.ts';

/** `/api/createWbToken` (docs/product/03-board-courseware-billing.md §7: userId, channelId -> token, bucketId). */
export async function createWbToken(userId: string, roomNumber: string): Promise<{ token: string; bucketId: string } | null> {
  const envelope = await api('createWbToken', { userId, channelId: roomNumber }, { quietNetworkError: true });
  return isOk(envelope) ? envelope.data : null;
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
export function parseStencils(raw: unknown, lang: string = 'zh'): Stencil[] {
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
    const zhName = typeof r['name'] === 'string' ? r['name'] : id;
    const name = lang === 'en' && typeof r['nameEn'] === 'string' ? r['nameEn'] : zhName;
    out.push({ id, group, set: typeof r['stname'] === 'string' ? r['stname'] : '', name, imageUrl });
  }
  return out;
}

let stencilCache: Promise<Stencil[]> | null = null;

/** `/api/getTeachingPictureList`, once per page load. */
export function loadStencils(): Promise<Stencil[]> {
  stencilCache ??= api('getTeachingPictureList', {}, { quietNetworkError: true }).then((envelope) => {
    if (!isOk(envelope)) {
      stencilCache = null;
      return [];
    }
    return parseStencils(envelope.data.teachingPictureList, currentLang());
  });
  return stencilCache;
}

/**
 * Signed addresses of board images by object key, asked in batches and kept until shortly before
 * they expire. The `onReady` listeners run when new addresses arrived (the renderer repaints).
 */
export class ImageUrls {
  readonly #urls = new Map<string, { url: string; until: number }>();
  readonly #asked = new Set<string>();
  #queue = new Set<string>();
  #scheduled = false;
  readonly #token: () => string;
  readonly #ready = new Set<() => void>();

  constructor(token: () => string) {
    this.#token = token;
  }
  /** Runs `listener` whenever new addresses arrived; returns the unsubscribe. */
  onReady(listener: () => void): () => void {
    this.#ready.add(listener);
    return () => void this.#ready.delete(listener);
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
    let urls: Record<string, unknown> | undefined;
    let ok = false;
    try {
      const res = await fetch('/board-images/urls', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.#token()}`, lang: currentLang() },
        body: JSON.stringify({ keys }),
      });
      const body = (await res.json()) as { code?: unknown; data?: { urls?: Record<string, unknown> } | null };
      ok = String(body.code) === '0';
      urls = body.data?.urls;
    } catch {
      // No answer: asked again in a while.
    }
    let any = false;
    for (const key of keys) {
      const url = urls?.[key];
      if (typeof url === 'string') {
        this.set(key, url);
        any = true;
      }
      // Asked again only after the address would have expired.
      setTimeout(() => this.#asked.delete(key), ok ? 3_000_000 : 10_000);
    }
    if (any) for (const listener of this.#ready) listener();
  }
}
