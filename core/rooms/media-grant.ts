/**
 * Who may publish what (docs/product/decisions.md, room types), and the signed media token a web node hands out
 * with the media node's address. The media node trusts only this token: it refuses any publish the
 * token does not name.
 */
import type { JoinAnswer, RoomType } from '../contracts/api.ts';
import { RECORDER_USER_ID, type MediaSource, type MediaTokenPayload } from '../contracts/media-signaling.ts';
import type { TokenSigner } from '../platform/secrets.ts';

export interface MediaGrantInput {
  roomNumber: string;
  roomType: RoomType;
  userId: string;
  role: JoinAnswer['role'];
  /** '2' is the creator's screen-share join (docs/product/02-live-classroom.md §4). */
  userType: JoinAnswer['userType'];
  /** The person holds the microphone now (a large class's invitation was accepted). */
  micConnected: boolean;
}

/**
 * - type 1 mini class: everyone seated sends camera and microphone; the creator also shares a screen.
 * - types 2 and 3 (whiteboard, audio class): audio only, for everyone seated.
 * - type 4 large class: the creator sends camera, microphone and screen; a student only the
 *   microphone, and only while invited to it (docs/product/02-live-classroom.md §4: 'agree ... publishes audio').
 * - observers never publish; a screen-share join (userType '2') publishes the screen alone.
 */
export function mediaRights(g: Pick<MediaGrantInput, 'roomType' | 'role' | 'userType' | 'micConnected'>): MediaSource[] {
  if (g.role === 'observer' || g.userType === '3') return [];
  if (g.userType === '2') return g.role === 'creator' && (g.roomType === 1 || g.roomType === 4) ? ['screen'] : [];
  const creator = g.role === 'creator';
  switch (g.roomType) {
    case 1:
      return creator ? ['mic', 'camera', 'screen'] : ['mic', 'camera'];
    case 2:
    case 3:
      return ['mic'];
    case 4:
      if (creator) return ['mic', 'camera', 'screen'];
      return g.micConnected ? ['mic'] : [];
  }
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
