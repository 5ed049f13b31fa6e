/**
 * The breakout groups' state in the browser (issue 31, ADR 118), outside React: the whole
 * `GroupsState` the server tells the room (replaced by the join snapshot and by every `groups`
 * event, never patched here), the last event's outcome, the teacher's broadcasts heard, and the
 * server clock's offset. The room channel's client feeds it what it hears and sends its requests
 * (a refusal is toasted there with the code's message); the views read it with
 * useSyncExternalStore (useGroups.ts).
 */
import type { GroupsEvent, GroupsOutcome, GroupsStart, GroupsState } from '#core/contracts/groups.ts';
import { ClockOffset } from '../tools/clock.ts';
import { NO_GROUPS } from './groups-pure.ts';

/** A broadcast of the teacher's, as heard. */
export interface Broadcast {
  text: string;
  at: number;
  by: string;
}

export interface GroupsView {
  state: GroupsState;
  /** The last event's outcome and whom it concerned (null after a snapshot). */
  last: { outcome: GroupsOutcome; userIds: string[]; seq: number } | null;
  /** The teacher's broadcasts of this session, oldest first. */
  broadcasts: Broadcast[];
  /** Server time minus this browser's time (ms). */
  offset: number;
}

export interface GroupsAck {
  code: string;
  msg: string;
  data?: unknown;
}

/** Sends a room request (the room channel's, which toasts a refusal) and answers its ack. */
export type GroupsRequest = (event: string, payload: object) => Promise<GroupsAck>;

export interface GroupsActions {
  start: (p: GroupsStart) => Promise<boolean>;
  move: (userId: string, group: number) => Promise<boolean>;
  choose: (group: number) => Promise<boolean>;
  visit: (group: number) => Promise<boolean>;
  leader: (group: number, userId: string | null) => Promise<boolean>;
  broadcast: (text: string) => Promise<boolean>;
  help: (cancel?: boolean) => Promise<boolean>;
  end: (afterSeconds: number) => Promise<boolean>;
}

const mono = () => (typeof performance === 'undefined' ? Date.now() : performance.now());

export class GroupsStore {
  readonly #clock = new ClockOffset();
  readonly #listeners = new Set<() => void>();
  #view: GroupsView = { state: NO_GROUPS, last: null, broadcasts: [], offset: 0 };
  #seq = 0;
  #request: GroupsRequest = () => Promise.resolve({ code: '-1', msg: '' });
  readonly actions: GroupsActions;

  constructor(request?: GroupsRequest) {
    if (request) this.#request = request;
    const ok = async (event: string, payload: object) => (await this.#request(event, payload)).code === '0';
    this.actions = {
      start: (p) => ok('groupsStart', p),
      move: (userId, group) => ok('groupsMove', { userId, group }),
      choose: (group) => ok('groupsChoose', { group }),
      visit: (group) => ok('groupsVisit', { group }),
      leader: (group, userId) => ok('groupsLeader', { group, userId }),
      broadcast: (text) => ok('groupsBroadcast', { text }),
      help: (cancel) => ok('groupsHelp', cancel ? { cancel: true } : {}),
      end: (afterSeconds) => ok('groupsEnd', { afterSeconds }),
    };
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  };

  readonly getSnapshot = (): GroupsView => this.#view;

  #set(next: Partial<GroupsView>): void {
    this.#view = { ...this.#view, ...next };
    for (const l of this.#listeners) l();
  }

  #sample(serverTime: number): number {
    this.#clock.sample(serverTime, Date.now(), mono());
    return this.#clock.offset;
  }

  /** The join snapshot's part (absent from a server that has no groups: none run). */
  snapshot(part: { groups?: GroupsState | undefined; serverTime: number }): void {
    const state = part.groups ?? NO_GROUPS;
    const offset = this.#sample(state.serverTime || part.serverTime);
    // A new session (or none) forgets the broadcasts of the one before.
    const broadcasts = state.round === this.#view.state.round && state.status !== 'off' ? this.#view.broadcasts : [];
    this.#set({ state, last: null, offset, broadcasts });
  }

  /** A `groups` event: the whole state, and what happened. */
  event(event: GroupsEvent): void {
    const { outcome, userIds, ...state } = event;
    // An event of an older round than the one held is late: the held state is newer.
    if (state.round < this.#view.state.round) return;
    const offset = this.#sample(state.serverTime);
    this.#seq += 1;
    const broadcasts = outcome === 'started' ? [] : this.#view.broadcasts;
    this.#set({ state, last: { outcome, userIds, seq: this.#seq }, offset, broadcasts });
  }

  /** A `groupsBroadcast` event. */
  broadcast(b: Broadcast): void {
    if (this.#view.broadcasts.some((x) => x.at === b.at && x.text === b.text)) return;
    this.#set({ broadcasts: [...this.#view.broadcasts, b].slice(-20) });
  }
}
