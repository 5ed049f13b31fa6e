/**
 * One rule per capability of a person in a live room (ADR 099): the 10-minute trial, sharing a
 * screen, the camera and the microphone. The server decides with these functions (the room
 * service's startTrial, the media token's rights, the media node's lecture hold) and the classroom
 * offers its buttons with the very same functions, so a button is shown exactly where the server
 * would say yes (core/rooms/capabilities.test.ts proves it room type by role).
 *
 * Room types (docs/product/decisions.md): 1 mini class (video), 2 whiteboard class, 3 audio class,
 * 4 large class. Modes (docs/product/02-live-classroom.md §4): in `discuss` everyone seated may
 * speak within the room type's rights; in `lecture` a student's microphone is closed unless they
 * are on stage (ADR 112: on stage counts as invited).
 */
import type { RoomType } from '../contracts/api.ts';
import type { MediaSource } from '../contracts/media-signaling.ts';

export const CLASS_MODES = ['discuss', 'lecture'] as const;
export type ClassMode = (typeof CLASS_MODES)[number];

export const CAPABILITIES = ['trial', 'screen', 'camera', 'mic'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export type CapabilityRole = 'creator' | 'member' | 'tourist' | 'observer' | 'recorder';

export interface CapabilityInput {
  roomType: RoomType;
  role: CapabilityRole;
  /** '2' is the creator's screen-share join (it sends the screen alone), '3' an observer. Default '1'. */
  userType?: '1' | '2' | '3';
  /** The room is paid (VIP or a credit): no trial. */
  isVip?: boolean;
  /** The room's mode now; 'discuss' when absent. */
  mode?: ClassMode;
  /** This person is on stage (the teacher's invitation accepted, or the carousel; ADR 112). */
  onStage?: boolean;
  /** The room's one trial was taken already. */
  trialUsed?: boolean;
}

/** Observers, the recorder and a screen-share join never take part as a person. */
function audience(i: CapabilityInput): boolean {
  return i.role === 'observer' || i.role === 'recorder' || i.userType === '3';
}

/**
 * What the room type gives this person to send, whatever the mode:
 * - type 1: everyone seated sends camera and microphone; the creator also shares a screen;
 * - types 2 and 3: the microphone only (no camera; no screen: the audio class has no video at all,
 *   the whiteboard class's main view is always its board);
 * - type 4: the creator sends camera, microphone and screen; a student camera and microphone,
 *   only while on stage (ADR 112);
 * - a screen-share join (userType '2') sends the screen alone, and only a creator's where a screen
 *   may be shared.
 */
function byRoomType(source: MediaSource, i: CapabilityInput): boolean {
  if (audience(i)) return false;
  const creator = i.role === 'creator';
  if (i.userType === '2') return source === 'screen' && creator && (i.roomType === 1 || i.roomType === 4);
  switch (i.roomType) {
    case 1:
      return source !== 'screen' || creator;
    case 2:
    case 3:
      return source === 'mic';
    case 4:
      return creator || (source !== 'screen' && !!i.onStage);
  }
}

/**
 * Lecture mode closes a student's microphone: only the creator, and those on stage, may speak.
 * True when the mode takes this person's microphone now.
 */
export function micHeldByMode(i: Pick<CapabilityInput, 'role' | 'mode' | 'onStage'>): boolean {
  return i.mode === 'lecture' && i.role !== 'creator' && !i.onStage;
}

/** The one rule: may this person do this now? */
export function can(capability: Capability, i: CapabilityInput): boolean {
  switch (capability) {
    case 'trial':
      // docs/product/decisions.md: a non-VIP creator of a type 1 or 4 room, once per room.
      return i.role === 'creator' && i.userType !== '2' && (i.roomType === 1 || i.roomType === 4) && !i.isVip && !i.trialUsed;
    case 'screen':
    case 'camera':
      return byRoomType(capability, i);
    case 'mic':
      return byRoomType('mic', i) && !micHeldByMode(i);
  }
}

/** The sources this person may send now (the media node's rights; the order is mic, camera, screen). */
export function publishRights(i: CapabilityInput): MediaSource[] {
  return (['mic', 'camera', 'screen'] as const).filter((s) => can(s, i));
}

/**
 * The media node's side of the same rule: the rights a token granted (the room type's, issued in
 * any mode) as they stand in the room's mode now. The microphone is the only source a mode takes.
 */
export function rightsInMode(granted: readonly MediaSource[], i: Pick<CapabilityInput, 'role' | 'mode' | 'onStage'>): MediaSource[] {
  return micHeldByMode(i) ? granted.filter((s) => s !== 'mic') : [...granted];
}

/**
 * A free room whose seats are all taken, where paying would give a larger room (ADR 103): the mini
 * class (free 2, paid 4) and the large class (free 2, paid the package's size), the room types the
 * trial is for. Whiteboard and audio classes have one cap for everyone, so upgrading would not help.
 */
export function freeRoomFull(room: { roomType: number; isVIP: '0' | '1'; maxMember: number }, participants: number): boolean {
  return room.isVIP !== '1' && (room.roomType === 1 || room.roomType === 4) && participants >= room.maxMember;
}
