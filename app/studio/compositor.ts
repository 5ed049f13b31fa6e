/**
 * The picture the studio records (issue 15): a 1280x720 canvas redrawn about 30 times a second by
 * a timer (a worker's, so a hidden tab, e.g. while another tab is shared, still gets every frame;
 * requestAnimationFrame stops there). Each frame is the current view scaled to fit, read from the
 * stage the teacher sees (what is shown is what is recorded):
 * - video: the camera, full frame;
 * - board: the board's canvases (paper, ink, the stroke being drawn) at their places on the stage;
 * - doc: the PDF page's canvas;
 * - screen: the shared screen;
 * and in every view but video the camera picture-in-picture in the bottom-right corner. Sources
 * on the stage carry `data-studio-source="camera|screen|doc|board"`.
 *
 * The recorded stream is the canvas's track plus one sound track that lasts the whole take: the
 * microphone goes through a Web Audio node, so a microphone chosen mid-take replaces the sound
 * without ending the recorder's track.
 */

export type StudioView = 'video' | 'board' | 'doc' | 'screen';

export const FRAME_WIDTH = 1280;
export const FRAME_HEIGHT = 720;
export const FRAME_FPS = 30;
/** The camera in the corner: 16:9, a quarter of the frame's width, with a margin and round corners. */
export const PIP = { width: 320, height: 180, margin: 16, radius: 12 } as const;

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A source of srcW x srcH fitted inside `box` (contain), centred. */
export function fitRect(srcW: number, srcH: number, box: Rect): Rect {
  if (srcW <= 0 || srcH <= 0) return { ...box };
  const scale = Math.min(box.w / srcW, box.h / srcH);
  const w = srcW * scale;
  const h = srcH * scale;
  return { x: box.x + (box.w - w) / 2, y: box.y + (box.h - h) / 2, w, h };
}

/** The part of a srcW x srcH source that fills a w x h box without bars (cover), centred. */
export function coverCrop(srcW: number, srcH: number, w: number, h: number): Rect {
  if (srcW <= 0 || srcH <= 0 || w <= 0 || h <= 0) return { x: 0, y: 0, w: srcW, h: srcH };
  const scale = Math.max(w / srcW, h / srcH);
  const cw = w / scale;
  const ch = h / scale;
  return { x: (srcW - cw) / 2, y: (srcH - ch) / 2, w: cw, h: ch };
}

/** The picture-in-picture's place in the frame. */
export function pipRect(): Rect {
  return {
    x: FRAME_WIDTH - PIP.width - PIP.margin,
    y: FRAME_HEIGHT - PIP.height - PIP.margin,
    w: PIP.width,
    h: PIP.height,
  };
}

interface BoxLike {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** An element's on-screen box mapped into the frame, the stage's box being the whole frame. */
export function mapToFrame(box: BoxLike, stage: BoxLike): Rect {
  const sx = stage.width > 0 ? FRAME_WIDTH / stage.width : 1;
  const sy = stage.height > 0 ? FRAME_HEIGHT / stage.height : 1;
  return { x: (box.left - stage.left) * sx, y: (box.top - stage.top) * sy, w: box.width * sx, h: box.height * sy };
}

/** The frame's background behind each view. */
export const VIEW_BACKGROUND: Record<StudioView, string> = {
  video: '#111418',
  board: '#ffffff',
  doc: '#eef0f2',
  screen: '#000000',
};

export interface CompositorInput {
  /** The stage element (16:9) holding the current view. */
  stage: () => HTMLElement | null;
  view: () => StudioView;
  /** The camera is on (its picture is drawn; off, the video view is dark and there is no corner picture). */
  cameraOn: () => boolean;
}

function videoReady(v: HTMLVideoElement | null): v is HTMLVideoElement {
  return !!v && v.readyState >= 2 && v.videoWidth > 0 && v.videoHeight > 0;
}

/** Ticks `fps` times a second from a worker (not throttled in a hidden tab); a plain interval if no worker starts. */
function startTicker(fps: number, tick: () => void): () => void {
  let interval: ReturnType<typeof setInterval> | null = null;
  const fallback = () => {
    if (interval === null) interval = setInterval(tick, 1000 / fps);
  };
  let worker: Worker | null = null;
  try {
    worker = new Worker(new URL('./ticker.worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = () => {
      tick();
      worker?.postMessage('done');
    };
    worker.onerror = () => {
      worker?.terminate();
      worker = null;
      fallback();
    };
    worker.postMessage({ fps });
  } catch {
    worker = null;
    fallback();
  }
  return () => {
    worker?.terminate();
    worker = null;
    if (interval !== null) clearInterval(interval);
    interval = null;
  };
}

export class Compositor {
  readonly canvas: HTMLCanvasElement;
  readonly #ctx: CanvasRenderingContext2D;
  readonly #input: CompositorInput;
  #stopTicker: (() => void) | null = null;
  #stream: MediaStream | null = null;
  /** Frames drawn (tests read it through the page). */
  frames = 0;

  constructor(input: CompositorInput) {
    this.#input = input;
    this.canvas = document.createElement('canvas');
    this.canvas.width = FRAME_WIDTH;
    this.canvas.height = FRAME_HEIGHT;
    const ctx = this.canvas.getContext('2d', { alpha: false });
    if (!ctx) throw new Error('no 2d context');
    this.#ctx = ctx;
  }

  get running(): boolean {
    return this.#stopTicker !== null;
  }

  start(): void {
    if (this.#stopTicker) return;
    this.drawFrame();
    this.#stopTicker = startTicker(FRAME_FPS, () => this.drawFrame());
  }

  stop(): void {
    this.#stopTicker?.();
    this.#stopTicker = null;
  }

  /** The canvas's video track (one per compositor) with the given sound track. */
  stream(audio: MediaStreamTrack | null): MediaStream {
    if (!this.#stream) this.#stream = this.canvas.captureStream(FRAME_FPS);
    const video = this.#stream.getVideoTracks()[0];
    return new MediaStream([...(video ? [video] : []), ...(audio ? [audio] : [])]);
  }

  dispose(): void {
    this.stop();
    for (const track of this.#stream?.getTracks() ?? []) track.stop();
    this.#stream = null;
  }

  drawFrame(): void {
    const ctx = this.#ctx;
    const view = this.#input.view();
    ctx.save();
    ctx.globalAlpha = 1;
    ctx.fillStyle = VIEW_BACKGROUND[view];
    ctx.fillRect(0, 0, FRAME_WIDTH, FRAME_HEIGHT);
    const stage = this.#input.stage();
    const full: Rect = { x: 0, y: 0, w: FRAME_WIDTH, h: FRAME_HEIGHT };
    const cameraOn = this.#input.cameraOn();
    if (stage) {
      const camera = stage.querySelector<HTMLVideoElement>('video[data-studio-source="camera"]');
      switch (view) {
        case 'video':
          if (cameraOn && videoReady(camera)) this.#drawFit(camera, camera.videoWidth, camera.videoHeight, full);
          break;
        case 'screen': {
          const screen = stage.querySelector<HTMLVideoElement>('video[data-studio-source="screen"]');
          if (videoReady(screen)) this.#drawFit(screen, screen.videoWidth, screen.videoHeight, full);
          break;
        }
        case 'doc': {
          const page = stage.querySelector<HTMLCanvasElement>('canvas[data-studio-source="doc"]');
          if (page && page.width > 0 && page.height > 0) this.#drawFit(page, page.width, page.height, full);
          break;
        }
        case 'board':
          this.#drawBoard(stage);
          break;
      }
      if (view !== 'video' && cameraOn && videoReady(camera)) this.#drawPip(camera);
    }
    ctx.restore();
    this.frames += 1;
  }

  #drawFit(source: CanvasImageSource, w: number, h: number, box: Rect): void {
    const r = fitRect(w, h, box);
    this.#ctx.drawImage(source, r.x, r.y, r.w, r.h);
  }

  /** The board's canvases in DOM order (paper, ink, overlay) at their on-screen places. */
  #drawBoard(stage: HTMLElement): void {
    const stageBox = stage.getBoundingClientRect();
    for (const canvas of stage.querySelectorAll<HTMLCanvasElement>('[data-studio-source="board"] canvas')) {
      if (canvas.width === 0 || canvas.height === 0) continue;
      const r = mapToFrame(canvas.getBoundingClientRect(), stageBox);
      this.#ctx.drawImage(canvas, 0, 0, canvas.width, canvas.height, r.x, r.y, r.w, r.h);
    }
  }

  #drawPip(camera: HTMLVideoElement): void {
    const ctx = this.#ctx;
    const r = pipRect();
    const crop = coverCrop(camera.videoWidth, camera.videoHeight, r.w, r.h);
    ctx.save();
    ctx.shadowColor = 'rgba(0, 0, 0, 0.35)';
    ctx.shadowBlur = 12;
    ctx.fillStyle = '#111418';
    ctx.beginPath();
    ctx.roundRect(r.x, r.y, r.w, r.h, PIP.radius);
    ctx.fill();
    ctx.restore();
    ctx.save();
    ctx.beginPath();
    ctx.roundRect(r.x, r.y, r.w, r.h, PIP.radius);
    ctx.clip();
    ctx.drawImage(camera, crop.x, crop.y, crop.w, crop.h, r.x, r.y, r.w, r.h);
    ctx.restore();
    ctx.save();
    ctx.strokeStyle = 'rgba(255, 255, 255, 0.85)';
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.roundRect(r.x + 1, r.y + 1, r.w - 2, r.h - 2, PIP.radius - 1);
    ctx.stroke();
    ctx.restore();
  }
}

/**
 * One sound track for the whole take: the microphone (any, replaced at will) through Web Audio.
 * The context starts inside the click that starts recording (browsers keep it suspended before a
 * gesture). Muting the microphone (track.enabled = false) makes it silent, not absent.
 */
export class AudioMix {
  #ctx: AudioContext | null = null;
  #dest: MediaStreamAudioDestinationNode | null = null;
  #source: MediaStreamAudioSourceNode | null = null;
  #input: MediaStreamTrack | null = null;

  /** The recorded sound track; null where Web Audio is missing. */
  track(): MediaStreamTrack | null {
    if (!this.#ctx) {
      try {
        this.#ctx = new AudioContext();
        this.#dest = this.#ctx.createMediaStreamDestination();
      } catch {
        this.#ctx = null;
        this.#dest = null;
        return null;
      }
      this.#connect();
    }
    if (this.#ctx.state === 'suspended') void this.#ctx.resume().catch(() => undefined);
    return this.#dest?.stream.getAudioTracks()[0] ?? null;
  }

  /** The microphone heard from now on (null: silence). */
  setInput(track: MediaStreamTrack | null): void {
    if (track === this.#input) return;
    this.#input = track;
    this.#connect();
  }

  #connect(): void {
    this.#source?.disconnect();
    this.#source = null;
    if (!this.#ctx || !this.#dest || !this.#input || this.#input.readyState !== 'live') return;
    this.#source = this.#ctx.createMediaStreamSource(new MediaStream([this.#input]));
    this.#source.connect(this.#dest);
  }

  close(): void {
    this.#source?.disconnect();
    this.#source = null;
    for (const track of this.#dest?.stream.getTracks() ?? []) track.stop();
    void this.#ctx?.close().catch(() => undefined);
    this.#ctx = null;
    this.#dest = null;
  }
}
