/**
 * Who may publish what (docs/product/decisions.md, room types), and the signed media token a web node hands out
 * with the media node's address. The media node trusts only this token: it refuses any publish the
 * token does not name.
 */
import type { JoinAnswer, RoomType } from '../contracts/api.ts';
import { RECORDER_USER_ID, type MediaSource, type MediaTokenPayload } from '../contracts/media-signaling.ts';
import type { TokenSigner } from '../platform/secrets.ts';
import { publishRights, type ClassMode } from './capabilities.ts';

export interface MediaGrantInput {
  roomNumber: string;
  roomType: RoomType;
  userId: string;
  role: JoinAnswer['role'];
  /** '2' is the creator's screen-share join (docs/product/02-live-classroom.md §4). */
  userType: JoinAnswer['userType'];
  /** The person is on stage now (the teacher's invitation was accepted, or the carousel; ADR 112). The token's `mic` claim. */
  micConnected: boolean;
  /** The room's mode when the token is signed (the media node's first word on it, ADR 099); 'discuss' when absent. */
  mode?: ClassMode;
  /** The person's place among the breakout groups when the token is signed (ADR 116): the token's `grp` claim; 0 or absent the main room. */
  group?: number;
}

/**
 * What the room type gives this person to send (core/rooms/capabilities.ts, one rule with the
 * classroom's buttons), whatever the mode: the token carries these, with the room's mode and
 * whether the person is on stage, and the media node closes the microphone while the
 * mode says so (ADR 099).
 */
export function mediaRights(g: Pick<MediaGrantInput, 'roomType' | 'role' | 'userType' | 'micConnected'>): MediaSource[] {
  return publishRights({ roomType: g.roomType, role: g.role, userType: g.userType, onStage: g.micConnected, mode: 'discuss' });
}

export interface MediaPlacement {
  /** The media node's URL for browsers (its socket lives at `${url}/media`). */
  url: string;
}

/** Signs the token; the node it names is chosen by the caller (placement). */
export function signMediaToken(signer: TokenSigner, g: MediaGrantInput, ttlSeconds: number, nowMs: number): string {
  const payload: MediaTokenPayload = {
    scope: 'media',
    room: g.roomNumber,
    uid: g.userId,
    role: g.role,
    rt: g.roomType,
    pub: mediaRights(g),
    mode: g.mode ?? 'discuss',
    mic: g.micConnected,
    ...(g.group !== undefined ? { grp: g.group } : {}),
  };
  return signer.sign(payload, ttlSeconds, nowMs);
}

/** The cloud recorder's token: a hidden peer of the room that publishes nothing and only subscribes. */
export function signRecorderToken(
  signer: TokenSigner,
  g: { roomNumber: string; roomType: RoomType },
  ttlSeconds: number,
  nowMs: number,
): string {
  const payload: MediaTokenPayload = {
    scope: 'media',
    room: g.roomNumber,
    uid: RECORDER_USER_ID,
    role: 'recorder',
    rt: g.roomType,
    pub: [],
  };
  return signer.sign(payload, ttlSeconds, nowMs);
}
