/**
 * What the class tools share (issue 30, ADR 113): who may command or answer, the class's and the
 * quiz's row reads on the hot paths, the whole public state read from the database, its emit to the room, and the coalescer the quiz
 * and the poll send their tallies through. Each tool's rules live beside this file (quiz.ts,
 * poll.ts, timer.ts, buzzer.ts, pick-rewards.ts); tools.service.ts puts them together.
 *
 * Time limits are read against stored deadlines when the state is read (a lost timer changes
 * nothing); the timer set at a quiz's deadline only tells the room sooner.
 */
import type { Clock } from '../platform/clock.ts';
import { DomainError, notAllowed, toolTooFast } from '../platform/errors.ts';
import { roomMessage, type EventBus } from '../platform/events.ts';
import type { Logger } from '../platform/logger.ts';
import { MemoryRateLimiter } from '../platform/memory-rate-limit.ts';
import {
  QUIZ_TALLY_COALESCE_MS,
  TOOL_ACTIONS_PER_SECOND,
  type BuzzerPublic,
  type ClassTools,
  type PersonAt,
  type PollPublic,
  type QuizPublic,
  type TimerPublic,
} from '../contracts/class-tools.ts';
import type { Role } from '../contracts/room-events.ts';
import { pollPublic } from './poll.ts';
import { quizPublic } from './quiz.ts';
import type { QuizRow, ToolsRepository } from './tools.repository.ts';

export interface ToolsActor {
  room: string;
  uid: string;
  role: Role;
}

export interface Presence {
  online(roomNumber: string): Promise<Array<{ userId: string }>>;
}
export interface Scheduler {
  after(ms: number, task: () => Promise<void>): void;
}

export interface ToolsDeps {
  repo: ToolsRepository;
  bus: EventBus;
  presence: Presence;
  scheduler: Scheduler;
  clock: Clock;
  logger: Logger;
}

export type ClassRow = { id: string; state: 'open' | 'closed'; create_user: string };

/** How long a class's or a quiz's row read on a hot path is reused. */
const ROW_TTL_MS = 1000;

export const isStudent = (role: Role) => role === 'member' || role === 'tourist';

/** Per room: a coalesced send is pending, and when the last one went. */
export interface Coalesce {
  pending: boolean;
  last: number;
}

export class ToolsCore {
  readonly repo: ToolsRepository;
  readonly bus: EventBus;
  readonly presence: Presence;
  readonly scheduler: Scheduler;
  readonly clock: Clock;
  readonly #logger: Logger;
  readonly #limits: MemoryRateLimiter;
  readonly #rooms = new Map<string, { row: ClassRow; at: number }>();
  readonly #quizzes = new Map<string, { row: QuizRow; at: number }>();

  constructor(d: ToolsDeps) {
    this.repo = d.repo;
    this.bus = d.bus;
    this.presence = d.presence;
    this.scheduler = d.scheduler;
    this.clock = d.clock;
    this.#logger = d.logger;
    this.#limits = new MemoryRateLimiter(() => d.clock.now().getTime());
  }

  // --- who may ---

  onlyCreator(actor: ToolsActor): void {
    if (actor.role !== 'creator') throw notAllowed(`class tools: ${actor.role} is not the creator`);
  }

  onlyStudent(actor: ToolsActor, kind: 'answer' | 'press'): void {
    if (!isStudent(actor.role)) throw notAllowed(`class tools: ${actor.role} cannot ${kind}`);
    if (!this.#limits.hit(`${kind}:${actor.room}:${actor.uid}`, TOOL_ACTIONS_PER_SECOND, 1000)) throw toolTooFast();
  }

  /**
   * The room's current class, open. Reused for a second on the hot paths (answers, presses): its
   * id and creator never change, and every write that a closed class must refuse checks the
   * room's state itself.
   */
  async openClass(actor: ToolsActor, hot = false): Promise<ClassRow> {
    const now = Date.now();
    const cached = hot ? this.#rooms.get(actor.room) : undefined;
    const room = cached && now - cached.at < ROW_TTL_MS ? cached.row : await this.repo.room(actor.room);
    if (!room) throw notAllowed('no such room');
    if (room.state !== 'open') throw new DomainError('31009');
    if (!cached || cached.row !== room) {
      if (this.#rooms.size > 10_000) this.#rooms.clear();
      this.#rooms.set(actor.room, { row: room, at: now });
    }
    return room;
  }

  /** A quiz's row for an answer's checks, reused for a second (its options never change; the write checks that it is open). */
  async quizForAnswer(id: string): Promise<QuizRow | undefined> {
    const now = Date.now();
    const cached = this.#quizzes.get(id);
    if (cached && now - cached.at < ROW_TTL_MS) return cached.row;
    const row = await this.repo.quiz(id);
    if (this.#quizzes.size > 1000) this.#quizzes.clear();
    if (row) this.#quizzes.set(id, { row, at: now });
    return row;
  }

  // --- the state ---

  /** The public state of the class's tools now (a quiz past its deadline is collected here, lazily). */
  async state(roomId: string, roomNumber: string): Promise<ClassTools> {
    const now = this.clock.now().getTime();
    const row = await this.repo.row(roomId);
    let expired = false;
    let quiz: QuizPublic | null = null;
    if (row.quiz_id) {
      let q = await this.repo.quiz(row.quiz_id);
      if (q?.status === 'open' && q.ends_at && q.ends_at.getTime() <= now) {
        q = (await this.repo.setQuizStatus(q.id, ['open'], 'collected')) ?? (await this.repo.quiz(q.id));
        expired = true;
      }
      if (q) quiz = await quizPublic(this.repo, q);
    }
    let poll: PollPublic | null = null;
    if (row.poll_id) {
      const p = await this.repo.poll(row.poll_id);
      if (p) poll = await pollPublic(this.repo, p);
    }
    const timer: TimerPublic | null = row.timer_kind
      ? {
          kind: row.timer_kind,
          running: row.timer_running,
          durationMs: row.timer_duration_ms,
          elapsedMs: row.timer_elapsed_ms,
          startedAt: row.timer_running && row.timer_started_at ? row.timer_started_at.getTime() : 0,
        }
      : null;
    const ids = [row.buzzer_winner, row.pick_user].filter((x): x is string => !!x);
    const names = new Map((await this.repo.userNames(ids)).map((u) => [u.id, u.name]));
    const buzzer: BuzzerPublic | null = row.buzzer_status
      ? {
          round: row.buzzer_round,
          status: row.buzzer_status,
          winner: row.buzzer_winner
            ? { userId: row.buzzer_winner, name: names.get(row.buzzer_winner) ?? '', at: row.buzzer_won_at?.getTime() ?? 0 }
            : null,
        }
      : null;
    const pick: PersonAt | null = row.pick_user
      ? { userId: row.pick_user, name: names.get(row.pick_user) ?? '', at: row.pick_at?.getTime() ?? 0 }
      : null;
    const rewards: Record<string, number> = {};
    for (const r of await this.repo.rewards(roomId)) rewards[r.user_id] = r.count;
    const tools: ClassTools = { quiz, poll, timer, buzzer, pick, rewards };
    if (expired) this.#emit(roomNumber, tools);
    return tools;
  }

  #emit(roomNumber: string, tools: ClassTools): void {
    this.bus.publish(roomMessage(roomNumber, 'tools', { ...tools, serverTime: this.clock.now().getTime() }));
  }

  /** Reads the whole state after a change and tells it to the room. */
  async changed(room: ClassRow, roomNumber: string): Promise<ClassTools> {
    const tools = await this.state(room.id, roomNumber);
    this.#emit(roomNumber, tools);
    return tools;
  }

  // --- coalesced sends after answers and votes ---

  /** At most one send per QUIZ_TALLY_COALESCE_MS per room, and always one after the last change. */
  coalesced(map: Map<string, Coalesce>, key: string, send: () => Promise<void>): void {
    const c = map.get(key) ?? { pending: false, last: 0 };
    map.set(key, c);
    if (c.pending) return;
    c.pending = true;
    const wait = Math.max(0, c.last + QUIZ_TALLY_COALESCE_MS - Date.now());
    const go = async () => {
      // Cleared before reading: a change committed during this read schedules the next send.
      c.pending = false;
      c.last = Date.now();
      try {
        await send();
      } catch (err) {
        this.#logger.warn({ err, room: key }, 'class tools: coalesced send failed');
      }
    };
    if (wait === 0) queueMicrotask(() => void go());
    else this.scheduler.after(wait, go);
  }
}
