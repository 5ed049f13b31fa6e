/**
 * Announcements published by operators (docs/product/03-board-courseware-billing.md §2.7) and feedback with its captcha (§2.8, §5).
 */
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { DomainError, illegalParams, notAllowed } from '../platform/errors.ts';
import { hmac, safeEqual } from '../platform/secrets.ts';
import type { Announcement } from '../contracts/api.ts';
import type { Viewer } from '../account/account.service.ts';
import { captchaSvg, newCaptchaCode } from './captcha.ts';
import type { MessagingRepository } from './messaging.repository.ts';

export const MESSAGE_PAGE_SIZE = 10;
export const FEEDBACK_MAX = 50;
export const TITLE_MAX = 60;
export const CONTENT_MAX = 2000;
const CAPTCHA_MAX_TRIES = 5;

type MessagingConfig = Pick<Config, 'FEEDBACK_PER_HOUR' | 'CAPTCHA_TTL_SECONDS'>;

/** docs/product/03-board-courseware-billing.md §5: runs of white space collapse to one; line breaks stay (at most one in a row). */
export function normaliseFeedback(raw: string): string {
  return raw
    .normalize('NFC')
    .replace(/\r\n?/g, '\n')
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ *\n[\s]*/g, '\n')
    .trim();
}

/** Control characters other than tab and line breaks are dropped from operator text. */
const clean = (s: string) =>
  [...s.normalize('NFC')]
    .filter((c) => {
      const n = c.codePointAt(0)!;
      return n === 9 || n === 10 || n === 13 || (n >= 32 && n !== 127);
    })
    .join('')
    .trim();

export class MessagingService {
  private readonly repo: MessagingRepository;
  private readonly clock: Clock;
  private readonly config: MessagingConfig;
  private readonly secret: string;
  constructor(repo: MessagingRepository, clock: Clock, config: MessagingConfig, secret: string) {
    this.repo = repo;
    this.clock = clock;
    this.config = config;
    this.secret = secret;
  }

  /** Operators only (the admin page checks ADMIN_MOBILES; the CLI runs on the server). */
  async publish(input: { title: string; content: string; author: string }): Promise<Announcement> {
    const title = clean(input.title);
    const content = clean(input.content);
    if (!title || [...title].length > TITLE_MAX) throw illegalParams('title');
    if (!content || [...content].length > CONTENT_MAX) throw illegalParams('content');
    const row = await this.repo.insertAnnouncement({ title, content, author: input.author.slice(0, 64), created_at: this.clock.now() });
    return { id: row.id, title: row.title, content: row.content, createTime: row.created_at.getTime() };
  }

  removeAnnouncement(id: string) {
    if (!/^\d{1,18}$/.test(id)) throw illegalParams('id');
    return this.repo.deleteAnnouncement(id);
  }

  async list(input: { pageTime?: number | undefined; pageSize?: number | undefined }) {
    const size = Math.min(input.pageSize ?? MESSAGE_PAGE_SIZE, 50);
    const [rows, total] = await Promise.all([
      this.repo.listAnnouncements(input.pageTime ? new Date(input.pageTime) : null, size + 1),
      this.repo.countAnnouncements(),
    ]);
    const page = rows.slice(0, size);
    return {
      messageList: page.map((r) => ({ id: r.id, title: r.title, content: r.content, createTime: r.created_at.getTime() })),
      messageTotal: total,
      hasMore: rows.length > size,
      nextPageTime: page.length ? page[page.length - 1]!.created_at.getTime() : 0,
    };
  }

  #codeHash(userId: string, code: string) {
    return hmac(this.secret, `captcha:${userId}:${code}`);
  }

  /** A new captcha for the user (replacing any earlier one); the image is all the client gets. */
  async captchaImage(viewer: Viewer): Promise<string> {
    if (viewer.type !== '1') throw notAllowed('feedback is for teachers');
    const code = newCaptchaCode();
    await this.repo.putCaptcha(
      viewer.userId,
      this.#codeHash(viewer.userId, code),
      new Date(this.clock.now().getTime() + this.config.CAPTCHA_TTL_SECONDS * 1000),
    );
    return captchaSvg(code);
  }

  /**
   * Feedback (the spec's createFeedbackCaptcha): 35002 without a live captcha, 35001 for a wrong
   * one (it dies after five), 35003 over the hourly limit. A captcha is good for one submission.
   */
  async submitFeedback(viewer: Viewer, input: { content: string; code: string }): Promise<void> {
    if (viewer.type !== '1') throw notAllowed('feedback is for teachers');
    const content = normaliseFeedback(input.content);
    if (!content || [...content].length > FEEDBACK_MAX) throw illegalParams('content');
    const code = input.code.replace(/\D/g, '');
    const now = this.clock.now();
    const outcome = await this.repo.transaction(async (trx) => {
      const captcha = await this.repo.lockCaptcha(trx, viewer.userId);
      if (!captcha || captcha.expires_at.getTime() <= now.getTime()) return '35002' as const;
      if (code.length !== 4 || !safeEqual(captcha.code_hash, this.#codeHash(viewer.userId, code))) {
        if (captcha.failed_attempts + 1 >= CAPTCHA_MAX_TRIES) await this.repo.dropCaptcha(trx, viewer.userId);
        else await this.repo.failCaptcha(trx, viewer.userId);
        return '35001' as const;
      }
      await this.repo.dropCaptcha(trx, viewer.userId);
      if ((await this.repo.feedbackSince(trx, viewer.userId, new Date(now.getTime() - 3_600_000))) >= this.config.FEEDBACK_PER_HOUR)
        return '35003' as const;
      await this.repo.insertFeedback(trx, { user_id: viewer.userId, content, created_at: now });
      return 'ok' as const;
    });
    if (outcome !== 'ok') throw new DomainError(outcome);
  }

  latestFeedback(limit = 50) {
    return this.repo.latestFeedback(limit);
  }
}
