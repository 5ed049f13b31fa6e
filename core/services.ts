/**
 * The composition of the domain: services built from ports. Every adapter (pages, /api, sockets,
 * jobs) reaches the rules through this object and nothing else.
 */
import { AccountRepository } from './account/account.repository.ts';
import { AccountService } from './account/account.service.ts';
import { BillingRepository } from './billing/billing.repository.ts';
import { BillingService } from './billing/billing.service.ts';
import type { Clock } from './platform/clock.ts';
import type { Config } from './platform/config.ts';
import type { Database } from './platform/db/database.ts';
import type { EventBus } from './platform/events.ts';
import type { JobQueue } from './platform/jobs.ts';
import type { Logger } from './platform/logger.ts';
import type { ObjectStore } from './platform/objects.ts';
import { RateLimiter } from './platform/rate-limit.ts';
import { RoomLookups } from './rooms/room-lookup.ts';
import { TokenSigner } from './platform/secrets.ts';
import type { DevOutbox, SmsSender } from './platform/sms.ts';
import { RoomRepository } from './rooms/room.repository.ts';
import { RoomService } from './rooms/room.service.ts';
import { LiveRepository } from './rooms/live.repository.ts';
import { StageRepository } from './rooms/stage.repository.ts';
import { OrderRepository } from './billing/order.repository.ts';
import { OrderService } from './billing/order.service.ts';
import { MessagingRepository } from './messaging/messaging.repository.ts';
import { MessagingService } from './messaging/messaging.service.ts';
import type { PaymentGateway } from './platform/payments.ts';
import { SiteRepository } from './site/site.repository.ts';
import { SiteService } from './site/site.service.ts';
import { RoomEndings } from './rooms/room-endings.ts';
import { RoomLiveService, type Presence, type Scheduler } from './rooms/live.service.ts';
import { BoardRepository } from './board/board.repository.ts';
import { BoardService } from './board/board.service.ts';
import { RoomViewService } from './board/room-view.ts';
import { MediaService, type MediaNodes } from './rooms/media.service.ts';
import type { Converter } from './courseware/converter.ts';
import { DocumentRepository } from './courseware/document.repository.ts';
import { CoursewareService } from './courseware/courseware.service.ts';
import { LocalRoomChangeRelay, RoomState, type RoomChangeRelay } from './rooms/room-state.ts';
import { RoomStateRepository } from './rooms/room-state.repository.ts';
import { RecordingRepository } from './recording/recording.repository.ts';
import { RecordTasks } from './recording/record-tasks.ts';
import { RecordingService } from './recording/recording.service.ts';
import { LiveTaskRepository } from './streaming/live.repository.ts';
import { LiveTasks } from './streaming/live-tasks.ts';
import { StreamingService } from './streaming/live.service.ts';
import { StudioRepository } from './studio/studio.repository.ts';
import { StudioService } from './studio/studio.service.ts';
import { DemoService } from './rooms/demo.service.ts';
import { SampleDeck } from './courseware/sample-deck.ts';
import { ToolsRepository } from './tools/tools.repository.ts';
import { ClassToolsService } from './tools/tools.service.ts';
import { GroupsRepository } from './groups/groups.repository.ts';
import { GroupsService } from './groups/groups.service.ts';

export interface Ports {
  config: Config;
  secret: string;
  db: Database;
  clock: Clock;
  logger: Logger;
  sms: SmsSender;
  outbox: DevOutbox | null;
  events: EventBus;
  objects: ObjectStore;
  jobs: JobQueue | null;
  presence: Presence;
  scheduler: Scheduler;
  payments: PaymentGateway;
  /** Where rooms' media is served; without it join answers carry no media token. */
  mediaNodes?: MediaNodes;
  /** Courseware conversion and content checks of uploads (workers/convert); null where none is built. */
  converter?: Converter | null;
  /** Carries room changes to the other processes (Redis with REDIS_URL); this process only without it. */
  roomChanges?: RoomChangeRelay;
}

export interface Services {
  account: AccountService;
  rooms: RoomService;
  /** The one writer of the rooms row and the source of its change events (ADR 062). */
  roomState: RoomState;
  live: RoomLiveService;
  media: MediaService | null;
  billing: BillingService;
  limiter: RateLimiter;
  /** Look-ups by room number from outside a room: counted, without the creator (ADR 066). */
  roomLookups: RoomLookups;
  /** The dev SMS outbox; null in production or with a real SMS sender. */
  devOutbox: { list(): Array<{ mobile: string; code: string; purpose: string; at: number }> } | null;
  /** Grants used by the billing issue's orders and by tests. */
  billingRepo: BillingRepository;
  orders: OrderService;
  messaging: MessagingService;
  site: SiteService;
  board: BoardService;
  /** A room's shown page and board without a seat (ADR 093). */
  roomView: RoomViewService;
  courseware: CoursewareService;
  /** Cloud recording: the calls, and the task store the recorders claim from (ADR 071). */
  recording: RecordingService;
  /** Live streaming: the calls, and the task store the recorders claim pushes from (ADR 085). */
  streaming: StreamingService;
  liveTasks: LiveTasks;
  recordTasks: RecordTasks;
  /** The recording studio: uploads of takes and the MP4s made of them (ADR 086). */
  studio: StudioService;
  /** Demo rooms without an account (ADR 092). */
  demo: DemoService;
  /** The class tools besides stage and hands: quiz, poll, timer, buzzer, pick, rewards (ADR 113). */
  tools: ClassToolsService;
  /** Breakout groups (ADR 116). */
  groups: GroupsService;
}

export function buildServices(p: Ports): Services {
  const accountRepo = new AccountRepository(p.db);
  const account = new AccountService(accountRepo, p.sms, p.clock, p.config, p.secret, p.logger);
  const billingRepo = new BillingRepository(p.db);
  const billing = new BillingService(billingRepo, p.clock, p.config);
  const limiter = new RateLimiter(p.db, p.clock);
  const signer = new TokenSigner(p.secret);
  const roomState = new RoomState(new RoomStateRepository(p.db), p.roomChanges ?? new LocalRoomChangeRelay());
  const media = p.mediaNodes ? new MediaService(new LiveRepository(p.db), signer, p.mediaNodes, p.clock, p.config) : null;
  const rooms = new RoomService(new RoomRepository(p.db), roomState, account, billing, signer, limiter, p.clock, p.config, media);
  // Recording and streaming stop when a class ends: they listen here (below), the live service only tells.
  const endings = new RoomEndings();
  const courseware: CoursewareService = new CoursewareService(
    new DocumentRepository(p.db),
    p.objects,
    p.converter ?? null,
    p.jobs,
    p.events,
    limiter,
    { actorFor: (viewer, roomNumber) => live.actorFor(viewer, roomNumber) },
    roomState,
    p.clock,
    p.config,
    p.logger,
    signer,
  );
  const live: RoomLiveService = new RoomLiveService(
    new LiveRepository(p.db),
    roomState,
    accountRepo,
    rooms,
    p.events,
    p.presence,
    p.scheduler,
    p.clock,
    p.config,
    { endings, courseware, stage: new StageRepository(p.db) },
  );
  const orders = new OrderService(new OrderRepository(p.db), p.payments, p.events, p.clock, p.config, p.logger);
  const messaging = new MessagingService(new MessagingRepository(p.db), p.clock, p.config, p.secret);
  const site = new SiteService(new SiteRepository(p.db), limiter, p.clock, p.config);
  const board = new BoardService(new BoardRepository(p.db), live, signer, p.objects, roomState, p.clock, p.config, p.logger);
  const roomLookups = new RoomLookups(limiter, rooms, live, p.config);
  // Breakout groups (ADR 116): the chat, the board and the media tokens read them.
  const groups = new GroupsService({
    repo: new GroupsRepository(p.db),
    bus: p.events,
    presence: p.presence,
    scheduler: p.scheduler,
    clock: p.clock,
    config: p.config,
    changes: roomState,
    board,
    objects: p.objects,
    logger: p.logger,
  });
  live.groups = groups;
  board.groups = groups;
  if (media) media.groups = groups;
  const recordingRepo = new RecordingRepository(p.db, p.config);
  const recordTasks = new RecordTasks(recordingRepo, roomState, p.events, p.clock);
  const recording = new RecordingService({
    repo: recordingRepo,
    tasks: recordTasks,
    live,
    rooms: new LiveRepository(p.db),
    billing: billingRepo,
    objects: p.objects,
    signer,
    limiter,
    scheduler: p.scheduler,
    clock: p.clock,
    config: p.config,
    logger: p.logger,
  });
  endings.on((roomId, why) => recording.stopRoom(roomId, why));
  const liveTasks = new LiveTasks(new LiveTaskRepository(p.db, p.config), roomState, p.events, p.clock, p.secret);
  const streaming = new StreamingService({
    tasks: liveTasks,
    live,
    rooms: new LiveRepository(p.db),
    scheduler: p.scheduler,
    clock: p.clock,
    config: p.config,
    logger: p.logger,
    secret: p.secret,
  });
  endings.on((roomId, why) => streaming.stopRoom(roomId, why));
  const studio = new StudioService({
    repo: new StudioRepository(p.db),
    objects: p.objects,
    converter: p.converter ?? null,
    jobs: p.jobs,
    events: p.events,
    limiter,
    clock: p.clock,
    config: p.config,
    logger: p.logger,
  });
  const demo = new DemoService({
    rooms,
    state: roomState,
    live: new LiveRepository(p.db),
    account,
    deck: new SampleDeck(p.objects, new DocumentRepository(p.db), p.clock),
    limiter,
    scheduler: p.scheduler,
    closeExpired: () => live.closeExpired(),
    clock: p.clock,
    config: p.config,
  });
  return {
    account,
    rooms,
    roomState,
    live,
    media,
    billing,
    limiter,
    roomLookups,
    devOutbox: p.outbox,
    billingRepo,
    orders,
    messaging,
    site,
    board,
    roomView: new RoomViewService({ board, lookups: roomLookups, courseware }),
    courseware,
    recording,
    recordTasks,
    streaming,
    liveTasks,
    studio,
    demo,
    tools: new ClassToolsService({
      repo: new ToolsRepository(p.db),
      bus: p.events,
      presence: p.presence,
      scheduler: p.scheduler,
      clock: p.clock,
      logger: p.logger,
    }),
    groups,
  };
}
