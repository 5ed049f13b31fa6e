/** Table types for Kysely. The SQL lives in ./migrations; keep the two in step. */
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

export interface UsersTable {
  id: Generated<string>;
  mobile: string | null;
  name: string;
  kind: 'teacher' | 'tourist';
  promo_code: string | null;
  promo_points: Generated<number>;
  vip_room_time: Timestamp | null;
  vip_room_remaining_number: Generated<number>;
  vip_big_room_people_number: Generated<number>;
  vip_big_room_time: Timestamp | null;
  record_room_time: Timestamp | null;
  credit_window_until: Timestamp | null;
  created_at: CreatedAt;
}

export interface SessionsTable {
  token_hash: string;
  user_id: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
  ip: string;
}

export interface SmsCodesTable {
  id: Generated<string>;
  mobile: string;
  purpose: string;
  code_hash: string;
  ip: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
  failed_attempts: Generated<number>;
}

export interface RoomsTable {
  id: Generated<string>;
  room_number: string;
  room_type: number;
  create_user: string;
  consumption: 'on' | 'off';
  is_vip: '0' | '1';
  max_member: number;
  state: 'open' | 'closed';
  show_state: Generated<string>;
  wb_power: Generated<'0' | '1'>;
  room_extend: Generated<string>;
  ppt_id: Generated<string>;
  ppt_current_page: Generated<number>;
  is_record_status: Generated<'0' | '1'>;
  record_state: Generated<'0' | '1' | '2'>;
  live_state: Generated<'0' | '1' | '2'>;
  trial_started_at: Timestamp | null;
  ends_at: Timestamp | null;
  created_at: Timestamp;
  closed_at: Timestamp | null;
  last_active_at: Timestamp | null;
  document_id: string | null;
  doc_scroll: Generated<number>;
  doc_video: Generated<string>;
  hidden_at: Timestamp | null;
  /** A demo room (ADR 092): anyone may try it without an account until `ends_at`. */
  is_demo: Generated<boolean>;
  /** The class mode (ADR 099): 'discuss' or 'lecture'. */
  class_mode: Generated<'discuss' | 'lecture'>;
}

export interface ChatMessagesTable {
  id: Generated<string>;
  room_id: string;
  user_id: string;
  name: string;
  text: string;
  created_at: Timestamp;
  /** A breakout group's line (ADR 116): its group and round; null in the main room. */
  group_no: number | null;
  group_round: number | null;
}

/** A class's breakout groups (ADR 116, migration 0017): the session row a change locks. */
export interface BreakoutSessionsTable {
  room_id: string;
  status: Generated<'off' | 'running' | 'closing'>;
  round: Generated<number>;
  teacher_in: Generated<number>;
  allow_choose: Generated<boolean>;
  late_joiners: Generated<'auto' | 'teacher'>;
  started_at: Timestamp | null;
  ends_at: Timestamp | null;
  closing_at: Timestamp | null;
  background: ColumnType<unknown, string | null, string | null> | null;
  last_boards: ColumnType<unknown, string | undefined, string>;
}

/** The groups of the running round. */
export interface BreakoutGroupsTable {
  room_id: string;
  no: number;
  name: string;
  leader: string | null;
  page: number;
  help_at: Timestamp | null;
}

/** Where each student is this round (0: the main room). */
export interface BreakoutPlacesTable {
  id: Generated<string>;
  room_id: string;
  user_id: string;
  group_no: number;
}

/** A room's stage (ADR 112): the carousel, and the row a stage change locks. */
export interface RoomStageTable {
  room_id: string;
  carousel_seconds: Generated<number>;
  carousel_next_at: Timestamp | null;
  carousel_cursor: string | null;
}

/** Who is on a room's stage ('on') or invited to it ('inviting' until `deadline`). */
export interface RoomStageSeatsTable {
  room_id: string;
  user_id: string;
  phase: 'inviting' | 'on';
  since: Timestamp;
  deadline: Timestamp | null;
}

/** Raised hands, in the order they went up. */
export interface RoomHandsTable {
  room_id: string;
  user_id: string;
  raised_at: Timestamp;
}

export interface RoomMembersTable {
  room_id: string;
  user_id: string;
  role: 'creator' | 'member' | 'tourist' | 'observer';
  user_type: '1' | '2' | '3';
  joined_at: Timestamp;
  left_at: Timestamp | null;
  kicked_at: Timestamp | null;
}

export interface IdempotencyKeysTable {
  user_id: string;
  scope: string;
  key: string;
  response: ColumnType<unknown, string | null, string | null> | null;
  created_at: Timestamp;
}

export interface CreditLedgerTable {
  id: Generated<string>;
  user_id: string;
  delta: number;
  reason: string;
  room_id: string | null;
  created_at: Timestamp;
}

export interface RateHitsTable {
  key: string;
  at: Timestamp;
}

export interface OrdersTable {
  id: Generated<string>;
  order_id: string;
  user_id: string;
  request_key: string | null;
  goods_id: string;
  goods_name: string;
  goods_kind: 'month' | 'credits' | 'bigclass';
  goods_duration: number;
  goods_quantity: number;
  order_total_money: number;
  state: Generated<'created' | 'paid'>;
  promo_code: string | null;
  promoter_id: string | null;
  gateway: string | null;
  gateway_txn: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  paid_at: Timestamp | null;
  /** Promo points the order cost (ADR 057); 0 for an order paid in money. */
  points_spent: Generated<number>;
}

export interface PaymentNoticesTable {
  id: Generated<string>;
  gateway: string;
  order_id: string | null;
  txn: string | null;
  outcome: string;
  ip: string;
  body: string;
  created_at: Timestamp;
}

export interface AnnouncementsTable {
  id: Generated<string>;
  title: string;
  content: string;
  author: string;
  created_at: Timestamp;
}

export interface FeedbackTable {
  id: Generated<string>;
  user_id: string;
  content: string;
  created_at: Timestamp;
}

export interface FeedbackCaptchasTable {
  user_id: string;
  code_hash: string;
  expires_at: Timestamp;
  failed_attempts: Generated<number>;
}

export interface TrialApplicationsTable {
  id: Generated<string>;
  name: string;
  mobile: string;
  organisation: string;
  message: string;
  ip: string;
  created_at: Timestamp;
}

export interface ClientLogsTable {
  id: Generated<string>;
  user_id: string | null;
  socket_type: string;
  room_number: string;
  message: string;
  ip: string;
  created_at: Timestamp;
}

export interface BoardRoomsTable {
  room_id: string;
  seq: Generated<string>;
}

export interface BoardOpsTable {
  room_id: string;
  seq: string;
  page: string;
  op_id: string;
  user_id: string;
  body: string;
}

export interface BoardSnapshotsTable {
  room_id: string;
  page: string;
  seq: string;
  state: string;
}

export interface MediaNodesTable {
  id: string;
  url: string;
  peers: number;
  rooms: number;
  capacity: number;
  seen_at: Timestamp;
}

export interface MediaPlacementsTable {
  room_number: string;
  node_id: string;
  placed_at: Timestamp;
}

export interface DocumentsTable {
  id: Generated<string>;
  user_id: string;
  name: string;
  source_key: string;
  pages_prefix: string;
  file_hash: string;
  task_id: string;
  document_type: number;
  status: number;
  size: string | number;
  page_count: Generated<number>;
  page_sizes: Generated<string>;
  fail_reason: Generated<string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type RecordTaskState = 'starting' | 'recording' | 'stopping' | 'done' | 'failed';

export interface RecordTasksTable {
  id: Generated<string>;
  room_id: string;
  room_number: string;
  user_id: string;
  state: RecordTaskState;
  owner: string | null;
  lease_until: Timestamp | null;
  created_at: Timestamp;
  started_at: Timestamp | null;
  stop_requested_at: Timestamp | null;
  finished_at: Timestamp | null;
  failure: string | null;
  record_id: string | null;
  /** When the creator's package stops the recording (ADR 072); null: no limit. */
  allowed_until: Timestamp | null;
}

export interface RecordSegmentsTable {
  task_id: string;
  seq: number;
  object_key: string;
  duration_ms: number;
  bytes: ColumnType<string, string | number, string | number>;
  created_at: Timestamp;
}

export interface RecordsTable {
  id: Generated<string>;
  user_id: string;
  /** 1 a studio recording, 2 a class (cloud) recording (docs/product/decisions.md). */
  type: number;
  task_id: string | null;
  room_number: string | null;
  file_name: string;
  object_key: string | null;
  /** null while the MP4 is being made. */
  file_size: ColumnType<string | null, string | number | null, string | number | null>;
  duration_ms: number | null;
  created_at: Timestamp;
  deleted_at: Timestamp | null;
  /** A studio recording's upload until its MP4 is made (ADR 086). */
  source_key: string | null;
  poster_key: string | null;
  /** Why the MP4 could not be made; null otherwise. */
  failure: string | null;
}

export type StudioUploadState = 'open' | 'saving' | 'saved' | 'aborted';

export interface StudioUploadsTable {
  id: Generated<string>;
  token: string;
  user_id: string;
  object_key: string;
  store_upload_id: string;
  media_type: string;
  state: StudioUploadState;
  created_at: Timestamp;
  expires_at: Timestamp;
  record_id: string | null;
}

export type LiveTaskState = 'starting' | 'live' | 'reconnecting' | 'done' | 'failed';

export interface LiveTasksTable {
  id: Generated<string>;
  room_id: string;
  room_number: string;
  user_id: string;
  /** The platform's name as the room sees it ('custom' for a pasted address). */
  platform: string;
  /** The push address sealed with the server's secret (core/streaming/sealed.ts); never sent to a client. */
  push_secret: string;
  state: LiveTaskState;
  owner: string | null;
  lease_until: Timestamp | null;
  created_at: Timestamp;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  failure: string | null;
  kbps: Generated<number>;
}

/** The class tools of one class (ADR 113, migration 0016). */
export interface ClassToolsTable {
  room_id: string;
  quiz_id: string | null;
  poll_id: string | null;
  timer_kind: 'countdown' | 'stopwatch' | null;
  timer_running: Generated<boolean>;
  timer_duration_ms: Generated<number>;
  timer_elapsed_ms: Generated<number>;
  timer_started_at: Timestamp | null;
  buzzer_round: Generated<number>;
  buzzer_status: 'open' | 'won' | null;
  buzzer_winner: string | null;
  buzzer_won_at: Timestamp | null;
  pick_user: string | null;
  pick_at: Timestamp | null;
}

export interface QuizzesTable {
  id: string;
  room_id: string;
  options: number;
  multiple: boolean;
  /** The correct letters, in order ('AC'). */
  correct: string;
  show_own: boolean;
  status: 'open' | 'collected' | 'published';
  started_at: Timestamp;
  ends_at: Timestamp | null;
  rewarded_at: Timestamp | null;
}

export interface QuizAnswersTable {
  quiz_id: string;
  user_id: string;
  /** The chosen letters, in order ('AC'). */
  choice: string;
  answered_at: Timestamp;
}

export interface PollsTable {
  id: string;
  room_id: string;
  anonymous: boolean;
  status: 'open' | 'closed' | 'published';
  questions: ColumnType<unknown, string, string>;
  /** An anonymous open poll's HMAC key of its ballots; null once closed (and for a named poll). */
  voter_key: string | null;
  started_at: Timestamp;
}

export interface PollBallotsTable {
  poll_id: string;
  /** The user id (named poll) or HMAC(voter_key, user id) (anonymous). */
  voter: string;
  /** A named poll's answers; null for an anonymous one. */
  answers: ColumnType<unknown, string | null, string | null>;
}

export interface PollCountsTable {
  poll_id: string;
  question: number;
  option: number;
  n: number;
}

export interface ToolRewardsTable {
  room_id: string;
  user_id: string;
  count: number;
}

export interface DB {
  users: UsersTable;
  sessions: SessionsTable;
  sms_codes: SmsCodesTable;
  rooms: RoomsTable;
  room_members: RoomMembersTable;
  room_stage: RoomStageTable;
  room_stage_seats: RoomStageSeatsTable;
  room_hands: RoomHandsTable;
  idempotency_keys: IdempotencyKeysTable;
  credit_ledger: CreditLedgerTable;
  rate_hits: RateHitsTable;
  chat_messages: ChatMessagesTable;
  breakout_sessions: BreakoutSessionsTable;
  breakout_groups: BreakoutGroupsTable;
  breakout_places: BreakoutPlacesTable;
  orders: OrdersTable;
  payment_notices: PaymentNoticesTable;
  announcements: AnnouncementsTable;
  feedback: FeedbackTable;
  feedback_captchas: FeedbackCaptchasTable;
  trial_applications: TrialApplicationsTable;
  client_logs: ClientLogsTable;
  board_rooms: BoardRoomsTable;
  board_ops: BoardOpsTable;
  board_snapshots: BoardSnapshotsTable;
  media_nodes: MediaNodesTable;
  media_placements: MediaPlacementsTable;
  documents: DocumentsTable;
  record_tasks: RecordTasksTable;
  record_segments: RecordSegmentsTable;
  records: RecordsTable;
  live_tasks: LiveTasksTable;
  studio_uploads: StudioUploadsTable;
  class_tools: ClassToolsTable;
  quizzes: QuizzesTable;
  quiz_answers: QuizAnswersTable;
  polls: PollsTable;
  poll_ballots: PollBallotsTable;
  poll_counts: PollCountsTable;
  tool_rewards: ToolRewardsTable;
}
