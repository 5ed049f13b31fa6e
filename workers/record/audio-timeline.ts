/**
 * One audio track's sound, put on the recorder's clock by its RTP timestamps (ADR 083).
 *
 * Each packet's samples are placed at `rtp / 48 + base` ms, where `base` is the smallest gap seen
 * between a packet's arrival and its RTP time: the moment the packet would have arrived with no
 * jitter. The mixer takes the sound of a span of that clock when the span is MEDIA_HOLD_MS old, so
 * packets that came late by less than the hold are in their place, and the sound keeps one steady
 * distance from the moment it was captured however it arrived (in bursts after a stall, with gaps,
 * in silence with no packets at all).
 *
 * A gap in the packets is silence. The base follows the sender's clock: a smaller gap moves it at
 * once; a gap larger by more than 1 s (a sender that started again, a clock that jumped) starts it
 * again; when a whole 2 s window's smallest gap stayed above it (a sender clock slower than ours)
 * it moves up. The newest packet whose place the mixer took already (a sender that fell behind
 * real time, as a starved browser's microphone does) goes right after what was taken, and the base
 * moves up by as much, so that sender is heard late rather than not at all (counted as shifted).
 * An older packet that came after its place was taken (out of order) is dropped (counted as late).
 */
import { AUDIO_RATE } from './types.ts';

const SAMPLES_PER_MS = AUDIO_RATE / 1000;
/** RTP timestamps of Opus count 48 kHz samples whatever the sound's rate. */
const RTP_RATE = 48_000;
/** A packet more than this later than the base says is a new start of the sender's clock. */
const REBASE_MS = 1000;
/** The window over which a base that stayed too small is moved up to what the packets show. */
const DRIFT_WINDOW_MS = 2000;
/** Sound is kept at most this long ahead of the mixer (a sender whose clock ran ahead). */
const KEEP_AHEAD_MS = 5000;

interface Piece {
  /** Where the piece starts, in samples of the recorder's clock (ms x 48). */
  at: number;
  pcm: Int16Array;
}

export interface PlacedSummary {
  /**
   * Samples placed; samples of older packets dropped because the mixer had passed their place; ms
   * the base moved up for the newest packets that came too late; times the sender's clock started again.
   */
  samples: number;
  late: number;
  shiftedMs: number;
  rebased: number;
}

export class AudioTimeline {
  #pieces: Piece[] = [];
  /** ms to add to a packet's RTP time (in ms) to put it on the recorder's clock; NaN until the first packet. */
  #base = NaN;
  /** The smallest arrival gap in the current drift window, and when that window began. */
  #windowLeast = Infinity;
  #windowFrom = 0;
  /** RTP time is unwrapped across its 32-bit wrap. */
  #lastRtp = -1;
  #wraps = 0;
  /** The mixer has taken everything before this sample. */
  #pulledTo = -Infinity;
  readonly summary: PlacedSummary = { samples: 0, late: 0, shiftedMs: 0, rebased: 0 };
  /** The newest RTP time placed (unwrapped, ms). */
  #newest = -Infinity;

  /** Places a packet's decoded samples (48 kHz mono) that arrived at `arrivedMs` (the recorder's clock). */
  place(rtpTimestamp: number, arrivedMs: number, pcm: Int16Array): void {
    const rtpMs = this.#unwrap(rtpTimestamp) / (RTP_RATE / 1000);
    const gap = arrivedMs - rtpMs;
    if (Number.isNaN(this.#base) || gap - this.#base > REBASE_MS) {
      if (!Number.isNaN(this.#base)) this.summary.rebased++;
      this.#base = gap;
      this.#windowLeast = gap;
      this.#windowFrom = arrivedMs;
    } else {
      if (gap < this.#base) this.#base = gap;
      this.#windowLeast = Math.min(this.#windowLeast, gap);
      if (arrivedMs - this.#windowFrom >= DRIFT_WINDOW_MS) {
        if (this.#windowLeast > this.#base) this.#base = this.#windowLeast;
        this.#windowLeast = Infinity;
        this.#windowFrom = arrivedMs;
      }
    }
    let at = Math.round((rtpMs + this.#base) * SAMPLES_PER_MS);
    let samples = pcm;
    const newest = rtpMs > this.#newest;
    if (newest) this.#newest = rtpMs;
    if (at < this.#pulledTo && newest) {
      // The sender is behind our clock by more than the hold: it is heard from now, late.
      const shift = this.#pulledTo - at;
      this.#base += shift / SAMPLES_PER_MS;
      this.summary.shiftedMs += shift / SAMPLES_PER_MS;
      at = this.#pulledTo;
    }
    if (at < this.#pulledTo) {
      const late = Math.min(samples.length, this.#pulledTo - at);
      this.summary.late += late;
      if (late === samples.length) return;
      samples = samples.subarray(late);
      at += late;
    }
    if (at - this.#pulledTo > KEEP_AHEAD_MS * SAMPLES_PER_MS && this.#pulledTo > -Infinity) return;
    // Kept in order of place; a packet that came out of order goes where it belongs, one that came twice once.
    let i = this.#pieces.length;
    while (i > 0 && this.#pieces[i - 1]!.at > at) i--;
    if (i > 0 && this.#pieces[i - 1]!.at === at) return;
    this.summary.samples += samples.length;
    this.#pieces.splice(i, 0, { at, pcm: samples });
  }

  /**
   * Adds the sound of `n` samples from `fromMs` (the recorder's clock) into `acc`; silence where
   * there is none. Everything before the span's end is then gone. True when it added anything.
   */
  mixInto(acc: Int32Array, fromMs: number, n: number): boolean {
    const from = Math.round(fromMs * SAMPLES_PER_MS);
    const to = from + n;
    let any = false;
    let keep = 0;
    for (const p of this.#pieces) {
      const end = p.at + p.pcm.length;
      if (p.at >= to) break;
      keep++;
      if (end <= from) continue;
      const a = Math.max(p.at, from);
      const b = Math.min(end, to);
      for (let s = a; s < b; s++) acc[s - from]! += p.pcm[s - p.at]!;
      any = true;
    }
    // Pieces that end inside the span are spent; one that runs past it keeps its rest.
    const spent: Piece[] = this.#pieces.slice(0, keep);
    this.#pieces = this.#pieces.slice(keep);
    for (let k = spent.length - 1; k >= 0; k--) {
      const p = spent[k]!;
      const end = p.at + p.pcm.length;
      if (end > to) this.#pieces.unshift({ at: to, pcm: p.pcm.subarray(to - p.at) });
    }
    this.#pulledTo = Math.max(this.#pulledTo, to);
    return any;
  }

  /** Samples waiting to be mixed (tests and diagnostics). */
  get queued(): number {
    let n = 0;
    for (const p of this.#pieces) n += p.pcm.length;
    return n;
  }

  #unwrap(ts: number): number {
    if (this.#lastRtp >= 0) {
      // A jump of more than half the range backwards is the counter wrapping, forwards a late packet from before it.
      if (ts < this.#lastRtp && this.#lastRtp - ts > 0x80000000) this.#wraps++;
      else if (ts > this.#lastRtp && ts - this.#lastRtp > 0x80000000) return ts + (this.#wraps - 1) * 0x100000000;
    }
    this.#lastRtp = ts;
    return ts + this.#wraps * 0x100000000;
  }
}
