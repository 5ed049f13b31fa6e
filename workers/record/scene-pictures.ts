/**
 * The scene's pictures (ADR 075): slide pages and board images read from the object store, stencils
 * from server/static/stencils, decoded by @napi-rs/canvas and kept decoded (IMAGE_CACHE each). A
 * slide that did not load is asked for again after SLIDE_RETRY_MS; the pages next to the shown one
 * are loaded ahead, as the browser does. `wake` tells the scene when to look again: at once when a
 * slide arrived (it goes under the ink), after SLIDE_RETRY_MS when one failed (it is asked for again).
 */
import { Buffer } from 'node:buffer';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadImage, type Image } from '@napi-rs/canvas';
import { pageKey } from '#core/courseware/courseware-room.ts';
import type { Logger } from '#core/platform/logger.ts';
import type { ObjectStore } from '#core/platform/objects.ts';

/** Slide images and board pictures kept decoded. */
const IMAGE_CACHE = 8;
/** A slide image that did not load is asked for again after this long. */
const SLIDE_RETRY_MS = 5000;

export type Decoded = Image;

export class ScenePictures {
  readonly #objects: ObjectStore;
  readonly #logger: Logger;
  readonly #wake: (inMs: number) => void;
  readonly #images = new Map<string, Promise<Decoded>>();
  readonly #slides = new Map<string, Decoded>();
  /** Slide images that failed to load, and when (tried again after SLIDE_RETRY_MS). */
  readonly #slideFailed = new Map<string, number>();

  constructor(objects: ObjectStore, logger: Logger, wake: (inMs: number) => void) {
    this.#objects = objects;
    this.#logger = logger;
    this.#wake = wake;
  }

  /** The slide image of this key, if it is loaded. */
  slideOf(key: string): Decoded | undefined {
    return this.#slides.get(key);
  }

  async #objectBytes(key: string): Promise<Buffer> {
    const got = await this.#objects.get(key);
    if (!got) throw new Error(`object ${key} not found`);
    const chunks: Buffer[] = [];
    for await (const chunk of got.stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
    return Buffer.concat(chunks);
  }

  #decode(key: string, read: () => Promise<Buffer | string>): Promise<Decoded> {
    let p = this.#images.get(key);
    if (!p) {
      p = read().then((src) => loadImage(src));
      this.#images.set(key, p);
      p.catch(() => this.#images.delete(key));
      if (this.#images.size > IMAGE_CACHE) this.#images.delete(this.#images.keys().next().value!);
    }
    return p;
  }

  /** A board picture: an uploaded image (its object key) or a stencil (our own SVG). */
  loadBoardImage(url: string): Promise<Decoded> {
    if (url.startsWith('object:')) return this.#decode(url, () => this.#objectBytes(url.slice('object:'.length)));
    const id = url.slice('stencil:'.length);
    return this.#decode(url, () => readFile(path.resolve(import.meta.dirname, '../../server/static/stencils', `${id}.svg`)));
  }

  /** Loads a slide image; once it is there the scene is told (`onLoaded`) and puts it under the ink. */
  async slide(key: string): Promise<Decoded | null> {
    const failed = this.#slideFailed.get(key);
    if (failed !== undefined && Date.now() - failed < SLIDE_RETRY_MS) return null;
    try {
      const img = await this.#decode(key, () => this.#objectBytes(key));
      this.#slideFailed.delete(key);
      const fresh = !this.#slides.has(key);
      this.#slides.set(key, img);
      if (this.#slides.size > IMAGE_CACHE) this.#slides.delete(this.#slides.keys().next().value!);
      if (fresh) this.#wake(0);
      return img;
    } catch (err) {
      // The slide stays away (the board's colour under the ink) until a later try finds it.
      if (!this.#slideFailed.has(key)) this.#logger.warn({ err, key }, 'recording scene: a slide image did not load');
      this.#slideFailed.set(key, Date.now());
      this.#wake(SLIDE_RETRY_MS + 50);
      return null;
    }
  }

  /** The pages next to the shown one, so a page turn shows at once (the browser does the same). */
  preload(prefix: string, page: number, pages: number, shownKey: string | null): void {
    for (const n of [page + 1, page - 1]) {
      if (n < 1 || n > pages) continue;
      const key = pageKey(prefix, n);
      if (key !== shownKey && !this.#slides.has(key) && !this.#images.has(key)) void this.slide(key);
    }
  }
}
