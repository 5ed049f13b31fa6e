/**
 * Playback the browser refuses to start (its autoplay policy: sound without a click on the page).
 * Every <video>/<audio> of the classroom starts through `playback.play(el)`; a refusal
 * (NotAllowedError) puts the element on a list, logs `video_play_error` once per refusal
 * (docs/product/02-live-classroom.md §8) and shows the prompt. The prompt's button, or any
 * click or key on the page, is the gesture the browser waits for: `resumeAll()` starts every
 * element on the list again from inside that event. An observer never clicked anything before
 * (no pre-join), so this is how they hear the class.
 */
import { logClientEvent } from '#app/lib/client-log.ts';

/** The refusal the autoplay policy gives; anything else (an element removed meanwhile: AbortError) is not for the prompt. */
export function isAutoplayBlock(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'name' in err && err.name === 'NotAllowedError';
}

export interface PlayableElement {
  play(): Promise<void>;
  readonly paused: boolean;
  readonly isConnected: boolean;
  readonly tagName: string;
}

export class PlaybackGate {
  readonly #blocked = new Set<PlayableElement>();
  readonly #listeners = new Set<() => void>();
  readonly #log: typeof logClientEvent;
  #roomNumber = '';
  #count = 0;

  constructor(log: typeof logClientEvent = logClientEvent) {
    this.#log = log;
  }

  setRoom(roomNumber: string): void {
    this.#roomNumber = roomNumber;
  }

  /** Starts an element; a refusal by the autoplay policy waits for the next gesture. */
  play(el: PlayableElement): void {
    el.play().then(
      () => this.#drop(el),
      (err: unknown) => {
        if (!isAutoplayBlock(err) || !el.isConnected) return;
        if (this.#blocked.has(el)) return;
        this.#blocked.add(el);
        this.#log('video_play_error', this.#roomNumber, {
          element: el.tagName.toLowerCase(),
          error: 'NotAllowedError',
          blocked: this.#blocked.size,
        });
        this.#emit();
      },
    );
  }

  /** The element left the page: nothing to resume. */
  forget(el: PlayableElement): void {
    this.#drop(el);
  }

  /** Call from inside a click or key event: every refused element plays now. */
  resumeAll(): void {
    for (const el of [...this.#blocked]) {
      if (!el.isConnected) {
        this.#drop(el);
        continue;
      }
      el.play().then(
        () => this.#drop(el),
        () => undefined,
      );
    }
  }

  /** How many elements wait for a gesture (the prompt shows while > 0). */
  readonly getSnapshot = (): number => this.#count;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  };

  #drop(el: PlayableElement): void {
    if (this.#blocked.delete(el)) this.#emit();
  }

  #emit(): void {
    this.#count = this.#blocked.size;
    for (const l of this.#listeners) l();
  }
}

/** The page's one gate (every classroom element plays through it). */
export const playback = new PlaybackGate();
