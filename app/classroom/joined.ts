import type { JoinAnswer } from '#core/contracts/api.ts';

/**
 * The visitor's name step already joined the room before navigating; it hands the answer over in
 * the history state so the classroom does not join twice. Only a fresh answer is reused (a reload
 * or a back-navigation joins again). `preJoined`: that screen was the pre-join (ADR 089), so the
 * room opens straight away.
 */
export interface JoinedState {
  joined: JoinAnswer;
  at: number;
  preJoined?: boolean;
}

const FRESH_MS = 15_000;

export function freshJoin(state: unknown, roomNumber: string): JoinAnswer | null {
  if (!state || typeof state !== 'object' || !('joined' in state) || !('at' in state)) return null;
  const { joined, at } = state as JoinedState;
  if (typeof at !== 'number' || Date.now() - at > FRESH_MS) return null;
  return joined?.roomInfo?.roomNumber === roomNumber ? joined : null;
}

export function preJoined(state: unknown): boolean {
  return !!state && typeof state === 'object' && (state as Partial<JoinedState>).preJoined === true;
}
