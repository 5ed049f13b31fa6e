/**
 * The one owner of room state (ADR 062): the only code that writes the `rooms` row. After each
 * committed write it tells one typed change, `{ roomNumber, fields }`, to every listener of this
 * process at once and, through the relay (Redis with REDIS_URL), to every other process; the
 * caches of room rows and room info listen here instead of being dropped by hand after a write.
 */
import type { RoomsTable } from '../platform/db/schema.ts';
import type { NewRoom, RoomCoursewarePatch, RoomStatePatch, RoomStateRepository, Trx } from './room-state.repository.ts';

/** A column of the rooms row, or 'participants': the seats counted with it (room_members). */
export type RoomField = keyof RoomsTable | 'participants' | 'groups';

export interface RoomChange {
  roomNumber: string;
  fields: readonly RoomField[];
}

/**
 * Carries changes between processes. `publish` tells this process's listeners before it returns
 * (a read right after a write sees it) and the other processes as soon as the relay can.
 */
export interface RoomChangeRelay {
  publish(change: RoomChange): void;
  subscribe(listener: (change: RoomChange) => void): () => void;
}

/** One process, or several sharing this object (tests): every listener hears every change at once. */
export class LocalRoomChangeRelay implements RoomChangeRelay {
  readonly #listeners = new Set<(change: RoomChange) => void>();
  publish(change: RoomChange): void {
    for (const l of this.#listeners) l(change);
  }
  subscribe(listener: (change: RoomChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/** Where changes are heard (RoomState; tests may pass a relay). */
export interface RoomChanges {
  onChange(listener: (change: RoomChange) => void): () => void;
}

const keysOf = <T extends object>(o: T) => Object.keys(o) as Array<keyof T & string>;

export class RoomState implements RoomChanges {
  private readonly repo: RoomStateRepository;
  private readonly relay: RoomChangeRelay;
  /** Changes made inside a transaction of `transaction`, told once it commits. */
  readonly #pending = new WeakMap<Trx, Map<string, Set<RoomField>>>();

  constructor(repo: RoomStateRepository, relay: RoomChangeRelay) {
    this.repo = repo;
    this.relay = relay;
  }

  onChange(listener: (change: RoomChange) => void): () => void {
    return this.relay.subscribe(listener);
  }

  #tell(roomNumber: string | null, fields: readonly RoomField[]): void {
    if (roomNumber !== null) this.relay.publish({ roomNumber, fields });
  }

  /** The changes waiting for this transaction's commit; a transaction RoomState did not open is refused before any write. */
  #pendingOf(trx: Trx): Map<string, Set<RoomField>> {
    const pending = this.#pending.get(trx);
    if (!pending) throw new Error('a rooms write inside a transaction must run in RoomState.transaction');
    return pending;
  }

  #later(pending: Map<string, Set<RoomField>>, roomNumber: string | null, fields: readonly RoomField[]): void {
    if (roomNumber === null) return;
    const set = pending.get(roomNumber) ?? new Set<RoomField>();
    for (const f of fields) set.add(f);
    pending.set(roomNumber, set);
  }

  /** A transaction whose room writes are told after it commits (and not at all if it rolls back). */
  async transaction<T>(fn: (trx: Trx) => Promise<T>): Promise<T> {
    let changes: Map<string, Set<RoomField>> | undefined;
    const result = await this.repo.db.transaction().execute(async (trx) => {
      changes = new Map();
      this.#pending.set(trx, changes);
      return fn(trx);
    });
    for (const [roomNumber, fields] of changes ?? []) this.#tell(roomNumber, [...fields]);
    return result;
  }

  /** A new room (undefined when the number is taken by an open room). */
  async insertRoom(trx: Trx, values: NewRoom): Promise<{ id: string } | undefined> {
    const pending = this.#pendingOf(trx);
    const row = await this.repo.insertRoom(trx, values);
    if (row) this.#later(pending, values.room_number, ['id', 'state', ...keysOf(values)]);
    return row;
  }

  /** An audio class's end, set when its creator first takes the seat. */
  async setEndsAt(trx: Trx, roomId: string, endsAt: Date): Promise<void> {
    const pending = this.#pendingOf(trx);
    this.#later(pending, await this.repo.setEndsAt(trx, roomId, endsAt), ['ends_at']);
  }

  async patchRoom(roomId: string, patch: RoomStatePatch, now: Date): Promise<void> {
    this.#tell(await this.repo.patchRoom(roomId, patch, now), [...keysOf(patch), 'last_active_at']);
  }

  async touch(roomId: string, now: Date): Promise<void> {
    this.#tell(await this.repo.touch(roomId, now), ['last_active_at']);
  }

  /** The one-time trial; false when it was used. */
  async startTrial(roomId: string, now: Date): Promise<boolean> {
    const started = await this.repo.startTrial(roomId, now);
    this.#tell(started, ['trial_started_at']);
    return started !== null;
  }

  /** Closes an open room; false when it was closed already. */
  async close(roomId: string, now: Date): Promise<boolean> {
    const closed = await this.repo.close(roomId, now);
    this.#tell(closed, ['state', 'closed_at']);
    return closed !== null;
  }

  /** The recording state ('0' idle, '2' starting, '1' recording); with `from`, only while it is one of those. False when unchanged. */
  async setRecordState(roomId: string, to: '0' | '1' | '2', from?: ReadonlyArray<'0' | '1' | '2'>): Promise<boolean> {
    const changed = await this.repo.setRecordState(roomId, to, from);
    this.#tell(changed, ['record_state']);
    return changed !== null;
  }

  /** The live streaming state ('0' idle, '2' starting, '1' live); with `from`, only while it is one of those. False when unchanged. */
  async setLiveState(roomId: string, to: '0' | '1' | '2', from?: ReadonlyArray<'0' | '1' | '2'>): Promise<boolean> {
    const changed = await this.repo.setLiveState(roomId, to, from);
    this.#tell(changed, ['live_state']);
    return changed !== null;
  }

  /** The class mode (ADR 099); false when the room was in that mode already (or is not open). */
  async setMode(roomId: string, mode: 'discuss' | 'lecture'): Promise<boolean> {
    const changed = await this.repo.setMode(roomId, mode);
    this.#tell(changed, ['class_mode']);
    return changed !== null;
  }

  /** The courseware the room shows. */
  async setCourseware(roomId: string, patch: RoomCoursewarePatch): Promise<void> {
    this.#tell(await this.repo.setCourseware(roomId, patch), keysOf(patch));
  }

  /**
   * Seats were taken or freed (room_members, written with the membership): the participants
   * counted with the row changed. Inside `transaction` it is told after the commit.
   */
  seatsChanged(roomNumber: string, trx?: Trx): void {
    if (trx) this.#later(this.#pendingOf(trx), roomNumber, ['participants']);
    else this.#tell(roomNumber, ['participants']);
  }

  /** The room's breakout groups changed (ADR 116, their own tables): every process drops what it holds of them. */
  groupsChanged(roomNumber: string): void {
    this.#tell(roomNumber, ['groups']);
  }
}

/**
 * A per-room cache of something read from the rooms row (the row itself, the room info): an entry
 * lives `ttlMs` at most and goes as soon as a change of that room is heard, from this process or
 * another. A change of `last_active_at` alone (housekeeping) keeps it.
 */
export class RoomCache<T> {
  readonly #entries = new Map<string, { at: number; value: Promise<T> }>();
  readonly #unsubscribe: () => void;
  private readonly ttlMs: number;
  private readonly max: number;
  private readonly now: () => number;

  constructor(changes: RoomChanges, ttlMs: number, max: number, now: () => number) {
    this.ttlMs = ttlMs;
    this.max = max;
    this.now = now;
    // The entry holds the load itself: a change heard while it runs drops it too, so a read that
    // began before the write is answered to those already waiting and never to later readers.
    this.#unsubscribe = changes.onChange((c) => {
      if (!c.fields.every((f) => f === 'last_active_at')) this.#entries.delete(c.roomNumber);
    });
  }

  /** The cached value, or `load()` shared by everyone asking until it settles (a failure is not kept). */
  get(roomNumber: string, load: () => Promise<T>): Promise<T> {
    if (this.ttlMs <= 0) return load();
    const now = this.now();
    const hit = this.#entries.get(roomNumber);
    if (hit && now - hit.at < this.ttlMs && now >= hit.at) return hit.value;
    const value = load();
    const entry = { at: now, value };
    this.#entries.set(roomNumber, entry);
    value.catch(() => {
      if (this.#entries.get(roomNumber) === entry) this.#entries.delete(roomNumber);
    });
    if (this.#entries.size > this.max) this.#entries.delete(this.#entries.keys().next().value!);
    return value;
  }

  /** Forgets one room (tests: force a read). */
  delete(roomNumber: string): void {
    this.#entries.delete(roomNumber);
  }

  close(): void {
    this.#unsubscribe();
  }
}
