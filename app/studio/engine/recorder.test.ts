import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRecorder, mediaTypeOf, pickMimeType } from './recorder.ts';
import type { Take, TakeMeta } from './types.ts';

/** MediaRecorder as far as the recorder uses it; the test hands over slices with `slice()`. */
class FakeMediaRecorder extends EventTarget {
  static supported = new Set<string>();
  static last: FakeMediaRecorder | null = null;
  static isTypeSupported(type: string): boolean {
    return FakeMediaRecorder.supported.has(type);
  }

  state: 'inactive' | 'recording' | 'paused' = 'inactive';
  timeslice: number | undefined;
  readonly options: MediaRecorderOptions;

  constructor(_stream: MediaStream, options: MediaRecorderOptions) {
    super();
    this.options = options;
    FakeMediaRecorder.last = this;
  }

  start(timeslice?: number): void {
    this.state = 'recording';
    this.timeslice = timeslice;
  }

  pause(): void {
    this.state = 'paused';
  }

  resume(): void {
    this.state = 'recording';
  }

  /** Like the browser: the last slice, then 'stop', a little later. */
  stop(): void {
    this.state = 'inactive';
    setTimeout(() => {
      this.slice('last');
      this.dispatchEvent(new Event('stop'));
    }, 10);
  }

  slice(text: string): void {
    const event = new Event('dataavailable') as Event & { data: Blob };
    event.data = new Blob([text]);
    this.dispatchEvent(event);
  }

  /** Every track ended: the browser stops the recorder on its own. */
  endOnItsOwn(): void {
    this.state = 'inactive';
    this.slice('tail');
    this.dispatchEvent(new Event('stop'));
  }
}

/** A take whose appends take `appendMs` of (fake) time each, in order, and can be made to fail. */
class SlowTake implements Take {
  readonly meta: TakeMeta = {
    id: '1700000000000-abcdef12',
    createdAt: 1_700_000_000_000,
    mimeType: 'video/webm;codecs=vp8,opus',
    mediaType: 'video/webm',
    durationMs: 0,
    bytes: 0,
    slices: 0,
    state: 'recording',
  };
  readonly appended: { text: string; durationMs: number }[] = [];
  appendMs = 0;
  failing = false;
  private queue: Promise<void> = Promise.resolve();

  append(slice: Blob, durationMs: number): Promise<void> {
    const run = this.queue.then(async () => {
      if (this.appendMs > 0) await new Promise((r) => setTimeout(r, this.appendMs));
      if (this.failing) throw new DOMException('The disk is full', 'QuotaExceededError');
      this.appended.push({ text: await slice.text(), durationMs });
      this.meta.slices += 1;
      this.meta.bytes += slice.size;
      this.meta.durationMs = durationMs;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  async update(patch: Partial<Omit<TakeMeta, 'id' | 'createdAt'>>): Promise<void> {
    Object.assign(this.meta, patch);
  }

  async blob(): Promise<Blob> {
    return new Blob([]);
  }
}

const stream = {} as MediaStream;

describe('recorder', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    FakeMediaRecorder.supported = new Set();
    vi.stubGlobal('MediaRecorder', FakeMediaRecorder);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('picks the first format the browser records, MP4 before WebM', () => {
    FakeMediaRecorder.supported = new Set(['video/webm', 'video/mp4', 'video/webm;codecs=vp8,opus']);
    expect(pickMimeType()).toBe('video/mp4');
    FakeMediaRecorder.supported = new Set(['video/webm', 'video/webm;codecs=vp8,opus']);
    expect(pickMimeType()).toBe('video/webm;codecs=vp8,opus');
    FakeMediaRecorder.supported = new Set();
    expect(pickMimeType()).toBe('');
    vi.stubGlobal('MediaRecorder', undefined);
    expect(pickMimeType()).toBe('');
  });

  it('names the container the server takes', () => {
    expect(mediaTypeOf('video/mp4;codecs=avc1,opus')).toBe('video/mp4');
    expect(mediaTypeOf('VIDEO/MP4')).toBe('video/mp4');
    expect(mediaTypeOf('video/webm;codecs=vp8,opus')).toBe('video/webm');
    expect(mediaTypeOf('video/x-matroska;codecs=avc1')).toBe('video/webm');
  });

  it('records in 1 s slices at 720p lesson bitrates, and counts time without the pauses', async () => {
    const take = new SlowTake();
    const recorder = createRecorder(stream, take);
    const written: number[] = [];
    recorder.onSlice = (meta) => written.push(meta.slices);
    expect(recorder.state).toBe('idle');
    recorder.start();
    const mr = FakeMediaRecorder.last!;
    expect(mr.timeslice).toBe(1000);
    // A keyframe each slice: Chromium's MP4 writer hands data over only at keyframes.
    expect(mr.options).toEqual({
      mimeType: 'video/webm;codecs=vp8,opus',
      videoBitsPerSecond: 5_000_000,
      audioBitsPerSecond: 128_000,
      videoKeyFrameIntervalDuration: 1000,
    });

    await vi.advanceTimersByTimeAsync(1000);
    mr.slice('one');
    await vi.advanceTimersByTimeAsync(500);
    recorder.pause();
    expect(mr.state).toBe('paused');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(recorder.elapsedMs()).toBe(1500);
    recorder.resume();
    expect(mr.state).toBe('recording');
    await vi.advanceTimersByTimeAsync(500);
    mr.slice('two');
    mr.slice(''); // empty slices are not written
    await vi.advanceTimersByTimeAsync(250);
    expect(recorder.elapsedMs()).toBe(2250);
    expect(take.appended).toEqual([
      { text: 'one', durationMs: 1000 },
      { text: 'two', durationMs: 2000 },
    ]);
    // Told after each slice is in the take (when the screens pump the upload).
    expect(written).toEqual([1, 2]);
  });

  it('stop() resolves once the last slice is in the take and the take is stopped', async () => {
    const take = new SlowTake();
    take.appendMs = 300;
    const recorder = createRecorder(stream, take);
    recorder.start();
    const mr = FakeMediaRecorder.last!;
    await vi.advanceTimersByTimeAsync(1000);
    mr.slice('one');
    await vi.advanceTimersByTimeAsync(700);
    let stopped = false;
    const stopping = recorder.stop().then(() => (stopped = true));
    expect(recorder.stop()).toBe(recorder.stop());
    expect(recorder.state).toBe('stopped');
    // The time is frozen at stop.
    await vi.advanceTimersByTimeAsync(200);
    expect(recorder.elapsedMs()).toBe(1700);
    // 'last' arrives at 10 ms and takes 300 ms (after 'one' finished at 1300 ms).
    expect(stopped).toBe(false);
    expect(take.meta.state).toBe('recording');
    await vi.advanceTimersByTimeAsync(200);
    await stopping;
    expect(take.appended).toEqual([
      { text: 'one', durationMs: 1000 },
      { text: 'last', durationMs: 1700 },
    ]);
    expect(take.meta.state).toBe('stopped');
  });

  it('reports a slice that could not be written, once, and still stops', async () => {
    const take = new SlowTake();
    const recorder = createRecorder(stream, take);
    const errors: Error[] = [];
    recorder.onError = (e) => errors.push(e);
    recorder.start();
    const mr = FakeMediaRecorder.last!;
    mr.slice('one');
    take.failing = true;
    mr.slice('two');
    mr.slice('three');
    await vi.advanceTimersByTimeAsync(0);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ name: 'QuotaExceededError' });
    const stopping = recorder.stop();
    await vi.advanceTimersByTimeAsync(20);
    await stopping;
    expect(take.meta.state).toBe('stopped');
  });

  it('keeps the take and says so when the recording ends on its own (every track ended)', async () => {
    const take = new SlowTake();
    const recorder = createRecorder(stream, take);
    const errors: Error[] = [];
    recorder.onError = (e) => errors.push(e);
    recorder.start();
    await vi.advanceTimersByTimeAsync(3000);
    FakeMediaRecorder.last!.endOnItsOwn();
    expect(recorder.state).toBe('stopped');
    expect(errors).toHaveLength(1);
    await recorder.stop();
    expect(take.appended).toEqual([{ text: 'tail', durationMs: 3000 }]);
    expect(take.meta.state).toBe('stopped');
  });
});
