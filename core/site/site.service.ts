/**
 * The public side: trial applications from the landing page, client event logs (/api/addLog and
 * /log), who the operators are (ADMIN_MOBILES) and the settings the public pages show.
 */
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { DomainError, illegalParams } from '../platform/errors.ts';
import type { RateLimiter } from '../platform/rate-limit.ts';
import type { Viewer } from '../account/account.service.ts';
import { MOBILE_RULE } from '../account/account.schema.ts';
import type { ClientLog } from '../messaging/messaging.schema.ts';
import type { SiteRepository } from './site.repository.ts';

type SiteConfig = Pick<
  Config,
  | 'ADMIN_MOBILES'
  | 'CLIENT_LOGS_PER_MINUTE'
  | 'CLIENT_LOGS_PER_PERSON_PER_MINUTE'
  | 'API_TIMEOUT_MS'
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

/** What the browser needs of the settings before its first /api call (the root's loader data). */
export interface ClientSettings {
  apiTimeoutMs: number;
}

/** What addLog answers: how many events were stored, and how many were dropped past a rate limit. */
export interface LogAnswer {
  stored: number;
  dropped: number;
}

/** One page of the operators' client-log view (ADR 102). */
export interface LogPage {
  rows: {
    id: string;
    at: number;
    roomNumber: string;
    userId: string | null;
    name: string | null;
    event: string;
    message: string;
    ip: string;
  }[];
  page: number;
  hasMore: boolean;
}
export const LOG_PAGE_SIZE = 50;

/** Fixed one-minute windows counting events, not requests: a batch fits whole or is dropped whole. */
class EventBudget {
  readonly #windows = new Map<string, { start: number; used: number }>();
  #sweptAt = 0;

  take(key: string, n: number, limit: number, now: number): boolean {
    if (now - this.#sweptAt >= 60_000) {
      this.#sweptAt = now;
      for (const [k, w] of this.#windows) if (now - w.start >= 60_000) this.#windows.delete(k);
    }
    let w = this.#windows.get(key);
    if (!w || now - w.start >= 60_000) this.#windows.set(key, (w = { start: now, used: 0 }));
    if (w.used + n > limit) return false;
    w.used += n;
    return true;
  }

  give(key: string, n: number): void {
    const w = this.#windows.get(key);
    if (w) w.used = Math.max(0, w.used - n);
  }
}

const text = (v: string | undefined, max: number): string => (v ?? '').normalize('NFC').trim().slice(0, max);

export class SiteService {
  private readonly repo: SiteRepository;
  private readonly limiter: RateLimiter;
  private readonly clock: Clock;
  private readonly config: SiteConfig;
  readonly #logBudget = new EventBudget();
  readonly #admins: Set<string>;
  constructor(repo: SiteRepository, limiter: RateLimiter, clock: Clock, config: SiteConfig) {
    this.repo = repo;
    this.limiter = limiter;
    this.clock = clock;
    this.config = config;
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

  /**
   * Client events, one or a batch (ADR 102), already parsed by addLogInput. Counted per address
   * and per signed-in person in events a minute; a batch that does not fit both is dropped whole
   * (logging never bothers a user, so this is an answer, not an error). Stored in one statement:
   * all of a batch or none of it.
   */
  async addLog(viewer: Viewer | null, input: ClientLog, ip: string): Promise<LogAnswer> {
    const n = input.events.length;
    const now = this.clock.now();
    const ms = now.getTime();
    const c = this.config;
    if (!this.#logBudget.take(`ip:${ip}`, n, c.CLIENT_LOGS_PER_MINUTE, ms)) return { stored: 0, dropped: n };
    if (viewer && !this.#logBudget.take(`user:${viewer.userId}`, n, c.CLIENT_LOGS_PER_PERSON_PER_MINUTE, ms)) {
      this.#logBudget.give(`ip:${ip}`, n);
      return { stored: 0, dropped: n };
    }
    const room = /^\d{1,10}$/.test(input.roomNumber) ? input.roomNumber : text(input.roomNumber, 16);
    await this.repo.insertLogs(
      input.events.map((e) => ({
        user_id: viewer?.userId ?? null,
        socket_type: text(e.socketType, 64),
        room_number: room,
        message: e.message,
        ip,
        created_at: now,
      })),
    );
    return { stored: n, dropped: 0 };
  }

  /** The operators' view (ADR 102): newest first, filtered by room number and by person, LOG_PAGE_SIZE a page. */
  async logs(filter: { roomNumber?: string; userId?: string; page?: number }): Promise<LogPage> {
    const page = Math.max(1, Math.min(10_000, Math.floor(filter.page ?? 1)));
    const roomNumber = filter.roomNumber && /^\d{1,10}$/.test(filter.roomNumber) ? filter.roomNumber : undefined;
    const userId = filter.userId && /^\d{1,19}$/.test(filter.userId) ? filter.userId : undefined;
    const rows = await this.repo.logs({ roomNumber, userId, offset: (page - 1) * LOG_PAGE_SIZE, limit: LOG_PAGE_SIZE + 1 });
    return {
      rows: rows.slice(0, LOG_PAGE_SIZE).map((r) => ({
        id: r.id,
        at: r.created_at.getTime(),
        roomNumber: r.room_number,
        userId: r.user_id,
        name: r.name,
        event: r.socket_type,
        message: r.message,
        ip: r.ip,
      })),
      page,
      hasMore: rows.length > LOG_PAGE_SIZE,
    };
  }

  clientSettings(): ClientSettings {
    return { apiTimeoutMs: this.config.API_TIMEOUT_MS };
  }
}
