/**
 * Sign-in by SMS code, sessions and the user's own profile. Every limit comes from the config.
 */
import { randomInt } from 'node:crypto';
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { DomainError, illegalParams, tokenInvalid } from '../platform/errors.ts';
import type { Logger } from '../platform/logger.ts';
import { hmac, newToken, safeEqual, sha256, TOKEN_RULE } from '../platform/secrets.ts';
import type { SmsSender } from '../platform/sms.ts';
import type { UserInfo } from '../contracts/api.ts';
import type { AccountRepository, UserRow } from './account.repository.ts';
import { CODE_RULE, MOBILE_RULE, normaliseName } from './account.schema.ts';

export interface Viewer {
  userId: string;
  name: string;
  mobile: string;
  type: '1' | '4';
}

type AccountConfig = Pick<
  Config,
  | 'SMS_CODE_TTL_SECONDS'
  | 'SMS_RESEND_SECONDS'
  | 'SMS_HOURLY_PER_MOBILE'
  | 'SMS_DAILY_PER_MOBILE'
  | 'SMS_HOURLY_PER_ADDRESS'
  | 'SMS_CODE_MAX_TRIES'
  | 'SESSION_DAYS'
  | 'TOURIST_SESSION_HOURS'
>;

const HOUR = 3600_000;
const PROMO_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

export const toViewer = (u: { id: string; name: string; mobile: string | null; kind: 'teacher' | 'tourist' }): Viewer => ({
  userId: u.id,
  name: u.name,
  mobile: u.mobile ?? '',
  type: u.kind === 'teacher' ? '1' : '4',
});

export function toUserInfo(u: UserRow, userToken = ''): UserInfo {
  return {
    userId: u.id,
    name: u.name,
    mobile: u.mobile ?? '',
    type: u.kind === 'teacher' ? '1' : '4',
    userToken,
    promoCode: u.promo_code ?? '',
    promoPoints: u.promo_points,
  };
}

export class AccountService {
  private readonly repo: AccountRepository;
  private readonly sms: SmsSender;
  private readonly clock: Clock;
  private readonly config: AccountConfig;
  private readonly secret: string;
  private readonly logger: Logger;
  constructor(repo: AccountRepository, sms: SmsSender, clock: Clock, config: AccountConfig, secret: string, logger: Logger) {
    this.repo = repo;
    this.sms = sms;
    this.clock = clock;
    this.config = config;
    this.secret = secret;
    this.logger = logger;
  }

  #codeHash(mobile: string, code: string): string {
    return hmac(this.secret, `sms:${mobile}:${code}`);
  }

  async sendPhoneCode(input: { mobile: string; area?: string | undefined; ip: string }): Promise<{ resendAfter: number }> {
    const area = (input.area ?? '86').replace(/^\+/, '');
    if (area !== '86') throw new DomainError('42014');
    const mobile = input.mobile.trim();
    if (!MOBILE_RULE.test(mobile)) throw illegalParams('mobile');
    const now = this.clock.now();
    const c = this.config;
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const id = await this.repo.transaction(async (trx) => {
      await this.repo.lockKey(trx, `sms:${mobile}`);
      const stats = await this.repo.sendStats(trx, mobile, input.ip, new Date(now.getTime() - HOUR), new Date(now.getTime() - 24 * HOUR));
      if (stats.last && now.getTime() - stats.last.getTime() < c.SMS_RESEND_SECONDS * 1000) throw new DomainError('42001');
      if (stats.ipHour >= c.SMS_HOURLY_PER_ADDRESS) throw new DomainError('42003');
      if (stats.mobileHour >= c.SMS_HOURLY_PER_MOBILE) throw new DomainError('42009');
      if (stats.mobileDay >= c.SMS_DAILY_PER_MOBILE) throw new DomainError('42010');
      const row = await this.repo.insertCode(trx, {
        mobile,
        purpose: 'login',
        code_hash: this.#codeHash(mobile, code),
        ip: input.ip,
        created_at: now,
        expires_at: new Date(now.getTime() + c.SMS_CODE_TTL_SECONDS * 1000),
      });
      return row.id;
    });
    try {
      await this.sms.send({ mobile, code, purpose: 'login' });
    } catch (err) {
      // Not delivered: the code must not count against the user's limits nor be usable.
      await this.repo.deleteCode(id);
      this.logger.warn({ err, mobile }, 'SMS delivery failed');
      throw new DomainError('42015', (err as Error).message);
    }
    return { resendAfter: c.SMS_RESEND_SECONDS };
  }

  async login(input: { mobile: string; code: string; ip: string }): Promise<{ user: UserRow; token: string }> {
    const mobile = input.mobile.trim();
    const code = input.code.trim();
    if (!MOBILE_RULE.test(mobile) || !CODE_RULE.test(code)) throw new DomainError('42004', 'malformed');
    const now = this.clock.now();
    const token = newToken();
    const outcome = await this.repo.transaction(async (trx) => {
      await this.repo.lockKey(trx, `sms:${mobile}`);
      const active = await this.repo.activeCode(trx, mobile, 'login', now, this.config.SMS_CODE_MAX_TRIES);
      if (!active) return { ok: false as const };
      if (!safeEqual(active.code_hash, this.#codeHash(mobile, code))) {
        // The failed try must be kept, so this transaction commits and the caller throws after.
        await this.repo.addFailedAttempt(trx, active.id);
        return { ok: false as const };
      }
      if (!(await this.repo.markCodeUsed(trx, active.id, now))) return { ok: false as const };
      let user = await this.repo.findUserByMobile(mobile, trx);
      user ??= await this.#createTeacher(trx, mobile);
      await this.repo.insertSession(trx, {
        token_hash: sha256(token),
        user_id: user.id,
        expires_at: new Date(now.getTime() + this.config.SESSION_DAYS * 24 * HOUR),
        ip: input.ip,
      });
      return { ok: true as const, user };
    });
    if (!outcome.ok) throw new DomainError('42004');
    return { user: outcome.user, token };
  }

  async #createTeacher(trx: Parameters<Parameters<AccountRepository['transaction']>[0]>[0], mobile: string): Promise<UserRow> {
    for (let i = 0; i < 10; i++) {
      const promo = Array.from({ length: 6 }, () => PROMO_ALPHABET[randomInt(PROMO_ALPHABET.length)]).join('');
      const row = await this.repo.insertUser(trx, { mobile, name: `老师${mobile.slice(-4)}`, kind: 'teacher', promo_code: promo });
      if (row) return row;
    }
    throw new DomainError('9', 'could not allocate a promo code');
  }

  /** A tourist identity with its own session (the room channel needs to know who speaks). */
  async createTourist(
    trx: Parameters<Parameters<AccountRepository['transaction']>[0]>[0],
    name: string,
    ip: string,
  ): Promise<{ user: UserRow; token: string }> {
    const user = await this.repo.insertUser(trx, { mobile: null, name, kind: 'tourist', promo_code: null });
    if (!user) throw new DomainError('9', 'tourist insert conflicted');
    const token = newToken();
    await this.repo.insertSession(trx, {
      token_hash: sha256(token),
      user_id: user.id,
      expires_at: new Date(this.clock.now().getTime() + this.config.TOURIST_SESSION_HOURS * HOUR),
      ip,
    });
    return { user, token };
  }

  /** '7' without a token, '6' for a token that cannot be ours, '21001' for an unknown, expired or ended one. */
  async authenticate(token: string | null | undefined): Promise<Viewer> {
    if (!token) throw new DomainError('7');
    if (!TOKEN_RULE.test(token)) throw new DomainError('6');
    const row = await this.repo.findLiveSession(sha256(token), this.clock.now());
    if (!row) throw tokenInvalid();
    return toViewer(row);
  }

  async logout(token: string | null | undefined): Promise<void> {
    if (!token || !TOKEN_RULE.test(token)) return;
    await this.repo.revokeSession(sha256(token), this.clock.now());
  }

  async getUserInfo(viewer: Viewer, userId: string): Promise<UserInfo> {
    const user = await this.repo.findUserById(userId);
    if (!user) throw illegalParams('unknown user');
    if (user.id !== viewer.userId) throw new DomainError('31004', 'not your account');
    return toUserInfo(user);
  }

  /** Name and id only: what a room shows of another person. */
  async getPublicUser(userId: string): Promise<{ userId: string; name: string }> {
    const user = await this.repo.findUserById(userId);
    if (!user) throw illegalParams('unknown user');
    return { userId: user.id, name: user.name };
  }

  async updateUserName(viewer: Viewer, raw: string): Promise<UserInfo> {
    const name = normaliseName(raw);
    if (!name) throw illegalParams('name');
    const row = await this.repo.updateName(viewer.userId, name);
    if (!row) throw tokenInvalid();
    return toUserInfo(row);
  }

  purgeExpired(): Promise<void> {
    return this.repo.purgeExpired(this.clock.now());
  }
}
