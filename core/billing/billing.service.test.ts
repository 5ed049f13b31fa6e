import { describe, expect, it } from 'vitest';
import { ManualClock } from '../platform/clock.ts';
import { DomainError } from '../platform/errors.ts';
import type { UserRow } from '../account/account.repository.ts';
import type { BillingRepository, Trx } from './billing.repository.ts';
import { BillingService } from './billing.service.ts';

const user = (over: Partial<UserRow> = {}): UserRow => ({
  id: '1',
  mobile: '13800000000',
  name: 'T',
  kind: 'teacher',
  promo_code: 'ABCDEF',
  promo_points: 0,
  vip_room_time: null,
  vip_room_remaining_number: 0,
  vip_big_room_people_number: 0,
  vip_big_room_time: null,
  record_room_time: null,
  credit_window_until: null,
  ...over,
});

/** A repository double through the same port: rows in memory, the spend outcome chosen by the test. */
function repo(row: UserRow, spendSucceeds = true) {
  const spent: Date[] = [];
  const r = {
    entitlements: () => Promise.resolve(row),
    lockEntitlements: () => Promise.resolve(row),
    spendCredit: (_t: Trx, _u: string, until: Date) => {
      if (spendSucceeds) spent.push(until);
      return Promise.resolve(spendSucceeds);
    },
  };
  return { repo: r as unknown as BillingRepository, spent };
}

const trx = {} as Trx;

describe('BillingService.entitleMiniClass', () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 22, 8));
  const config = { CREDIT_WINDOW_HOURS: 3 };

  it('VIP and an open window cost nothing', async () => {
    const vip = repo(user({ vip_room_time: new Date(clock.now().getTime() + 1000), vip_room_remaining_number: 3 }));
    expect(await new BillingService(vip.repo, clock, config).entitleMiniClass(trx, '1')).toBe('vip');
    const win = repo(user({ credit_window_until: new Date(clock.now().getTime() + 1000), vip_room_remaining_number: 3 }));
    expect(await new BillingService(win.repo, clock, config).entitleMiniClass(trx, '1')).toBe('window');
    expect(vip.spent).toHaveLength(0);
    expect(win.spent).toHaveLength(0);
  });

  it('spends a credit and opens a 3 hour window', async () => {
    const r = repo(user({ vip_room_remaining_number: 2 }));
    expect(await new BillingService(r.repo, clock, config).entitleMiniClass(trx, '1')).toBe('credit');
    expect(r.spent[0]!.getTime()).toBe(clock.now().getTime() + 3 * 3600_000);
  });

  it('21007 with no credits, 21008 when the deduction does not take', async () => {
    const none = new BillingService(repo(user()).repo, clock, config);
    await expect(none.entitleMiniClass(trx, '1')).rejects.toMatchObject({ code: '21007' });
    const failing = new BillingService(repo(user({ vip_room_remaining_number: 1 }), false).repo, clock, config);
    const err = await failing.entitleMiniClass(trx, '1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('21008');
  });
});
