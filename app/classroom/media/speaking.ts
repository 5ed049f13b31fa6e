/**
 * Who is speaking, from the media node's audio levels (0-100, sent every 300 ms while anyone is
 * above the node's floor of 10). The raw levels jump with every syllable, so the outline follows
 * a smoothed level with a threshold to come on and a hold to go off (ADR 088):
 * - smoothed = 0.6 * new + 0.4 * previous (a missing report counts as 0);
 * - a person starts speaking when the smoothed level reaches SPEAK_ON (12);
 * - and stops HOLD_MS (1200 ms) after their last report at or above SPEAK_ON.
 * A report stands until the next one (the node sends only changes), so the client folds the last
 * one in every SPEAKING_TICK_MS.
 * The active speaker is the speaking person with the highest smoothed level; the current one
 * keeps the place while still speaking unless another is louder by SWITCH_MARGIN (15).
 */
export const SPEAK_ON = 12;
export const HOLD_MS = 1200;
export const SWITCH_MARGIN = 15;
/** How often the last report is folded in (the node reports every 300 ms). */
export const SPEAKING_TICK_MS = 300;

export interface SpeakingState {
  smoothed: Record<string, number>;
  lastLoud: Record<string, number>;
  active: string;
}

export const NO_SPEAKING: SpeakingState = { smoothed: {}, lastLoud: {}, active: '' };

/** Folds one levels report (or a tick with no report: `levels` = {}) into the state at `now`. */
export function nextSpeaking(prev: SpeakingState, levels: Record<string, number>, now: number): SpeakingState {
  const smoothed: Record<string, number> = {};
  const lastLoud: Record<string, number> = {};
  const ids = new Set([...Object.keys(prev.smoothed), ...Object.keys(levels)]);
  for (const id of ids) {
    const level = 0.6 * (levels[id] ?? 0) + 0.4 * (prev.smoothed[id] ?? 0);
    const loudAt = level >= SPEAK_ON ? now : prev.lastLoud[id];
    if (loudAt === undefined || now - loudAt > HOLD_MS) continue;
    smoothed[id] = level;
    lastLoud[id] = loudAt;
  }
  let active = prev.active in lastLoud ? prev.active : '';
  for (const id of Object.keys(lastLoud)) {
    if (id === active) continue;
    const margin = active ? SWITCH_MARGIN : 0;
    if (!active || smoothed[id]! > smoothed[active]! + margin) active = id;
  }
  // Nothing heard and nothing outlined: the same state (no re-render).
  if (active === prev.active && Object.keys(lastLoud).length === 0 && Object.keys(prev.lastLoud).length === 0) return prev;
  return { smoothed, lastLoud, active };
}

/** The people whose outline shows now. */
export function speakingIds(state: SpeakingState): Set<string> {
  return new Set(Object.keys(state.lastLoud));
}
