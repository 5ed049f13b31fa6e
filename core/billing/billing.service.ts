/**
 * Membership, per-session credits and the credit window: who may open a paid room and what it costs.
 */
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { DomainError, tokenInvalid } from '../platform/errors.ts';
import type { VipUserInfo } from '../contracts/api.ts';
import type { Viewer } from '../account/account.service.ts';
import type { UserRow } from '../account/account.repository.ts';
import type { BillingRepository, Trx } from './billing.repository.ts';

const ms = (d: Date | null) => (d ? d.getTime() : 0);

export type MiniClassEntitlement = 'vip' | 'window' | 'credit';

export class BillingService {
  private readonly repo: BillingRepository;
  private readonly clock: Clock;
  private readonly config: Pick<Config, 'CREDIT_WINDOW_HOURS'>;
  constructor(repo: BillingRepository, clock: Clock, config: Pick<Config, 'CREDIT_WINDOW_HOURS'>) {
    this.repo = repo;
    this.clock = clock;
    this.config = config;
  }

  static vipInfo(u: UserRow): VipUserInfo {
    return {
      vipRoomTime: ms(u.vip_room_time),
      vipRoomRemainingNumber: u.vip_room_remaining_number,
      vipBigRoomPeopleNumber: u.vip_big_room_people_number,
      vipBigRoomTime: ms(u.vip_big_room_time),
      recordRoomTime: ms(u.record_room_time),
      creditWindowUntil: ms(u.credit_window_until),
    };
  }

  async getVipInfo(viewer: Viewer): Promise<VipUserInfo> {
    const u = await this.repo.entitlements(viewer.userId);
    if (!u) throw tokenInvalid();
    return BillingService.vipInfo(u);
  }

  /** The /api call: 21006 when the user never had any membership, credit or package. */
  async getUserVipInfo(viewer: Viewer): Promise<VipUserInfo> {
    const info = await this.getVipInfo(viewer);
    const none =
      info.vipRoomTime === 0 &&
      info.vipRoomRemainingNumber === 0 &&
      info.vipBigRoomTime === 0 &&
      info.recordRoomTime === 0 &&
      info.creditWindowUntil === 0;
    if (none) throw new DomainError('21006');
    return info;
  }

  #isVip(u: UserRow, now: Date) {
    return ms(u.vip_room_time) > now.getTime();
  }
  #windowOpen(u: UserRow, now: Date) {
    return ms(u.credit_window_until) > now.getTime();
  }

  /** status 0: creating a paid mini class would spend a credit, so the client asks first. */
  async getConsumptionStatus(viewer: Viewer): Promise<{ status: 0 | 1; number: number }> {
    const u = await this.repo.entitlements(viewer.userId);
    if (!u) throw tokenInvalid();
    const now = this.clock.now();
    const free = this.#isVip(u, now) || this.#windowOpen(u, now);
    return { status: free ? 1 : 0, number: u.vip_room_remaining_number };
  }

  /** Inside the create transaction: VIP, an open window, or one credit (which opens the window). */
  async entitleMiniClass(trx: Trx, userId: string): Promise<MiniClassEntitlement> {
    const now = this.clock.now();
    const u = await this.repo.lockEntitlements(trx, userId);
    if (!u) throw tokenInvalid();
    if (this.#isVip(u, now)) return 'vip';
    if (this.#windowOpen(u, now)) return 'window';
    if (u.vip_room_remaining_number <= 0) throw new DomainError('21007');
    const until = new Date(now.getTime() + this.config.CREDIT_WINDOW_HOURS * 3600_000);
    if (!(await this.repo.spendCredit(trx, userId, until, now))) throw new DomainError('21008');
    return 'credit';
  }

  /** The people number of an active big-class package, or null. */
  async bigClassPeople(trx: Trx, userId: string): Promise<number | null> {
    const u = await this.repo.entitlements(userId, trx);
    if (!u) throw tokenInvalid();
    const active = ms(u.vip_big_room_time) > this.clock.now().getTime() && u.vip_big_room_people_number > 0;
    return active ? u.vip_big_room_people_number : null;
  }
}
