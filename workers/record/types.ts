/**
 * The shapes the recording engine shares with the rest of the recorder (RECORDING contract of
 * issue 13). The scene itself is built elsewhere (scene.ts); the engine only reads it.
 */
import type { Logger } from '#core/platform/logger.ts';

export type { Logger };

export interface RecordingSettings {
  width: number;
  height: number;
  fps: number;
  videoKbps: number;
  audioKbps: number;
  segmentSeconds: number;
  /**
   * Constant bitrate: x264 pads the video to `videoKbps` (HRD filler), as video platforms ask of a
   * live push. Without it `videoKbps` is a cap (a still board costs far less), which suits a file.
   */
  cbr?: boolean;
  /** x264's preset (RECORDING_X264_PRESET; default 'veryfast'). */
  x264Preset?: string;
}

export interface ClosedSegment {
  seq: number;
  file: string;
  durationMs: number;
  bytes: number;
  /**
   * The segment's span in its session's media seconds (frame n of the session is at n/fps), from
   * the encoder's segment list. Absent for a segment recovered from disk (its duration is probed).
   */
  startSec?: number;
  endSec?: number;
}

export interface SceneView {
  /** Changes whenever `main`, `video`, the view or the names change. */
  version: number;
  /**
   * The main area's view: 'wb' (board page: background + ink), 'ppt' (slide + its ink), 'screen'
   * (the screen share), 'video' (the video courseware, see `video`), or 'cameras' (the room's
   * video view: the camera gallery). Normalised by the scene from the rooms row as the classroom
   * reads it.
   */
  showState: string;
  /** yuv420p of the main area (960x720) for 'wb' and 'ppt'; null otherwise. */
  main: Buffer | null;
  /** The video courseware: where the creator's player is (`positionSec` at server time `atMs`) and whether it plays. */
  video: { url: string; playing: boolean; positionSec: number; atMs: number } | null;
  creatorId: string;
  /**
   * The class tools over the frame (ADR 115): opaque yuv420p panels at even places inside the main
   * area, copied over whatever is under them; the same array while nothing shown changed.
   */
  overlay?: readonly OverlayPanel[];
}

/** One panel of the class tools' overlay: a w x h yuv420p picture at (x, y) of the frame, all even. */
export interface OverlayPanel {
  /** Which tool it shows (tools-overlay.ts Panel['kind']; diagnostics and tests). */
  kind: string;
  x: number;
  y: number;
  w: number;
  h: number;
  yuv: Buffer;
}

export interface Scene {
  current(): SceneView;
  /** yuv420p w x h name strip for the tile of this user (cached). */
  label(userId: string, w: number, h: number): Buffer;
  close(): void;
}

/**
 * The layout of the composed frame (the contract's, at 1280x720). The recorder always composes at
 * this size; the encoder scales to RECORDING_WIDTH x RECORDING_HEIGHT when they differ.
 */
export const LAYOUT = {
  frame: { w: 1280, h: 720 },
  main: { x: 0, y: 0, w: 960, h: 720 },
  /** Cameras are decoded at this size: a gallery cell; the tiles column takes them halved. */
  camera: { w: 640, h: 360 },
  /** Screen share and video courseware: 16:9 letterboxed in the main area. */
  screen: { x: 0, y: 90, w: 960, h: 540 },
  tile: { x: 960, w: 320, h: 180, slots: 4 },
  strip: 24,
} as const;

export const AUDIO_RATE = 48_000;

export interface Cell {
  x: number;
  y: number;
  w: number;
  h: number;
  /** Height of the name strip at the bottom of the cell. */
  strip: number;
}

/**
 * The room's video view ('cameras'), as students see it: the cameras over the whole frame. One
 * person fills it (the 640x360 picture doubled); two sit side by side, centred; three or four make
 * a 2x2 of 640x360 cells (the third centred on the bottom row). At most four, in tile order.
 */
export function galleryCells(n: number): Cell[] {
  const { w, h } = LAYOUT.camera;
  const strip = 32;
  if (n <= 0) return [];
  if (n === 1) return [{ x: 0, y: 0, w: w * 2, h: h * 2, strip: strip * 2 }];
  if (n === 2)
    return [
      { x: 0, y: h / 2, w, h, strip },
      { x: w, y: h / 2, w, h, strip },
    ];
  const cells = [
    { x: 0, y: 0, w, h, strip },
    { x: w, y: 0, w, h, strip },
    { x: 0, y: h, w, h, strip },
    { x: w, y: h, w, h, strip },
  ];
  if (n === 3) cells[2] = { x: w / 2, y: h, w, h, strip };
  return cells.slice(0, n);
}
