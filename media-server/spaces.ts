/**
 * Spaces inside a room (breakout groups, issue 31, ADR 117): the main room is space 0, each group
 * its number. A person is in the space the web side last told the node (the `groups` control
 * command), or until then the one their token's `grp` claim names; observers and the recorder are
 * always in the main room. A peer sees, hears and may subscribe to only the publications of its
 * own space, so no packet crosses from one space to another. These are the pure rules; the room
 * (room.ts) applies them to its peers, publications and subscriptions.
 */
import type { MediaTokenPayload } from '#core/contracts/media-signaling.ts';

/** userId -> group number (1..); whoever is not in it is in the main room. */
export type Spaces = ReadonlyMap<string, number>;

export const NO_SPACES: Spaces = new Map();

/** Whom a space is asked about: a peer, or the publisher of a publication. */
export interface Someone {
  readonly userId: string;
  readonly role: MediaTokenPayload['role'];
}

/** The space a person is in now. */
export function spaceOf(spaces: Spaces, who: Someone): number {
  if (who.role === 'observer' || who.role === 'recorder') return 0;
  return spaces.get(who.userId) ?? 0;
}

/** Whether a peer sees a publication: both in the same space. */
export function sees(spaces: Spaces, peer: Someone, publisher: Someone): boolean {
  return spaceOf(spaces, peer) === spaceOf(spaces, publisher);
}

/** The spaces a token says until the web side said: its holder's `grp` claim replaces their place. */
export function withClaim(spaces: Spaces, who: Someone, grp: number | undefined): Spaces {
  if (who.role === 'observer' || who.role === 'recorder') return spaces;
  const now = grp ?? 0;
  if ((spaces.get(who.userId) ?? 0) === now) return spaces;
  const next = new Map(spaces);
  if (now > 0) next.set(who.userId, now);
  else next.delete(who.userId);
  return next;
}

/** Those in a group before and in the main room after (a large class's student loses the stage's rights). */
export function leftGroups(before: Spaces, after: Spaces): string[] {
  return [...before].filter(([userId, no]) => no > 0 && (after.get(userId) ?? 0) === 0).map(([userId]) => userId);
}

/** What a peer is told when the map changes: tracks it stops seeing, tracks it starts seeing. */
export interface SpacesChange<P, T> {
  hidden: Array<{ peer: P; track: T }>;
  shown: Array<{ peer: P; track: T }>;
}

/**
 * The map changes from `before` to `after`: for every peer and every publication it does not own
 * (`owns`), whether it stopped or started seeing it. A publication's publisher is `publisher(t)`.
 */
export function spacesChange<P extends Someone, T>(
  before: Spaces,
  after: Spaces,
  peers: Iterable<P>,
  tracks: Iterable<T>,
  publisher: (t: T) => Someone,
  owns: (p: P, t: T) => boolean,
): SpacesChange<P, T> {
  const change: SpacesChange<P, T> = { hidden: [], shown: [] };
  const all = [...tracks];
  for (const peer of peers) {
    for (const track of all) {
      if (owns(peer, track)) continue;
      const was = sees(before, peer, publisher(track));
      const is = sees(after, peer, publisher(track));
      if (was && !is) change.hidden.push({ peer, track });
      else if (!was && is) change.shown.push({ peer, track });
    }
  }
  return change;
}
