/**
 * The package rule of cloud recording (ADR 072): recording is part of what a teacher pays for.
 * A creator may record while any paid entitlement runs: a recording package (`recordRoomTime`, the
 * spec's expiry of recording rights), the monthly membership, a big-class package, or the credit
 * window a spent credit opened. A recording may run until the latest of those ends; null: none runs.
 */
import type { UserRow } from '../account/account.repository.ts';

type Entitlements = Pick<
  UserRow,
  'record_room_time' | 'vip_room_time' | 'vip_big_room_time' | 'vip_big_room_people_number' | 'credit_window_until'
>;

export function recordingAllowance(u: Entitlements, now: Date): Date | null {
  const ends = [u.record_room_time, u.vip_room_time, u.vip_big_room_people_number > 0 ? u.vip_big_room_time : null, u.credit_window_until]
    .filter((d): d is Date => d !== null && d.getTime() > now.getTime())
    .map((d) => d.getTime());
  return ends.length ? new Date(Math.max(...ends)) : null;
}
