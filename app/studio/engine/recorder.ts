/**
 * The studio's recorder (ADR 086): one MediaRecorder over the studio's stream for the whole take,
 * sliced every STUDIO_SLICE_MS, each slice appended to the take as it arrives. Pause and resume
 * are MediaRecorder's own, so a take stays one file with one timeline; the elapsed time leaves
 * the pauses out.
 */
import { STUDIO_SLICE_MS, type StudioMediaType } from '#core/contracts/studio.ts';
import type { RecorderState, Take, TakeRecorder } from './types.ts';

/** What the studio asks MediaRecorder for, best first: MP4 (H.264) where the browser makes it, else WebM. */
const MIME_TYPES = [
  'video/mp4;codecs=avc1,opus',
  'video/mp4;codecs=avc1.42E01F,opus',
  'video/mp4',
  'video/webm;codecs=vp8,opus',
  'video/webm',
] as const;

/** A 720p lesson: sharp text on the board without filling the disk (about 2.3 GB an hour). */
const VIDEO_BITS_PER_SECOND = 5_000_000;
const AUDIO_BITS_PER_SECOND = 128_000;

/** The first of the studio's formats this browser records; '' when it records none of them. */
export function pickMimeType(): string {
  if (typeof MediaRecorder === 'undefined') return '';
  return MIME_TYPES.find((type) => MediaRecorder.isTypeSupported(type)) ?? '';
}

/** The container of a MediaRecorder mimeType, as the server takes it (Matroska and the rest go as WebM). */
export function mediaTypeOf(mime: string): StudioMediaType {
  const container = (mime.split(';')[0] ?? '').trim().toLowerCase();
  return container.endsWith('/mp4') ? 'video/mp4' : 'video/webm';
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * A recorder for one take. start() throws what MediaRecorder throws (NotSupportedError for a
 * mimeType the browser refuses). onError hears a slice that could not be written, a MediaRecorder
 * error, and a recording that ended on its own (every track of the stream ended); the take keeps
 * what was written and stop() still finishes it.
 */
export function createRecorder(
  stream: MediaStream,
  take: Take,
  options: { sliceMs?: number; videoBitsPerSecond?: number } = {},
): TakeRecorder {
  const sliceMs = options.sliceMs ?? STUDIO_SLICE_MS;
  let state: RecorderState = 'idle';
  let recorder: MediaRecorder | null = null;
  /** Recorded time before the current run (pauses left out). */
  let banked = 0;
  /** performance.now() when the current run began. */
  let runSince = 0;
  /** The newest append: take.append keeps them in order, so this settles after all before it. */
  let lastAppend: Promise<void> = Promise.resolve();
  let ended: Promise<void> = Promise.resolve();
  let stopping: Promise<void> | null = null;
  let reported = false;

  const elapsedMs = (): number => banked + (state === 'recording' ? performance.now() - runSince : 0);

  const report = (error: Error): void => {
    // The screens stop on the first problem; later ones are the same trouble.
    if (reported) return;
    reported = true;
    self.onError?.(error);
  };

  // A tab being closed or hidden hands over what the recorder holds at once (the slice in progress),
  // so closing the tab mid-take keeps all but the last moments.
  const flush = (): void => {
    if (recorder?.state === 'recording') recorder.requestData();
  };
  const onHidden = (): void => {
    if (document.visibilityState === 'hidden') flush();
  };

  const finalize = (): Promise<void> => {
    if (typeof window !== 'undefined') {
      window.removeEventListener('pagehide', flush);
      document.removeEventListener('visibilitychange', onHidden);
    }
    if (!stopping) {
      banked = elapsedMs();
      state = 'stopped';
      if (recorder && recorder.state !== 'inactive') recorder.stop();
      // MediaRecorder hands over the last slice before its 'stop' event; then that slice is queued.
      stopping = ended.then(() => lastAppend.catch(() => undefined)).then(() => take.update({ state: 'stopped' }));
    }
    return stopping;
  };

  const self: TakeRecorder = {
    get state() {
      return state;
    },
    onError: null,
    onSlice: null,
    elapsedMs,
    start() {
      if (state !== 'idle') return;
      // Chromium's MP4 writer closes a fragment only at a keyframe, and a canvas track's encoder
      // makes one rarely: without a keyframe interval a take's slices arrive only at stop (measured
      // here: one 1.2 kB slice in 8 s), and a crash would lose everything. A keyframe each slice
      // gives a slice each second (Chromium's option; other browsers ignore it).
      const settings: MediaRecorderOptions & { videoKeyFrameIntervalDuration: number } = {
        videoBitsPerSecond: options.videoBitsPerSecond ?? VIDEO_BITS_PER_SECOND,
        audioBitsPerSecond: AUDIO_BITS_PER_SECOND,
        videoKeyFrameIntervalDuration: sliceMs,
      };
      if (take.meta.mimeType) settings.mimeType = take.meta.mimeType;
      const rec = new MediaRecorder(stream, settings);
      rec.addEventListener('dataavailable', (event: BlobEvent) => {
        if (event.data.size === 0) return;
        // The time is taken now: after stop it is frozen, so the last slice carries the whole length.
        lastAppend = take.append(event.data, Math.round(elapsedMs()));
        lastAppend.then(
          () => self.onSlice?.(take.meta),
          (error: unknown) => report(asError(error)),
        );
      });
      rec.addEventListener('error', (event: Event) => {
        const error = (event as Event & { error?: unknown }).error;
        report(error instanceof Error ? error : new Error('The recorder failed'));
      });
      ended = new Promise<void>((resolve) => {
        rec.addEventListener(
          'stop',
          () => {
            resolve();
            // Not asked for: every track ended (or an error). Keep what is written and say so.
            if (state !== 'stopped') {
              report(new Error('The recording ended on its own'));
              void finalize();
            }
          },
          { once: true },
        );
      });
      recorder = rec;
      if (typeof window !== 'undefined') {
        window.addEventListener('pagehide', flush);
        document.addEventListener('visibilitychange', onHidden);
      }
      rec.start(sliceMs);
      runSince = performance.now();
      state = 'recording';
    },
    pause() {
      if (state !== 'recording' || !recorder) return;
      recorder.pause();
      banked = elapsedMs();
      state = 'paused';
    },
    resume() {
      if (state !== 'paused' || !recorder) return;
      recorder.resume();
      runSince = performance.now();
      state = 'recording';
    },
    stop() {
      return finalize();
    },
  };
  return self;
}
