/**
 * The public side: trial applications from the landing page, client event logs (/api/addLog and
 * /log), who the operators are (ADMIN_MOBILES) and the settings the public pages show.
 */
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { DomainError, illegalParams } from '../platform/errors.ts';
import { MemoryRateLimiter } from '../platform/memory-rate-limit.ts';
import type { RateLimiter } from '../platform/rate-limit.ts';
import type { Viewer } from '../account/account.service.ts';
import { MOBILE_RULE } from '../account/account.schema.ts';
import type { SiteRepository } from './site.repository.ts';

type SiteConfig = Pick<
  Config,
  | 'ADMIN_MOBILES'
  | 'CLIENT_LOGS_PER_MINUTE'
  | 'TRIAL_APPLICATIONS_PER_HOUR'
  | 'STORE_ANDROID_URL'
  | 'STORE_IPHONE_URL'
  | 'STORE_IPAD_URL'
  | 'SERVICE_URL'
  | 'CONTACT_EMAIL'
  | 'CONTACT_PHONE'
  | 'CONTACT_WECHAT'
  | 'SITE_NOTICE_ZH'
  | 'SITE_NOTICE_EN'
  | 'SITE_NOTICE_DATE'
>;

/** What every page may show: store links, contact lines and the operator's dated notice. */
export interface PublicSite {
  stores: { android: string | null; iphone: string | null; ipad: string | null };
  contact: { email: string | null; phone: string | null; wechat: string | null };
  notice: { zh: string; en: string; date: string } | null;
  /** The operator's online-service page (SERVICE_URL), or null. */
  serviceUrl: string | null;
}

export const LOG_MESSAGE_MAX = 4000;

const text = (v: string | undefined, max: number): string => (v ?? '').normalize('NFC').trim().slice(0, max);

export class SiteService {
  private readonly repo: SiteRepository;
  private readonly limiter: RateLimiter;
  private readonly clock: Clock;
  private readonly config: SiteConfig;
  readonly #logLimiter: MemoryRateLimiter;
  readonly #admins: Set<string>;
  constructor(repo: SiteRepository, limiter: RateLimiter, clock: Clock, config: SiteConfig) {
    this.repo = repo;
    this.limiter = limiter;
    this.clock = clock;
    this.config = config;
    this.#logLimiter = new MemoryRateLimiter(() => clock.now().getTime());
    this.#admins = new Set((config.ADMIN_MOBILES ?? '').split(',').filter(Boolean));
  }

  isAdmin(viewer: Viewer | null): boolean {
    return viewer !== null && viewer.type === '1' && this.#admins.has(viewer.mobile);
  }

  publicSite(): PublicSite {
    const c = this.config;
    const zh = c.SITE_NOTICE_ZH ?? c.SITE_NOTICE_EN ?? '';
    const en = c.SITE_NOTICE_EN ?? c.SITE_NOTICE_ZH ?? '';
    return {
      stores: { android: c.STORE_ANDROID_URL ?? null, iphone: c.STORE_IPHONE_URL ?? null, ipad: c.STORE_IPAD_URL ?? null },
      contact: { email: c.CONTACT_EMAIL ?? null, phone: c.CONTACT_PHONE ?? null, wechat: c.CONTACT_WECHAT ?? null },
      notice: zh || en ? { zh, en, date: c.SITE_NOTICE_DATE ?? '' } : null,
      serviceUrl: c.SERVICE_URL ?? null,
    };
  }

  /** The landing page's trial form, kept for operators; 36001 past the hourly limit per address. */
  async applyTrial(input: { name: string; mobile: string; organisation: string; message: string; ip: string }): Promise<void> {
    const name = text(input.name, 40);
    const mobile = text(input.mobile, 20);
    if (!name || [...name].some((c) => c.codePointAt(0)! < 32)) throw illegalParams('name');
    if (!MOBILE_RULE.test(mobile)) throw illegalParams('mobile');
    if (!(await this.limiter.hit(`trial:${input.ip}`, this.config.TRIAL_APPLICATIONS_PER_HOUR, 3_600_000))) throw new DomainError('36001');
    await this.repo.insertTrial({
      name,
      mobile,
      organisation: text(input.organisation, 80),
      message: text(input.message, 500),
      ip: input.ip,
      created_at: this.clock.now(),
    });
  }

  latestTrials(limit = 50) {
    return this.repo.latestTrials(limit);
  }

  /** A client event; past the per-address limit events are dropped (logging never bothers a user). */
  async addLog(
    viewer: Viewer | null,
    input: { socketType?: string | undefined; roomNumber?: string | undefined; message?: string | undefined },
    ip: string,
  ): Promise<boolean> {
    if (!this.#logLimiter.hit(`log:${ip}`, this.config.CLIENT_LOGS_PER_MINUTE, 60_000)) return false;
    const message = input.message ?? '';
    await this.repo.insertLog({
      user_id: viewer?.userId ?? null,
      socket_type: text(input.socketType, 64),
      room_number: text(input.roomNumber, 16),
      message: message.slice(0, LOG_MESSAGE_MAX),
      ip,
      created_at: this.clock.now(),
    });
    return true;
  }
}
