/** A fixed set of resources (LibreOffice profiles, mupdf workers) lent one at a time, first come first served. */
import { abortReason } from './process.ts';

export class Pool<T> {
  readonly items: readonly T[];
  readonly #free: T[];
  readonly #waiting: Array<(item: T) => void> = [];

  constructor(items: T[]) {
    this.items = items;
    this.#free = [...items];
  }

  acquire(signal: AbortSignal): Promise<T> {
    const item = this.#free.shift();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise<T>((resolve, reject) => {
      const take = (it: T) => {
        signal.removeEventListener('abort', onAbort);
        resolve(it);
      };
      const onAbort = () => {
        const i = this.#waiting.indexOf(take);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(abortReason(signal));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(take);
    });
  }

  release(item: T): void {
    const next = this.#waiting.shift();
    if (next) next(item);
    else this.#free.push(item);
  }

  async use<R>(signal: AbortSignal, work: (item: T) => Promise<R>): Promise<R> {
    const item = await this.acquire(signal);
    try {
      return await work(item);
    } finally {
      this.release(item);
    }
  }
}
