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
}

export interface ClosedSegment {
  seq: number;
  file: string;
  durationMs: number;
  bytes: number;
}

export interface SceneView {
  /** Changes whenever `main` or names change. */
  version: number;
  /** As in the rooms row ('wb', 'ppt', 'video', 'screen', ...). */
  showState: string;
  /** yuv420p 960x720 for 'wb' and 'ppt'; null for 'screen' and 'video'. */
  main: Buffer | null;
  /** Video courseware. */
  video: { url: string; playing: boolean; positionSec: number; atMs: number } | null;
  creatorId: string;
}

export interface Scene {
  current(): SceneView;
  /** yuv420p w x h name strip for the tile of this user (cached). */
  label(userId: string, w: number, h: number): Buffer;
  close(): void;
}

/** The layout of the composed frame (the contract's, at 1280x720). */
export const LAYOUT = {
  main: { x: 0, y: 0, w: 960, h: 720 },
  /** Screen share and video courseware: 16:9 letterboxed in the main area. */
  screen: { x: 0, y: 90, w: 960, h: 540 },
  tile: { x: 960, w: 320, h: 180, slots: 4 },
  strip: 24,
} as const;

export const AUDIO_RATE = 48_000;
