/**
 * Video courseware in the main area: an ffmpeg reading the courseware file from its current
 * position, paced in real time (-re), scaled and letterboxed to 960x540. It follows the scene's
 * video state: a new file, a seek or a play restarts it from the position; a pause stops it (its
 * last picture stays). The picture only; the courseware's own sound is not mixed yet.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { LAYOUT, type Logger, type Scene, type SceneView } from './types.ts';

export class FileVideo {
  /** The latest picture (yuv420p 960x540), or null while nothing plays. */
  frame: Buffer | null = null;
  readonly #scene: Scene;
  readonly #logger: Logger;
  #child: ChildProcess | null = null;
  /** The scene's video state the reader was started for. */
  #key = '';
  #closed = false;

  constructor(o: { scene: Scene; logger: Logger }) {
    this.#scene = o.scene;
    this.#logger = o.logger;
  }

  /** Called once per composed frame: cheap when nothing changed. */
  update(view: SceneView = this.#scene.current()): void {
    if (this.#closed) return;
    const v = view.showState === 'video' ? view.video : null;
    if (!v || !v.playing) {
      this.#halt();
      this.#key = '';
      if (!v) this.frame = null;
      return;
    }
    // The state changes at every play, seek or new file; the same state keeps its reader (or its last picture once the file ended).
    const key = `${v.url}|${String(v.positionSec)}|${String(v.atMs)}`;
    if (key === this.#key) return;
    this.#halt();
    this.#key = key;
    this.#spawn(v.url, v.positionSec + Math.max(0, Date.now() - v.atMs) / 1000);
  }

  #spawn(url: string, fromSec: number): void {
    const { w, h } = LAYOUT.screen;
    const child = spawn(
      'ffmpeg',
      [
        ...['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'error', '-re', '-ss', fromSec.toFixed(3), '-i', url, '-an'],
        ...[
          '-vf',
          `scale=${String(w)}:${String(h)}:force_original_aspect_ratio=decrease,pad=${String(w)}:${String(h)}:(ow-iw)/2:(oh-ih)/2,format=yuv420p`,
        ],
        ...['-f', 'rawvideo', 'pipe:1'],
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    this.#child = child;
    const size = (w * h * 3) / 2;
    let partial = Buffer.allocUnsafe(size);
    let filled = 0;
    child.stdout.on('data', (c: Buffer) => {
      let at = 0;
      while (at < c.length) {
        const n = c.copy(partial, filled, at);
        at += n;
        filled += n;
        if (filled === size) {
          if (this.#child === child) this.frame = partial;
          partial = Buffer.allocUnsafe(size);
          filled = 0;
        }
      }
    });
    child.once('error', (err) => this.#logger.warn({ err }, 'video courseware reader'));
    child.once('exit', () => {
      // Ended (or failed): the last picture stays; a new state starts another reader.
      if (this.#child === child) this.#child = null;
    });
  }

  #halt(): void {
    const c = this.#child;
    this.#child = null;
    if (c && c.exitCode === null) c.kill('SIGKILL');
  }

  close(): void {
    this.#closed = true;
    this.#halt();
  }
}
