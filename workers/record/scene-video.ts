/**
 * The video courseware as the recording shows it (ADR 051, 075): the video's signed link and the
 * creator's last control (play or pause, where, when by the server's clock), as viewers follow it.
 */
import { SIGNED_URL_TTL_SECONDS, VIDEO_RESYNC_S } from '#core/contracts/courseware.ts';
import type { ObjectStore } from '#core/platform/objects.ts';
import type { SceneView } from './types.ts';

/** A video link is signed again after half its lifetime. */
const VIDEO_RESIGN_MS = (SIGNED_URL_TTL_SECONDS * 1000) / 2;

export class SceneVideo {
  readonly #objects: ObjectStore;
  #signed: { key: string; url: string; at: number } | null = null;
  /** The video state last given, kept while controls only confirm it. */
  #state: { key: string; view: NonNullable<SceneView['video']> } | null = null;

  constructor(objects: ObjectStore) {
    this.#objects = objects;
  }

  /**
   * The video courseware's link and the creator's last control, as viewers follow it (ADR 051): a
   * control that puts the video within 1 s of where it already is (the heartbeat every 5 s while it
   * plays) keeps the state as it was, so the compositor's reader is not restarted; a play, a pause
   * or a seek gives a new state. The link is signed when a new state needs it and is older than
   * half its lifetime.
   */
  async view(key: string, docVideo: string): Promise<SceneView['video']> {
    const now = Date.now();
    let control: { type?: unknown; currentTime?: unknown; at?: unknown } = {};
    try {
      control = docVideo ? (JSON.parse(docVideo) as typeof control) : {};
    } catch {
      control = {};
    }
    const position = Number(control.currentTime);
    const at = Number(control.at);
    const playing = control.type === 'play';
    const positionSec = Number.isFinite(position) && position > 0 ? position : 0;
    const last = this.#state;
    if (last && last.key === key && last.view.playing === playing) {
      const atMs = Number.isFinite(at) && at > 0 ? at : last.view.atMs;
      // Where each says the video is at one instant (server times on both sides, so no clock skew).
      const drift = playing ? positionSec - last.view.positionSec - (atMs - last.view.atMs) / 1000 : positionSec - last.view.positionSec;
      if (Math.abs(drift) <= (playing ? VIDEO_RESYNC_S : 0)) return last.view;
    }
    if (!this.#signed || this.#signed.key !== key || now - this.#signed.at > VIDEO_RESIGN_MS) {
      this.#signed = { key, url: await this.#objects.signedGetUrl(key, SIGNED_URL_TTL_SECONDS), at: now };
    }
    const view = { url: this.#signed.url, playing, positionSec, atMs: Number.isFinite(at) && at > 0 ? at : now };
    this.#state = { key, view };
    return view;
  }
}
