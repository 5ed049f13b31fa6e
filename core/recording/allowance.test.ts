import { describe, expect, it } from 'vitest';
import { recordingAllowance } from './allowance.ts';

const now = new Date(Date.UTC(2026, 10, 24, 8));
const at = (hours: number) => new Date(now.getTime() + hours * 3600_000);
const none = {
  record_room_time: null,
  vip_room_time: null,
  vip_big_room_time: null,
  vip_big_room_people_number: 0,
  credit_window_until: null,
};

describe('recordingAllowance (ADR 072)', () => {
  it('nobody without a running paid entitlement records', () => {
    expect(recordingAllowance(none, now)).toBeNull();
    expect(recordingAllowance({ ...none, vip_room_time: at(-1), record_room_time: at(-2), credit_window_until: now }, now)).toBeNull();
    // A big-class package with no people is no package.
    expect(recordingAllowance({ ...none, vip_big_room_time: at(48), vip_big_room_people_number: 0 }, now)).toBeNull();
  });

  it('each entitlement allows recording until it ends; the latest one counts', () => {
    expect(recordingAllowance({ ...none, record_room_time: at(10) }, now)).toEqual(at(10));
    expect(recordingAllowance({ ...none, vip_room_time: at(720) }, now)).toEqual(at(720));
    expect(recordingAllowance({ ...none, vip_big_room_time: at(30), vip_big_room_people_number: 10 }, now)).toEqual(at(30));
    expect(recordingAllowance({ ...none, credit_window_until: at(3) }, now)).toEqual(at(3));
    expect(recordingAllowance({ ...none, credit_window_until: at(3), record_room_time: at(100), vip_room_time: at(-5) }, now)).toEqual(
      at(100),
    );
  });
});
