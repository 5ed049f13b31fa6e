/**
 * A publication that sends nothing (ADR 101): a microphone that was agreed to but whose packets
 * never reach the node (a dead or muted-by-hardware device gives silence packets, not this; a
 * track that ended, a blocked UDP path or a stalled browser give none). The node is the one place
 * that knows whether RTP arrived on a publication, whatever the browser believes it sent, so it
 * watches every publication: once a second it looks at the packet count; unpaused and unchanged
 * for SILENT_AFTER_MS it tells the publisher and the room's creator (`trackSilent`, silent
 * true), and tells them again when packets come (silent false). A paused publication sends
 * nothing by design (ADR 028): its window starts again at the unpause.
 */
import type { MediaNote } from '#core/contracts/media-signaling.ts';
import { SILENT_AFTER_MS } from '#core/contracts/media-signaling.ts';
import type { Peer } from './peer.ts';
import type { Publication } from './publication.ts';

const CHECK_EVERY_MS = 1000;

/** The watched figures of a publication (Publication has them; a test may give its own). */
export interface Watched {
  readonly paused: boolean;
  readonly packets: number;
  readonly closed: boolean;
}

/** The pure step: the state after one look at `now`; `report` is set when the verdict changed. */
export interface SilenceState {
  packets: number;
  since: number;
  silent: boolean;
}

export function silenceStep(
  state: SilenceState,
  pub: Pick<Watched, 'paused' | 'packets'>,
  now: number,
  afterMs = SILENT_AFTER_MS,
): { state: SilenceState; report: boolean | null } {
  // Packets came, or it is muted on purpose (its window starts again at the unmute): not silent.
  if (pub.paused || pub.packets !== state.packets) {
    return { state: { packets: pub.packets, since: now, silent: false }, report: state.silent ? false : null };
  }
  if (!state.silent && now - state.since >= afterMs) return { state: { ...state, silent: true }, report: true };
  return { state, report: null };
}

/** Watches one publication until it closes; `tell` reaches the people who should know. */
export function watchSilence(
  pub: Watched & Pick<Publication, 'once'>,
  tell: (silent: boolean) => void,
  afterMs = SILENT_AFTER_MS,
): () => void {
  let state: SilenceState = { packets: pub.packets, since: Date.now(), silent: false };
  const timer = setInterval(() => {
    if (pub.closed) return stop();
    const next = silenceStep(state, pub, Date.now(), afterMs);
    state = next.state;
    if (next.report !== null) tell(next.report);
  }, CHECK_EVERY_MS);
  timer.unref();
  const stop = () => clearInterval(timer);
  pub.once('closed', stop);
  return stop;
}

/** The publisher and the room's creator hear of a silent publication; nobody else needs to. */
export function tellSilent(peers: Iterable<Peer>, pub: Pick<Publication, 'id' | 'userId' | 'source'>, silent: boolean): void {
  const note: MediaNote = { type: 'trackSilent', trackId: pub.id, userId: pub.userId, source: pub.source, silent };
  for (const p of peers) if (p.userId === pub.userId || p.role === 'creator') p.notify(note);
}
