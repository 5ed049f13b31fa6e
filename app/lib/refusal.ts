/**
 * The refusal page of ADR 091: every way a person is kept out of a classroom (removed, full,
 * closed, not found, no permission, too many attempts) opens /refused/{kind}?room={number}. Pure
 * mapping from the server's codes, shared by the guard, the join, the room channel and the page.
 */
import { isRouteRoomId } from './names.ts';

export const REFUSAL_KINDS = ['removed', 'full', 'closed', 'time-up', 'not-found', 'no-permission', 'too-many', 'unavailable'] as const;
export type RefusalKind = (typeof REFUSAL_KINDS)[number];

export function isRefusalKind(value: string | undefined): value is RefusalKind {
  return (REFUSAL_KINDS as readonly string[]).includes(value ?? '');
}

/**
 * The kind for a refusal code of core/platform/errors.ts. `reason` is the envelope's reason
 * ('removed' rides on 31004); the room channel's own kick-out event passes 'kickout'.
 */
export function refusalKind(code: string, reason?: string): RefusalKind {
  if (code === 'kickout' || reason === 'removed') return 'removed';
  // An audio class whose hour ran out (the room channel's roomClosed reason 'expired', ADR 099).
  if (code === 'time-up') return 'time-up';
  switch (code) {
    case '31002':
      return 'not-found';
    case '31003':
      return 'full';
    case '31004':
      return 'no-permission';
    case '31006':
      return 'too-many';
    case '31009':
      return 'closed';
    default:
      return 'unavailable';
  }
}

/** Codes by which a room refuses this person (as opposed to bad input or a network problem). */
export function isRoomRefusal(code: string): boolean {
  return ['31002', '31003', '31004', '31006', '31009', '31011'].includes(code);
}

/** The address of the refusal page; the room number rides along when it is a valid one. */
export function refusalPath(code: string, roomNumber?: string, reason?: string): string {
  // A demo past its end: its own page says so, with a button to start a new one (ADR 092).
  if (code === '31011' && roomNumber && isRouteRoomId(roomNumber)) return `/demo/${roomNumber}`;
  const kind = refusalKind(code, reason);
  const room = roomNumber && isRouteRoomId(roomNumber) ? `?room=${roomNumber}` : '';
  return `/refused/${kind}${room}`;
}
