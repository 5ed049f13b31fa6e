/**
 * Settings, validated once at boot. Every cap, limit and duration of the product lives here with the
 * spec's number as its default, so no rule hides a literal.
 */
import { z } from 'zod';
import { CUSTOM_PLATFORM, ingestUrlProblem } from '../contracts/streaming.ts';

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');
/**
 * LIVE_PLATFORMS: `Name=rtmp://host/app` entries separated by commas (ADR 085). A name is what the
 * teacher picks and the room sees; the address is the platform's ingest address, the key is added
 * as its last part.
 */
const livePlatforms = z.string().transform((raw, ctx) => {
  const out: Array<{ name: string; url: string }> = [];
  for (const entry of raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const at = entry.indexOf('=');
    const name = at > 0 ? entry.slice(0, at).trim() : '';
    const url = at > 0 ? entry.slice(at + 1).trim() : '';
    const problem = !/^[\p{L}\p{N} ._-]{1,32}$/u.test(name)
      ? 'a name of 1-32 letters, digits, spaces, dots, hyphens or underscores'
      : name.toLowerCase() === CUSTOM_PLATFORM
        ? `'${CUSTOM_PLATFORM}' is kept for LIVE_CUSTOM_URL`
        : out.some((p) => p.name === name)
          ? 'a name used twice'
          : ingestUrlProblem(url);
    if (problem) {
      ctx.addIssue({ code: 'custom', message: `${entry.slice(0, 80)}: ${problem}` });
      return z.NEVER;
    }
    out.push({ name, url: url.replace(/\/+$/, '') });
  }
  return out;
});

const int = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max).default(def);

export const configSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    /** `all`, or a comma list of roles one process runs (`web,media`): see `roles` below. */
    ROLE: z
      .string()
      .regex(
        /^(all|(web|media|worker|recorder)(,(web|media|worker|recorder))*)$/,
        'ROLE is all, or a comma list of web, media, worker, recorder',
      )
      .default('all'),
    PORT: int(3000, 0, 65535),
    HOST: z.string().min(1).default('127.0.0.1'),
    PUBLIC_URL: z.url().optional(),
    DATA_DIR: z.string().min(1).default('./data'),
    PG_POOL_SIZE: int(20, 1, 500),
    TRUST_PROXY: bool.default(false),
    ROOM_INFO_CACHE_MS: int(1000, 0, 60_000),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must start with postgres:// or postgresql://')
      .optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    SESSION_SECRET: z.string().min(32, 'SESSION_SECRET needs at least 32 characters').optional(),
    SESSION_DAYS: int(30, 1, 365),
    TOURIST_SESSION_HOURS: int(24, 1, 24 * 30),
    COOKIE_SECURE: bool.optional(),
    SMS_SENDER: z.enum(['console', 'http']).default('console'),
    SMS_WEBHOOK_URL: z.url().optional(),
    SMS_WEBHOOK_TOKEN: z.string().optional(),
    DEV_OUTBOX: bool.optional(),
    SMS_CODE_TTL_SECONDS: int(300, 30),
    SMS_RESEND_SECONDS: int(60, 1),
    SMS_HOURLY_PER_MOBILE: int(5, 1),
    SMS_DAILY_PER_MOBILE: int(10, 1),
    SMS_HOURLY_PER_ADDRESS: int(20, 1),
    SMS_CODE_MAX_TRIES: int(5, 1),
    TOURIST_JOINS_PER_MINUTE: int(60, 1),
    /** Look-ups by room number from outside the room, per address (or account): ADR 066. */
    ROOM_LOOKUPS_PER_MINUTE: int(120, 1),
    ROOM_LOOKUPS_PER_HOUR: int(1000, 1),
    API_BODY_LIMIT_BYTES: int(64 * 1024, 1024),
    FREE_MINI_CAP: int(2, 1),
    PAID_MINI_CAP: int(4, 1),
    WHITEBOARD_CAP: int(200, 1),
    AUDIO_CAP: int(3, 1),
    AUDIO_SESSION_MINUTES: int(60, 1),
    LIVE_FREE_CAP: int(2, 1),
    CREDIT_WINDOW_HOURS: int(3, 1),
    TRIAL_MINUTES: int(10, 1),
    MIC_TIMEOUT_SECONDS: int(40, 1, 600),
    /** Seats on a large class's stage besides the teacher (ADR 112). */
    STAGE_SEATS_LARGE_CLASS: int(6, 1, 16),
    /** Seats on the stage of the other room types (mini, whiteboard, audio: everyone seated sends; the stage speaks in lecture mode). */
    STAGE_SEATS_OTHER: int(6, 1, 16),
    /** Hands a person may raise (or lower) per minute (ADR 112). */
    HANDS_PER_MINUTE: int(6, 1),
    /** Students in one breakout group at most (ADR 116). */
    GROUP_MAX_MEMBERS: int(16, 1, 500),
    CHAT_MESSAGES_PER_10S: int(10, 1),
    ROOM_IDLE_HOURS: int(24, 1),
    OBSERVER_LINK_HOURS: int(24, 1),
    OBSERVER_NAME: z.string().min(1).max(10).default('观察员'),
    /** Demo rooms (ADR 092): how long one lasts, and how many one address may make per hour. */
    DEMO_ROOM_HOURS: int(2, 1, 48),
    DEMO_CREATES_PER_HOUR: int(10, 1),
    GOODS_PRICES: z
      .string()
      .regex(/^(GB\d{8}=\d{1,9})(,GB\d{8}=\d{1,9})*$/, 'GOODS_PRICES is a list like GB00000001=9990,GB00000005=3990 (cents)')
      .optional(),
    GOODS_OFF_SHELF: z
      .string()
      .regex(/^(GB\d{8})(,GB\d{8})*$/, 'GOODS_OFF_SHELF is a list of goods ids')
      .optional(),
    ORDER_TTL_MINUTES: int(30, 1, 24 * 60),
    ORDERS_PER_DAY: int(20, 1),
    PURCHASES_PER_GOODS_PER_DAY: int(3, 1),
    PROMO_POINTS_PER_ORDER: int(10, 0),
    PROMO_POINT_VALUE_CENTS: int(100, 1),
    PAYMENT_GATEWAY: z.enum(['sandbox', 'off']).optional(),
    PAYMENT_GATEWAY_SECRET: z.string().min(32, 'PAYMENT_GATEWAY_SECRET needs at least 32 characters').optional(),
    ADMIN_MOBILES: z
      .string()
      .regex(/^1[3-9]\d{9}(,1[3-9]\d{9})*$/, 'ADMIN_MOBILES is a comma list of mobile numbers')
      .optional(),
    FEEDBACK_PER_HOUR: int(5, 1),
    CAPTCHA_TTL_SECONDS: int(300, 30),
    CLIENT_LOGS_PER_MINUTE: int(120, 1),
    /** Client events a signed-in person may store per minute (ADR 102), besides the per-address limit. */
    CLIENT_LOGS_PER_PERSON_PER_MINUTE: int(60, 1),
    /** How long the browser waits for an /api answer before the 'network exception' message (ADR 102). */
    API_TIMEOUT_MS: int(15_000, 1000, 120_000),
    TRIAL_APPLICATIONS_PER_HOUR: int(5, 1),
    STORE_ANDROID_URL: z.url().optional(),
    STORE_IPHONE_URL: z.url().optional(),
    STORE_IPAD_URL: z.url().optional(),
    /** The classroom's online-service link (ADR 103): a help desk or chat page of the operator; unset, no link is shown. */
    SERVICE_URL: z.url({ protocol: /^https?$/ }).optional(),
    CONTACT_EMAIL: z.email().optional(),
    CONTACT_PHONE: z.string().max(32).optional(),
    CONTACT_WECHAT: z.string().max(64).optional(),
    SITE_NOTICE_ZH: z.string().max(500).optional(),
    SITE_NOTICE_EN: z.string().max(500).optional(),
    SITE_NOTICE_DATE: z.iso.date().optional(),
    BOARD_TOKEN_TTL_SECONDS: int(3600, 60, 24 * 3600),
    BOARD_SNAPSHOT_EVERY: int(200, 10),
    BOARD_MAX_ITEMS_PER_LAYER: int(200_000, 100),
    BOARD_UNDO_DEPTH: int(100, 1, 10_000),
    BOARD_OPS_PER_SECOND: int(30, 1),
    BOARD_STROKES_PER_SECOND: int(40, 1),
    BOARD_IMAGE_MAX_BYTES: int(20_480_000, 1),
    BOARD_PHONE_LINK_MINUTES: int(30, 1, 24 * 60),
    /** Phone-link uploads (no session behind them) being received at once; more are answered 503 (ADR 061). */
    BOARD_PHONE_UPLOADS_AT_ONCE: int(4, 1, 1000),
    MEDIA_PUBLIC_URL: z.url().optional(),
    MEDIA_PORT: int(3100, 0, 65535),
    MEDIA_LISTEN_IP: z.ipv4().default('127.0.0.1'),
    MEDIA_ANNOUNCED_ADDRESS: z.string().min(1).max(253).optional(),
    MEDIA_RTC_MIN_PORT: int(40000, 1024, 65535),
    MEDIA_RTC_MAX_PORT: int(49999, 1024, 65535),
    MEDIA_TOKEN_TTL_SECONDS: int(120, 10, 3600),
    MEDIA_ICE_SERVERS: z.string().max(4096).optional(),
    MEDIA_PLACEMENT: z.enum(['single', 'registry']).default('single'),
    MEDIA_NODE_ID: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,64}$/)
      .optional(),
    MEDIA_CAPACITY: int(100, 1, 100_000),
    MEDIA_REPORT_SECONDS: int(5, 1, 60),
    S3_ENDPOINT: z.url().optional(),
    S3_BUCKET: z
      .string()
      .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'S3_BUCKET is a bucket name (3-63 lower-case letters, digits, dots, dashes)')
      .optional(),
    S3_REGION: z.string().min(1).max(64).default('us-east-1'),
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    COURSEWARE_MAX_BYTES: int(50_000_000, 1),
    COURSEWARE_MAX_PAGES: int(200, 1, 10_000),
    COURSEWARE_CONVERT_SECONDS: int(300, 10, 3600),
    COURSEWARE_UPLOADS_PER_HOUR: int(60, 1),
    CONVERT_OFFICE_SLOTS: int(1, 1, 16),
    CONVERT_PDF_WORKERS: int(2, 1, 16),
    /** The recording studio (issue 15): the largest take accepted, and uploads opened per teacher per hour. */
    STUDIO_MAX_MB: int(4096, 10, 5_000_000),
    STUDIO_UPLOADS_PER_HOUR: int(30, 1),
    /** An upload not saved within this many hours is dropped with its parts (the take stays in the browser). */
    STUDIO_UPLOAD_HOURS: int(72, 1, 24 * 30),
    /** Cloud recording (issue 13): the composed frame, its encoder and the pieces it is cut into. */
    RECORDING_WIDTH: int(1280, 320, 3840),
    RECORDING_HEIGHT: int(720, 180, 2160),
    RECORDING_FPS: int(30, 1, 60),
    RECORDING_VIDEO_KBPS: int(3000, 100, 50_000),
    RECORDING_AUDIO_KBPS: int(128, 32, 512),
    RECORDING_SEGMENT_SECONDS: int(4, 1, 10),
    /** x264's preset for recordings and live pushes (issue 28): slower presets cost more CPU per frame. */
    RECORDING_X264_PRESET: z
      .enum(['ultrafast', 'superfast', 'veryfast', 'faster', 'fast', 'medium', 'slow', 'slower', 'veryslow'])
      .default('veryfast'),
    /**
     * A started recording no recorder claimed within this fails with roomRecordFailed (ADR 071). 12 s,
     * so the teacher hears it within 15 s of the click on a busy machine too (ADR 105 measured 0.8 s
     * from the timer to the room channel).
     */
    RECORDING_START_TIMEOUT_SECONDS: int(12, 1, 600),
    /** The recorder's lease on a task; renewed every third of it, claimed by another recorder once expired (ADR 071). */
    RECORDING_LEASE_SECONDS: int(6, 2, 120),
    /** Recordings one recorder process runs at once; 0: this process records nothing. */
    RECORDER_SLOTS: int(2, 0, 64),
    /**
     * The share of the machine (all its cores, 0.05-1) a recorder's sessions may use: it takes another
     * class only when its measured free CPU carries one more at real time (ADR 105).
     */
    RECORDER_CPU_BUDGET: z.coerce.number().min(0.05).max(1).default(0.8),
    /**
     * The recorder hears its work from task notes (ADR 109); this slow sweep, in seconds, is the net
     * for a note that was lost: how often it looks for work when none came.
     */
    RECORDER_SWEEP_SECONDS: int(5, 1, 60),
    /**
     * The MP4 assembled as the class goes (ADR 106): off until its sound is placed as exactly as the
     * join's (tests/e2e/recording-sync measured 40-60 ms between flashes and clicks, over the 40 ms
     * the join keeps); off, the stop joins and uploads the whole file (ADR 076).
     */
    RECORDING_ASSEMBLY: bool.default(true),
    /** Live streaming (issue 14): the platforms a teacher may push to, and whether a pasted full address is allowed. */
    LIVE_PLATFORMS: livePlatforms.default([{ name: 'YouTube', url: 'rtmp://a.rtmp.youtube.com/live2' }]),
    LIVE_CUSTOM_URL: bool.default(false),
    REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\/\S+$/, 'REDIS_URL is a redis:// or rediss:// URL')
      .optional(),
  })
  .superRefine((c, ctx) => {
    const roles = rolesOf(c.ROLE);
    if (c.SMS_SENDER === 'http' && !c.SMS_WEBHOOK_URL) {
      ctx.addIssue({ code: 'custom', path: ['SMS_WEBHOOK_URL'], message: 'SMS_SENDER=http needs SMS_WEBHOOK_URL' });
    }
    if (c.MEDIA_RTC_MIN_PORT > c.MEDIA_RTC_MAX_PORT) {
      ctx.addIssue({ code: 'custom', path: ['MEDIA_RTC_MIN_PORT'], message: 'MEDIA_RTC_MIN_PORT must not be above MEDIA_RTC_MAX_PORT' });
    }
    // The web role hands out the media node's address; the recorder joins rooms there.
    if ((roles.has('web') || roles.has('recorder')) && !roles.has('media') && c.MEDIA_PLACEMENT === 'single' && !c.MEDIA_PUBLIC_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['MEDIA_PUBLIC_URL'],
        message: `ROLE=${c.ROLE} without an SFU needs MEDIA_PUBLIC_URL (the media node) or MEDIA_PLACEMENT=registry`,
      });
    }
    if (c.MEDIA_LISTEN_IP === '0.0.0.0' && !c.MEDIA_ANNOUNCED_ADDRESS) {
      ctx.addIssue({
        code: 'custom',
        path: ['MEDIA_ANNOUNCED_ADDRESS'],
        message: 'MEDIA_LISTEN_IP=0.0.0.0 needs MEDIA_ANNOUNCED_ADDRESS (the address browsers reach)',
      });
    }
    if (c.S3_ENDPOINT && (!c.S3_BUCKET || !c.S3_ACCESS_KEY_ID || !c.S3_SECRET_ACCESS_KEY)) {
      ctx.addIssue({
        code: 'custom',
        path: ['S3_ENDPOINT'],
        message: 'S3_ENDPOINT needs S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY',
      });
    }
    if (c.NODE_ENV === 'production' && c.DEV_OUTBOX === true) {
      ctx.addIssue({ code: 'custom', path: ['DEV_OUTBOX'], message: 'the dev outbox is never available in production' });
    }
  });

export type RawConfig = z.infer<typeof configSchema>;

export const ROLES = ['web', 'media', 'worker', 'recorder'] as const;
export type Role = (typeof ROLES)[number];

/** The roles a ROLE value names: `all` is every role. */
export function rolesOf(role: string): ReadonlySet<Role> {
  if (role === 'all') return new Set(ROLES);
  return new Set(role.split(',').filter((r): r is Role => (ROLES as readonly string[]).includes(r)));
}

export interface Config extends RawConfig {
  /** What this process runs (ROLE): web pages and sockets, the SFU, jobs, cloud recordings. */
  roles: ReadonlySet<Role>;
  publicUrl: string;
  devOutbox: boolean;
  production: boolean;
  cookieSecure: boolean;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parse the environment; throws a ConfigError whose message names each bad setting. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(configSchema.shape)) {
    const v = env[key];
    if (v !== undefined && v !== '') picked[key] = v;
  }
  const parsed = configSchema.safeParse(picked);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(settings)'}: ${i.message}`);
    throw new ConfigError(`Invalid settings:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  const production = c.NODE_ENV === 'production';
  const shownHost = c.HOST === '0.0.0.0' || c.HOST === '::' ? '127.0.0.1' : c.HOST;
  const publicUrl = (c.PUBLIC_URL ?? `http://${shownHost}:${c.PORT}`).replace(/\/+$/, '');
  return {
    ...c,
    roles: rolesOf(c.ROLE),
    publicUrl,
    production,
    devOutbox: !production && c.SMS_SENDER === 'console' && c.DEV_OUTBOX !== false,
    cookieSecure: c.COOKIE_SECURE ?? publicUrl.startsWith('https://'),
  };
}
