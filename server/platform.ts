/**
 * Builds the platform from the config: database (+ migrations), secret, SMS, objects, events, job
 * queue and the domain services. The same object serves every role.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Clock } from '#core/platform/clock.ts';
import { systemClock } from '#core/platform/clock.ts';
import type { Config } from '#core/platform/config.ts';
import { openDatabase, type DatabaseHandle } from '#core/platform/db/database.ts';
import { migrateToLatest } from '#core/platform/db/migrate.ts';
import { InMemoryEventBus, type EventBus } from '#core/platform/events.ts';
import { startPgBoss, type JobQueue } from '#core/platform/jobs.ts';
import { createLogger, type Logger } from '#core/platform/logger.ts';
import { DiskObjectStore, type ObjectStore } from '#core/platform/objects.ts';
import { S3ObjectStore } from '#core/platform/s3-objects.ts';
import type { Converter } from '#core/courseware/converter.ts';
import { NoGateway, SandboxGateway, type PaymentGateway } from '#core/platform/payments.ts';
import { hmac } from '#core/platform/secrets.ts';
import { ConsoleSmsSender, DevOutbox, HttpSmsSender, type SmsSender } from '#core/platform/sms.ts';
import { buildServices, type Services } from '#core/services.ts';
import { jobHandlers, jobOptions, notifyQueues, queueOptions, schedules, type JobHandlers, type JobName } from '#core/jobs.ts';
import type { Presence, Scheduler } from '#core/rooms/live.service.ts';
import type { MediaNodes } from '#core/rooms/media.service.ts';
import { singleMediaNode } from './media.ts';
import { MediaNodeRepository } from '#core/rooms/media-node.repository.ts';
import { MediaRegistry } from '#core/rooms/media-registry.ts';
import { LocalRoomChangeRelay, type RoomChangeRelay } from '#core/rooms/room-state.ts';
import { connectRoomChangeRelay } from './redis.ts';
import { connectRedisBuckets } from './redis-buckets.ts';

/**
 * Presence is answered by the web role's room channel once it exists; until then (and in a
 * process without the web role) nobody is online.
 */
export class PresenceRegistry implements Presence {
  #source: Presence | null = null;
  /** The room channel answers from now on; the answer detaches it (its close). */
  attach(source: Presence): () => void {
    this.#source = source;
    return () => {
      if (this.#source === source) this.#source = null;
    };
  }
  online(roomNumber: string) {
    return this.#source ? this.#source.online(roomNumber) : Promise.resolve([]);
  }
}

/** In-process timers; a lost timer is caught up by the rule that reads the state (see RoomLiveService). */
function timerScheduler(logger: Logger): Scheduler {
  return {
    after(ms, task) {
      const t = setTimeout(() => {
        task().catch((err: unknown) => logger.error({ err }, 'scheduled task failed'));
      }, ms);
      t.unref();
    },
  };
}

export interface Platform {
  config: Config;
  logger: Logger;
  /** Time for the adapters too (socket rate windows); tests pass a ManualClock. */
  clock: Clock;
  database: DatabaseHandle;
  services: Services;
  events: EventBus;
  /** Room changes (ADR 062): this process only, or every process through Redis with REDIS_URL. */
  roomChanges: RoomChangeRelay;
  /** The object store: S3-compatible when S3_ENDPOINT is set, else the disk store. */
  objects: ObjectStore;
  /** The disk store when it is the object store: the web role serves its signed GET and PUT links. */
  diskObjects: DiskObjectStore | null;
  /** Courseware conversion (and content sniffing of uploads); null where none is built. */
  converter: Converter | null;
  jobs: JobQueue | null;
  presence: PresenceRegistry;
  secret: string;
  /** The payment gateway (PAYMENT_GATEWAY). */
  payments: PaymentGateway;
  /** The built-in sandbox when it is the gateway: it also serves its own pay page (server/web/payments.ts). */
  sandbox: SandboxGateway | null;
  /** Where rooms' media is served (the placement the join answers use). */
  mediaNodes: MediaNodes;
  close(): Promise<void>;
}

export interface PlatformOverrides {
  /** An already opened database (tests). `inMemory` opens a throwaway PGlite. */
  database?: DatabaseHandle | 'inMemory';
  clock?: Clock;
  sms?: SmsSender;
  logger?: Logger;
  /** A payment gateway adapter in place of the built-in sandbox (tests: one that is down). */
  payments?: PaymentGateway;
  /** Start pg-boss and the job workers (default: for roles all and worker). */
  jobs?: boolean;
  /** Where rooms' media is served (default: this process, or MEDIA_PUBLIC_URL). */
  mediaNodes?: MediaNodes;
  /** The courseware converter (default: the one of workers/convert when it is present). */
  converter?: Converter | null;
  /** The room-change relay (tests: one shared by two platforms on one database). */
  roomChanges?: RoomChangeRelay;
}

/** The object store the settings name: S3-compatible with S3_ENDPOINT, else DATA_DIR/objects. */
export function buildObjectStore(
  config: Config,
  secret: string,
  now: () => number,
): { objects: ObjectStore; disk: DiskObjectStore | null } {
  if (config.S3_ENDPOINT) {
    const objects = new S3ObjectStore(
      {
        endpoint: config.S3_ENDPOINT,
        bucket: config.S3_BUCKET!,
        region: config.S3_REGION,
        accessKeyId: config.S3_ACCESS_KEY_ID!,
        secretAccessKey: config.S3_SECRET_ACCESS_KEY!,
      },
      now,
    );
    return { objects, disk: null };
  }
  const disk = new DiskObjectStore(path.resolve(config.DATA_DIR, 'objects'), secret, () => config.publicUrl, now);
  return { objects: disk, disk };
}

/** SESSION_SECRET, or one generated once and kept in DATA_DIR so restarts keep sessions' tokens valid. */
function loadSecret(config: Config, persist: boolean): string {
  if (config.SESSION_SECRET) return config.SESSION_SECRET;
  if (!persist) return randomBytes(32).toString('hex');
  const file = path.join(config.DATA_DIR, 'secret');
  if (existsSync(file)) {
    const s = readFileSync(file, 'utf8').trim();
    if (s.length >= 32) return s;
  }
  mkdirSync(config.DATA_DIR, { recursive: true });
  const s = randomBytes(32).toString('hex');
  writeFileSync(file, s, { mode: 0o600 });
  return s;
}

/** Registers job N's handler; start-up fails when a declared job has none. */
async function workOne<N extends JobName>(jobs: JobQueue, handlers: JobHandlers, name: N): Promise<void> {
  const handler = handlers[name];
  if (typeof handler !== 'function') throw new Error(`job ${name} has no handler`);
  await jobs.work(name, handler, jobOptions[name]);
}

export async function buildPlatform(config: Config, o: PlatformOverrides = {}): Promise<Platform> {
  const logger = o.logger ?? createLogger(config.LOG_LEVEL, { role: config.ROLE });
  const inMemory = o.database === 'inMemory';
  const database =
    o.database && o.database !== 'inMemory'
      ? o.database
      : await openDatabase({
          url: config.DATABASE_URL,
          dataDir: inMemory ? null : path.join(config.DATA_DIR, 'db'),
          poolSize: config.PG_POOL_SIZE,
        });
  const applied = await migrateToLatest(database.db as never);
  if (applied.length) logger.info({ applied }, 'database migrated');

  const secret = loadSecret(config, !inMemory);
  const outbox = config.devOutbox ? new DevOutbox() : null;
  const sms =
    o.sms ??
    (config.SMS_SENDER === 'http'
      ? new HttpSmsSender(config.SMS_WEBHOOK_URL!, config.SMS_WEBHOOK_TOKEN)
      : new ConsoleSmsSender(logger, outbox));
  const events = new InMemoryEventBus();
  const presence = new PresenceRegistry();
  const clock = o.clock ?? systemClock;
  const { objects, disk: diskObjects } = buildObjectStore(config, secret, () => clock.now().getTime());
  const converter = o.converter !== undefined ? o.converter : await loadConverter(config, logger);

  // The web role sends jobs (courseware conversions) without working them; all and worker work them.
  const runsWorkers = config.roles.has('worker');
  const wantJobs = o.jobs ?? (runsWorkers || config.roles.has('web'));
  let jobs: JobQueue | null = null;
  if (wantJobs) {
    jobs = await startPgBoss(database.pglite ? { pglite: database.pglite } : { url: database.url! }, logger, {
      maintenance: runsWorkers,
      notifyQueues: notifyQueues,
      queues: queueOptions(config),
    });
  }

  // The sandbox gives packages away, so production has no gateway unless one is chosen. Without
  // its own secret the sandbox derives one, so a laptop run needs no setting.
  const gatewayKind = config.PAYMENT_GATEWAY ?? (config.production ? 'off' : 'sandbox');
  const payments: PaymentGateway =
    o.payments ??
    (gatewayKind === 'sandbox'
      ? new SandboxGateway(
          config.PAYMENT_GATEWAY_SECRET ?? hmac(secret, 'payment-gateway'),
          () => config.publicUrl,
          () => clock.now().getTime(),
        )
      : new NoGateway());
  const sandbox = payments instanceof SandboxGateway ? payments : null;
  const mediaNodes =
    o.mediaNodes ??
    (config.MEDIA_PLACEMENT === 'registry'
      ? new MediaRegistry(new MediaNodeRepository(database.db), clock, config.MEDIA_REPORT_SECONDS)
      : singleMediaNode(config));
  const redisChanges = !o.roomChanges && config.REDIS_URL ? await connectRoomChangeRelay(config.REDIS_URL, logger) : null;
  const roomChanges = o.roomChanges ?? redisChanges ?? new LocalRoomChangeRelay();
  const services = buildServices({
    config,
    secret,
    db: database.db,
    clock,
    logger,
    sms,
    outbox,
    events,
    objects,
    converter,
    jobs,
    presence,
    scheduler: timerScheduler(logger),
    payments,
    mediaNodes,
    roomChanges,
  });
  // Chat lines per person count on every web node alike (ADR 096).
  const chatBuckets = config.REDIS_URL
    ? await connectRedisBuckets(
        config.REDIS_URL,
        'chat',
        clock,
        config.CHAT_MESSAGES_PER_10S,
        config.CHAT_MESSAGES_PER_10S / 10_000,
        logger,
      )
    : null;
  if (chatBuckets) services.live.chatBuckets = chatBuckets;
  // Raised hands per person too (ADR 112).
  const handBuckets = config.REDIS_URL
    ? await connectRedisBuckets(config.REDIS_URL, 'hands', clock, config.HANDS_PER_MINUTE, config.HANDS_PER_MINUTE / 60_000, logger)
    : null;
  if (handBuckets) services.live.stage.handBuckets = handBuckets;

  if (jobs && runsWorkers) {
    const handlers = jobHandlers(services);
    for (const name of Object.keys(handlers) as JobName[]) await workOne(jobs, handlers, name);
    for (const s of schedules) await jobs.schedule(s.name, s.cron);
    // Conversions a killed process left half-done are queued again, or failed with a reason (ADR 068).
    await services.courseware.conversion.resumeInterrupted(jobs);
    // Studio takes saved while no worker ran, or whose worker was killed, are made now (ADR 086).
    await services.studio.resumeInterrupted(jobs);
  }

  return {
    config,
    clock,
    logger,
    database,
    services,
    events,
    roomChanges,
    objects,
    diskObjects,
    converter,
    jobs,
    presence,
    secret,
    payments,
    sandbox,
    mediaNodes,
    async close() {
      await jobs?.stop().catch((err: unknown) => logger.warn({ err }, 'job queue stop failed'));
      services.courseware.close();
      services.groups.close();
      await converter?.close().catch((err: unknown) => logger.warn({ err }, 'converter close failed'));
      if (objects instanceof S3ObjectStore) objects.close();
      await redisChanges?.close();
      await chatBuckets?.close();
      await handBuckets?.close();
      await database.close();
    },
  };
}

/**
 * The converter of workers/convert (LibreOffice, mupdf, sharp, ffmpeg). It is looked up at start so
 * the web role, which only sniffs uploads, and the worker role share one place that builds it.
 */
async function loadConverter(config: Config, logger: Logger): Promise<Converter | null> {
  try {
    // Loaded when first needed: the web role only sniffs uploads, workers convert.
    const { createConverter } = await import('../workers/convert/index.ts');
    // Processes that convert make LibreOffice's profiles at once (the first deck converts sooner).
    const converts = config.roles.has('worker');
    return createConverter({
      warm: converts && config.NODE_ENV !== 'test',
      officeSlots: config.CONVERT_OFFICE_SLOTS,
      pdfWorkers: config.CONVERT_PDF_WORKERS,
    });
  } catch (err) {
    logger.warn({ err }, 'no courseware converter: uploads cannot be checked or converted');
    return null;
  }
}
