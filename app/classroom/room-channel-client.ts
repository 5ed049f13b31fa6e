/**
 * The room channel (core/contracts/room-events.ts) as a plain class: one socket.io connection to
 * the `/room` namespace, the room state kept from its events, and the requests as methods that
 * resolve with the server's ack (a refusal is shown as a toast with the server's message). No
 * React here: `useRoomChannel()` subscribes with useSyncExternalStore, and the tests drive it
 * with a fake socket.
 *
 * Reconnect (docs/product/02-live-classroom.md §4): the socket's own reconnection is off; this class runs the spec's: a 10 s
 * countdown, then an attempt; 'try now' and the browser coming back online attempt at once; after
 * 3 failed attempts the teacher goes to the site root. While the socket is down the room info is
 * fetched every 10 s; a room that is gone closes the class. A successful reconnect joins again
 * and replaces the whole state with the new snapshot.
 */
import { io, type Socket } from 'socket.io-client';
import { openChannel, type AnswerOf, type Channel, type ChannelProblem } from '#core/channel/open.ts';
import type { JoinAnswer } from '#core/contracts/api.ts';
import {
  CHAT_MAX_CHARS,
  ROOM_NAMESPACE,
  ROOM_PROTOCOL_VERSION,
  roomChannel,
  type ClassModeValue,
  type ClientToServer,
  type RoomPatch,
  type roomEvents,
  type roomRequests,
} from '#core/contracts/room-events.ts';
import type { CoursewareRoomEvents, CoursewareRoomRequests } from '#core/contracts/courseware.ts';
import type { LiveApiAnswers } from '#core/contracts/streaming.ts';
import { api as realApi, isOk, NETWORK_ERROR } from '#app/lib/api.ts';
import { channelLog, logClientEvent } from '#app/lib/client-log.ts';
import { currentLang } from '#app/lib/lang.ts';
import { codeMessage, networkMessage } from '#app/lib/messages.ts';
import { refusalPath } from '#app/lib/refusal.ts';
import { toast } from '#app/lib/toast.ts';
import { roomReducer, type RoomAction, type RoomState } from './roomState.ts';

export const RECONNECT_WAIT_S = 10;
export const RECONNECT_ATTEMPTS = 3;
export const POLL_MS = 10_000;
/**
 * A connection that closed under an online browser (its web node went away, ADR 096) gets one
 * quiet attempt after 1 to 2 s, before the countdown ends: through the load balancer it lands on
 * another node. It does not count as a failed attempt, nor stop the countdown shown.
 */
export const QUICK_RETRY_MS = 1000;
const ACK_TIMEOUT_MS = 10_000;
const CLOSED_LEAVE_MS = 1000;
const LEAVE_WAIT_MS = 1000;

export type ChannelStatus = 'connecting' | 'live' | 'offline' | 'closed' | 'gone';

export interface ReconnectState {
  /** Seconds until the next attempt. */
  countdown: number;
  /** Failed attempts since the connection dropped. */
  attempts: number;
  /** An attempt is running. */
  reconnecting: boolean;
}

/** The messages this class shows (react-i18next's `t` fits). */
export type RoomText = (
  key:
    | 'classroom.roomClosed'
    | 'modes.clock.ended'
    | 'classroom.kicked'
    | 'classroom.mic.failed'
    | 'classroom.mic.rejected'
    | 'common.refresh'
    | 'record.button.failed'
    | 'record.button.stopped',
) => string;

/** The socket the class drives (its requests and events go through openChannel, core/channel/open.ts). */
export type RoomSocket = Socket;
type RoomChannelOf = Channel<typeof roomRequests, typeof roomEvents>;
type Payload<E extends keyof ClientToServer> = Parameters<ClientToServer[E]>[0];
type Answer<E extends keyof ClientToServer> = AnswerOf<typeof roomRequests, E>;

export interface RoomActions {
  setView: (showState: string) => Promise<boolean>;
  /** Trims and checks the text first; true when the server took it. */
  sendChat: (text: string) => Promise<boolean>;
  inviteMic: (userId: string) => Promise<boolean>;
  answerMic: (agree: boolean) => Promise<boolean>;
  stopMic: () => Promise<boolean>;
  kick: (userId: string) => Promise<boolean>;
  endRoom: () => Promise<boolean>;
  startTrial: () => Promise<number | null>;
  /** The class mode (creator, ADR 099); true once the server took it (the room hears it as a patch). */
  setMode: (mode: ClassModeValue) => Promise<boolean>;
  /** Tells the server we leave (the teacher's leaving resets the view), then closes the socket. */
  leave: () => Promise<void>;
  /** This person's network as the SFU grades it (1-6, 0 unknown); reported to the room for everyone's members list. */
  reportNetwork: (quality: number) => void;
  /** 'try now' on the reconnect overlay. */
  reconnectNow: () => void;
  /** A room patch (the board's wbPower and roomExtend), applied here once the server took it. */
  patch: (patch: RoomPatch) => Promise<boolean>;
  /** Cloud recording (creator): startTask; '2' until the recorder reports (roomRecord) or gives up (roomRecordFailed). */
  startRecord: () => Promise<boolean>;
  /** stopTask for the running task (asked of the server first when this page does not know it). */
  stopRecord: () => Promise<boolean>;
  /**
   * Live streaming (creator, issue 14): startLive with the platform and the key (or the full
   * address for 'custom'); liveState '2' until roomLive says live or failed. The key is sent and
   * forgotten: it is never kept here. A refusal is answered, not toasted (the dialog shows it).
   */
  startLive: (platform: string, pushStreamUrl: string) => Promise<LiveCallAnswer>;
  /** endLive: liveState '0' once the server took it (a refusal is toasted). */
  endLive: () => Promise<boolean>;
  /** The platforms the key dialog offers (a refusal is answered, not toasted). */
  livePlatforms: () => Promise<LivePlatformsAnswer>;
}

/** startLive's outcome for the dialogs: ok, or the server's code and message (a network failure's code is NETWORK_ERROR). */
export type LiveCallAnswer = { ok: true } | { ok: false; code: string; msg: string };
export type LivePlatformsAnswer = ({ ok: true } & LiveApiAnswers['getLivePlatforms']) | { ok: false; code: string; msg: string };

export interface CoursewareChannel {
  on: <E extends keyof CoursewareRoomEvents>(event: E, handler: CoursewareRoomEvents[E]) => () => void;
  request: <E extends keyof CoursewareRoomRequests>(
    event: E,
    payload: Parameters<CoursewareRoomRequests[E]>[0],
    options?: { quiet?: boolean },
  ) => Promise<{ code: string; msg: string }>;
}

/** What the hook reads; a new object on every change (useSyncExternalStore compares identity). */
export interface RoomChannelSnapshot {
  status: ChannelStatus;
  state: RoomState | null;
  reconnect: ReconnectState;
}

export interface RoomChannelOptions {
  answer: JoinAnswer;
  roomNumber: string;
  /** Leaves the classroom (replacing the history entry); the hook sets it with setHelpers(). */
  navigate?: (to: string) => void;
  /** The translation of a message key (the toasts); the hook sets it with setHelpers(). */
  t?: RoomText;
  /** For tests: make the socket. */
  socket?: (token: string) => RoomSocket;
  /** For tests: the /api client. */
  api?: typeof realApi;
  /** For tests: no window listeners ('online', 'offline'); the default is to listen when there is a window. */
  listenToWindow?: boolean;
  /** Where a server message that broke its schema is told (default: the client log, ADR 108). */
  log?: (problem: ChannelProblem) => void;
}

/** Chat text as the server will take it: trimmed, 1 to CHAT_MAX_CHARS characters; null if not. */
export function chatText(raw: string): string | null {
  const text = raw.trim();
  const length = [...text].length;
  return length === 0 || length > CHAT_MAX_CHARS ? null : text;
}

function defaultSocket(token: string): RoomSocket {
  return io(ROOM_NAMESPACE, { auth: { token }, transports: ['websocket'], reconnection: false, autoConnect: false });
}

export class RoomChannelClient {
  readonly #answer: JoinAnswer;
  readonly #roomNumber: string;
  readonly #isCreator: boolean;
  readonly #makeSocket: (token: string) => RoomSocket;
  readonly #api: typeof realApi;
  /** A start or stop request is out: a second click does nothing. */
  #recordBusy = false;
  /** A live start or end request is out: a second one does nothing. */
  #liveBusy = false;
  readonly #listenToWindow: boolean;
  #navigate: (to: string) => void;
  #t: RoomText;

  #snapshot: RoomChannelSnapshot = {
    status: 'connecting',
    state: null,
    reconnect: { countdown: RECONNECT_WAIT_S, attempts: 0, reconnecting: false },
  };
  readonly #listeners = new Set<() => void>();
  #socket: RoomSocket | null = null;
  #channel: RoomChannelOf | null = null;
  readonly #log: (problem: ChannelProblem) => void;
  /** Kicked, closed or left: nothing reconnects any more. */
  #ended = false;
  #attempts = 0;
  #countdownTimer: ReturnType<typeof setInterval> | null = null;
  #quickTimer: ReturnType<typeof setTimeout> | null = null;
  /** The quiet attempt after a closed connection is under way (its failure is not counted). */
  #quick = false;
  #pollTimer: ReturnType<typeof setInterval> | null = null;
  #reportedQuality = -1;
  /** When the socket dropped (for the reconnect's log event), or null while connected. */
  #downAt: number | null = null;
  /** The SFU's 1-6 figure for this person (0 unknown): the one source the members list and tiles show. */
  #networkQuality = 0;
  readonly #cwListeners: { [K in keyof CoursewareRoomEvents]: Set<CoursewareRoomEvents[K]> } = {
    documentConvert: new Set(),
    courseware: new Set(),
    videoControl: new Set(),
  };

  /** The requests, bound (a stable object for React props). */
  readonly actions: RoomActions;
  /** The courseware events and requests on this socket (core/contracts/courseware.ts). */
  readonly courseware: CoursewareChannel;

  constructor(options: RoomChannelOptions) {
    this.#answer = options.answer;
    this.#roomNumber = options.roomNumber;
    this.#isCreator = options.answer.role === 'creator';
    this.#makeSocket = options.socket ?? defaultSocket;
    this.#api = options.api ?? realApi;
    this.#listenToWindow = options.listenToWindow ?? typeof window !== 'undefined';
    this.#navigate = options.navigate ?? (() => undefined);
    this.#t = options.t ?? ((key) => key);
    this.#log = options.log ?? channelLog(options.roomNumber);
    this.actions = {
      setView: (showState) => this.#patch({ showState }),
      sendChat: (raw) => this.#sendChat(raw),
      inviteMic: async (userId) => (await this.#request('inviteMic', { userId })).code === '0',
      answerMic: async (agree) => (await this.#request('answerMic', { agree })).code === '0',
      stopMic: async () => (await this.#request('stopMic', {})).code === '0',
      kick: async (userId) => (await this.#request('kickout', { userId })).code === '0',
      endRoom: async () => (await this.#request('endRoom', {})).code === '0',
      startTrial: async () => {
        const ack = await this.#request('startTrial', {});
        return ack.code === '0' && ack.data ? ack.data.trialEndsAt : null;
      },
      setMode: async (mode) => (await this.#request('setMode', { mode })).code === '0',
      leave: () => this.#leave(),
      patch: (patch) => this.#patch(patch),
      reportNetwork: (quality) => this.#reportNetwork(quality),
      reconnectNow: () => this.#reconnectNow(),
      startRecord: () => this.#startRecord(),
      stopRecord: () => this.#stopRecord(),
      startLive: (platform, pushStreamUrl) => this.#startLive(platform, pushStreamUrl),
      endLive: () => this.#endLive(),
      livePlatforms: () => this.#livePlatforms(),
    };
    this.courseware = {
      on: (event, handler) => {
        const set = this.#cwListeners[event];
        set.add(handler);
        return () => void set.delete(handler);
      },
      request: (event, payload, options) => this.#request(event, payload, options),
    };
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  };

  readonly getSnapshot = (): RoomChannelSnapshot => this.#snapshot;

  /** The hook keeps these current (the language and the router can change while the class runs). */
  setHelpers(helpers: { navigate: (to: string) => void; t: RoomText }): void {
    this.#navigate = helpers.navigate;
    this.#t = helpers.t;
  }

  /** Opens the socket and joins. After stop() it may start again with a fresh socket (React's strict mode does). */
  start(): void {
    this.#ended = false;
    this.#attempts = 0;
    const socket = this.#makeSocket(this.#answer.imToken);
    this.#socket = socket;
    this.#channel = openChannel(roomChannel, socket, { log: this.#log, timeoutMs: ACK_TIMEOUT_MS });
    this.#wire(socket, this.#channel);
    if (this.#listenToWindow) {
      window.addEventListener('offline', this.browserOffline);
      window.addEventListener('online', this.browserOnline);
    }
    socket.connect();
  }

  /** Closes the socket and stops every timer; nothing is sent. */
  stop(): void {
    this.#ended = true;
    if (this.#listenToWindow) {
      window.removeEventListener('offline', this.browserOffline);
      window.removeEventListener('online', this.browserOnline);
    }
    this.#stopTimers();
    const socket = this.#socket;
    this.#channel?.close();
    this.#channel = null;
    socket?.removeAllListeners();
    socket?.disconnect();
    this.#socket = null;
  }

  /** The browser knows the network is gone: do not wait for the socket's heartbeat. */
  readonly browserOffline = (): void => {
    if (this.#ended || this.#snapshot.status !== 'live') return;
    this.#set({ status: 'offline' });
    this.#socket?.disconnect();
    this.#wentDown();
  };

  readonly browserOnline = (): void => {
    if (this.#ended) return;
    if (this.#snapshot.status === 'offline') this.#attempt();
    else this.#reportQuality();
  };

  #set(next: Partial<RoomChannelSnapshot>): void {
    this.#snapshot = { ...this.#snapshot, ...next };
    for (const listener of this.#listeners) listener();
  }

  #dispatch(action: RoomAction): void {
    this.#set({ state: roomReducer(this.#snapshot.state, action) });
  }

  #setReconnect(next: Partial<ReconnectState>): void {
    this.#set({ reconnect: { ...this.#snapshot.reconnect, ...next } });
  }

  #stopTimers(): void {
    if (this.#quickTimer) clearTimeout(this.#quickTimer);
    this.#quickTimer = null;
    if (this.#countdownTimer) clearInterval(this.#countdownTimer);
    if (this.#pollTimer) clearInterval(this.#pollTimer);
    this.#countdownTimer = null;
    this.#pollTimer = null;
  }

  #end(next: ChannelStatus): void {
    this.#ended = true;
    this.#stopTimers();
    this.#set({ status: next });
    this.#socket?.disconnect();
  }

  /** `reason`: why the room closed, when the roomClosed event said it ('expired': an audio class's time ran out, ADR 099). */
  #roomGone(reason?: 'ended' | 'expired' | 'idle'): void {
    if (this.#ended) return;
    this.#end('closed');
    // The teacher leaves for the profile with a toast; everyone else gets the refusal page that
    // says the class ended and what to do next (ADR 091), or that its time ran out.
    const timeUp = reason === 'expired';
    if (this.#isCreator) {
      toast.error(this.#t(timeUp ? 'modes.clock.ended' : 'classroom.roomClosed'));
      setTimeout(() => this.#navigate('/profile'), CLOSED_LEAVE_MS);
    } else this.#navigate(timeUp ? refusalPath('time-up', this.#roomNumber) : refusalPath('31009', this.#roomNumber));
  }

  #refused(code: string): void {
    if (this.#ended) return;
    this.#end('gone');
    this.#navigate(refusalPath(code, this.#roomNumber));
  }

  /** A code from the server that means this person cannot be in the room any more. */
  #fatal(code: string): boolean {
    if (code === '31002' || code === '31009') {
      this.#roomGone();
      return true;
    }
    if (code === '31003' || code === '31004') {
      this.#refused(code);
      return true;
    }
    return false;
  }

  #reportQuality(): void {
    const channel = this.#channel;
    if (this.#answer.role === 'observer' || !channel?.connected) return;
    const quality = this.#networkQuality;
    if (quality === this.#reportedQuality) return;
    this.#reportedQuality = quality;
    channel.send('customRoomEvent', { networkQuality: quality });
  }

  async #poll(): Promise<void> {
    const envelope = await this.#api('getRoomInfoByRoomNumber', { roomNumber: this.#roomNumber }, { quietNetworkError: true });
    if (this.#ended || this.#snapshot.status === 'live') return;
    if (envelope.code === '31002' || envelope.code === '31009') this.#roomGone();
    else if (isOk(envelope)) {
      if (envelope.data.roomInfo.state === 'closed') this.#roomGone();
      else this.#dispatch({ type: 'patch', patch: envelope.data.roomInfo });
    }
  }

  #attempt(): void {
    const socket = this.#socket;
    if (this.#ended || !socket || socket.connected) return;
    this.#quick = false;
    if (this.#countdownTimer) clearInterval(this.#countdownTimer);
    this.#countdownTimer = null;
    this.#setReconnect({ countdown: 0, reconnecting: true });
    socket.connect();
  }

  #startCountdown(): void {
    if (this.#countdownTimer) clearInterval(this.#countdownTimer);
    let left = RECONNECT_WAIT_S;
    this.#set({ reconnect: { countdown: left, attempts: this.#attempts, reconnecting: false } });
    this.#countdownTimer = setInterval(() => {
      left -= 1;
      if (left <= 0) this.#attempt();
      else this.#setReconnect({ countdown: left });
    }, 1000);
  }

  #wentDown(): void {
    if (this.#ended) return;
    this.#set({ status: 'offline' });
    this.#reportedQuality = -1;
    this.#startCountdown();
    if (!this.#pollTimer) this.#pollTimer = setInterval(() => void this.#poll(), POLL_MS);
  }

  #failedAttempt(): void {
    if (this.#quick) {
      // The quiet attempt failed: the countdown shown goes on as it was.
      this.#quick = false;
      return;
    }
    this.#attempts += 1;
    if (this.#attempts >= RECONNECT_ATTEMPTS && this.#isCreator) {
      // docs/product/02-live-classroom.md §4: after 3 attempts the teacher is sent to the site root.
      this.#end('gone');
      this.#navigate('/');
      return;
    }
    this.#wentDown();
  }

  #wire(socket: RoomSocket, channel: RoomChannelOf): void {
    socket.on('connect', () => {
      channel.call('joinRoom', { version: ROOM_PROTOCOL_VERSION }, (ack) => {
        if (this.#ended) return;
        if (ack.code === NETWORK_ERROR) {
          socket.disconnect();
          this.#failedAttempt();
          return;
        }
        if (ack.code !== '0' || !ack.data) {
          if (this.#fatal(ack.code)) return;
          toast.error(ack.msg || codeMessage(ack.code, currentLang()) || this.#t('common.refresh'));
          socket.disconnect();
          this.#failedAttempt();
          return;
        }
        this.#stopTimers();
        if (this.#downAt !== null) {
          logClientEvent('socket_reconnect', this.#roomNumber, { offlineMs: Date.now() - this.#downAt, attempts: this.#attempts });
          this.#downAt = null;
        }
        this.#attempts = 0;
        this.#quick = false;
        this.#set({
          reconnect: { countdown: RECONNECT_WAIT_S, attempts: 0, reconnecting: false },
          state: roomReducer(this.#snapshot.state, { type: 'snapshot', snapshot: ack.data, receivedAt: Date.now() }),
          status: 'live',
        });
        this.#reportQuality();
        void this.#learnRecording();
        void this.#learnLive();
      });
    });
    socket.on('connect_error', (error: Error) => {
      if (this.#ended) return;
      if (this.#fatal(error.message)) return;
      if (error.message === '21001' && this.#answer.role !== 'observer') {
        // The room token outlived its lifetime (a very long class): join again for a fresh one;
        // the next attempt uses it. The join itself applies every rule again.
        // Quiet: the reconnect overlay is what the person sees while it runs (ADR 102).
        void this.#api('userJoinAgoraRoom', { roomNumber: this.#answer.roomInfo.roomNumber }, { quietNetworkError: true }).then((r) => {
          if (isOk(r) && r.data) socket.auth = { token: r.data.imToken };
          else if (r.code !== NETWORK_ERROR) this.#fatal(r.code);
        });
      }
      this.#failedAttempt();
    });
    socket.on('disconnect', (reason) => {
      if (this.#ended) return;
      // A disconnect we asked for (leaving) is not a network problem; going offline is.
      if (reason === 'io client disconnect' && this.#snapshot.status !== 'live') return;
      logClientEvent('socket_disconnect', this.#roomNumber, { reason }); // ADR 102
      this.#downAt ??= Date.now();
      this.#wentDown();
      const online = typeof navigator === 'undefined' || navigator.onLine !== false;
      if ((reason === 'transport close' || reason === 'transport error') && online) {
        if (this.#quickTimer) clearTimeout(this.#quickTimer);
        this.#quickTimer = setTimeout(
          () => {
            this.#quickTimer = null;
            if (this.#ended || socket.connected || this.#snapshot.reconnect.reconnecting) return;
            this.#quick = true;
            socket.connect();
          },
          QUICK_RETRY_MS + Math.floor(Math.random() * QUICK_RETRY_MS),
        );
      }
    });

    // The room's events, each parsed by its schema first (one that breaks it is logged and dropped).
    channel.on('customRoomEvent', (patch) => this.#dispatch({ type: 'patch', patch, at: Date.now() }));
    channel.on('members', (payload) => this.#dispatch({ type: 'members', ...payload }));
    channel.on('messageevent', (message) => this.#dispatch({ type: 'message', message }));
    channel.on('mic', (mic) => {
      this.#dispatch({ type: 'mic', mic });
      if (this.#isCreator && mic.outcome === 'failed') toast.error(this.#t('classroom.mic.failed'));
      if (this.#isCreator && mic.outcome === 'rejected') toast.info(this.#t('classroom.mic.rejected'));
    });
    channel.on('kickout', ({ userId }) => {
      if (userId !== this.#answer.userIdForNumber || this.#ended) return;
      this.#end('gone');
      // The removal page says it at once, and the server says it again on every reopen (ADR 091).
      this.#navigate(refusalPath('kickout', this.#roomNumber));
    });
    channel.on('roomClosed', (closed) => this.#roomGone(closed.reason));
    // Cloud recording (issue 13): the recorder started, or nobody took the task / it failed.
    channel.on('roomRecord', (p) => {
      this.#dispatch({ type: 'record', recordState: '1', taskId: p.taskId, at: Date.now(), ...this.#localStart(p.startedAt) });
    });
    channel.on('roomRecordFailed', (p) => {
      const known = this.#snapshot.state?.record.taskId ?? '';
      // A late failure of an older task must not stop the one running now.
      if (known && p.taskId !== known) return;
      this.#dispatch({ type: 'record', recordState: '0', at: Date.now() });
      if (this.#isCreator) toast.error(this.#t('record.button.failed'));
    });
    // Live streaming (issue 14): started, live, bitrate, reconnecting, ended or failed.
    channel.on('roomLive', (status) => this.#dispatch({ type: 'live', status, at: Date.now() }));
    channel.on('documentConvert', (p) => this.#cwListeners.documentConvert.forEach((handler) => handler(p)));
    channel.on('courseware', (p) => this.#cwListeners.courseware.forEach((handler) => handler(p)));
    channel.on('videoControl', (p) => this.#cwListeners.videoControl.forEach((handler) => handler(p)));
  }

  async #request<E extends keyof ClientToServer>(event: E, payload: Payload<E>, options: { quiet?: boolean } = {}): Promise<Answer<E>> {
    const channel = this.#channel;
    const answer: Answer<E> = channel ? await channel.request(event, payload) : { code: NETWORK_ERROR, msg: '' };
    const result = answer.code === NETWORK_ERROR && !answer.msg ? { ...answer, msg: networkMessage(currentLang()) } : answer;
    if (result.code !== '0' && !options.quiet) {
      toast.error(result.msg || codeMessage(result.code, currentLang()) || this.#t('common.refresh'));
    }
    return result;
  }

  async #patch(patch: RoomPatch): Promise<boolean> {
    const ack = await this.#request('customRoomEvent', patch);
    if (ack.code === '0') this.#dispatch({ type: 'patch', patch });
    return ack.code === '0';
  }

  async #sendChat(raw: string): Promise<boolean> {
    const text = chatText(raw);
    if (text === null) return false;
    const ack = await this.#request('chat', { text });
    if (ack.code === '0' && ack.data) this.#dispatch({ type: 'message', message: ack.data });
    return ack.code === '0';
  }

  async #leave(): Promise<void> {
    const socket = this.#socket;
    this.#ended = true;
    if (socket?.connected) {
      await Promise.race([this.#request('leaveRoom', {}, { quiet: true }), new Promise((r) => setTimeout(r, LEAVE_WAIT_MS))]);
    }
    socket?.disconnect();
  }

  #reportNetwork(quality: number): void {
    this.#networkQuality = quality;
    const channel = this.#channel;
    if (this.#answer.role === 'observer' || !channel?.connected || this.#snapshot.status !== 'live' || quality === this.#reportedQuality)
      return;
    this.#reportedQuality = quality;
    channel.send('customRoomEvent', { networkQuality: quality });
  }

  /** A start time in server time (roomRecord, getRoomMemberRecordState) as the action's local `startedAt`; nothing when absent. */
  #localStart(startedAt: number | undefined): { startedAt?: number } {
    if (typeof startedAt !== 'number' || !(startedAt > 0)) return {};
    return { startedAt: startedAt - (this.#snapshot.state?.clockSkew ?? 0) };
  }

  /**
   * After a (re)join as the creator while a recording runs: its task id (from the join answer at
   * once, so stop works), and, while it records, when it began (the state call): a reloaded page's
   * elapsed time counts from the real start, not from the reload.
   */
  async #learnRecording(): Promise<void> {
    const state = this.#snapshot.state;
    const running = state?.roomInfo.recordState === '1' || state?.roomInfo.recordState === '2';
    if (!this.#isCreator || !state || !running || state.record.taskId) return;
    const joined = this.#answer.userRecordInfo?.taskId;
    if (joined && this.#answer.userRecordInfo.recordState === state.roomInfo.recordState) {
      this.#dispatch({ type: 'record', recordState: state.roomInfo.recordState, taskId: joined, at: Date.now() });
      // Starting: roomRecord will carry the start time.
      if (state.roomInfo.recordState === '2') return;
    }
    const answer = await this.#api('getRoomMemberRecordState', { roomNumber: this.#roomNumber }, { quietNetworkError: true });
    if (!isOk(answer) || this.#ended) return;
    const { recordState, taskId, startedAt } = answer.data;
    // A stop or another task came over the socket meanwhile: it wins over this older read.
    const now = this.#snapshot.state;
    if (!now || now.roomInfo.recordState === '0' || (now.record.taskId && now.record.taskId !== taskId)) return;
    this.#dispatch({ type: 'record', recordState, taskId, at: Date.now(), ...this.#localStart(startedAt) });
  }

  #refusal(answer: { code: string; msg: string }): void {
    if (answer.code === NETWORK_ERROR) toast.error(answer.msg || networkMessage(currentLang()));
    else toast.error(answer.msg || codeMessage(answer.code, currentLang()) || this.#t('common.refresh'));
  }

  async #startRecord(): Promise<boolean> {
    const state = this.#snapshot.state;
    if (!this.#isCreator || this.#recordBusy || !state || state.roomInfo.recordState !== '0') return false;
    this.#recordBusy = true;
    const answer = await this.#api('startTask', { roomNumber: this.#roomNumber }, { quietNetworkError: true });
    this.#recordBusy = false;
    if (!isOk(answer)) {
      this.#refusal(answer);
      return false;
    }
    // The server's own patch ('2') or even roomRecord ('1') may have come first: never step back.
    if (this.#snapshot.state?.roomInfo.recordState === '1') return true;
    this.#dispatch({ type: 'record', recordState: '2', taskId: answer.data.taskId, at: Date.now() });
    return true;
  }

  async #stopRecord(): Promise<boolean> {
    const state = this.#snapshot.state;
    if (!this.#isCreator || this.#recordBusy || !state || state.roomInfo.recordState === '0') return false;
    this.#recordBusy = true;
    try {
      let taskId = state.record.taskId;
      if (!taskId) {
        const known = await this.#api('getRoomMemberRecordState', { roomNumber: this.#roomNumber }, { quietNetworkError: true });
        if (!isOk(known)) {
          this.#refusal(known);
          return false;
        }
        taskId = known.data.taskId;
      }
      const answer = await this.#api('stopTask', { roomNumber: this.#roomNumber, taskId }, { quietNetworkError: true });
      if (answer.code !== '0') {
        this.#refusal(answer);
        return false;
      }
      this.#dispatch({ type: 'record', recordState: '0', at: Date.now() });
      toast.success(this.#t('record.button.stopped'));
      return true;
    } finally {
      this.#recordBusy = false;
    }
  }

  /** The message of a refused /api answer, in the page's language. */
  #answerMessage(answer: { code: string; msg: string }): string {
    if (answer.code === NETWORK_ERROR) return answer.msg || networkMessage(currentLang());
    return answer.msg || codeMessage(answer.code, currentLang()) || this.#t('common.refresh');
  }

  /**
   * After a (re)join as the creator while a push is starting or live: its platform, start time
   * and bitrate (the state call), so a reloaded page's progress dialog and elapsed time are right.
   */
  async #learnLive(): Promise<void> {
    const state = this.#snapshot.state;
    if (!this.#isCreator || !state || (state.roomInfo.liveState ?? '0') === '0') return;
    const answer = await this.#api('getLiveState', { roomNumber: this.#roomNumber }, { quietNetworkError: true });
    if (!isOk(answer) || this.#ended) return;
    // An end that came over the socket meanwhile wins over this older read.
    if ((this.#snapshot.state?.roomInfo.liveState ?? '0') === '0') return;
    this.#dispatch({ type: 'live', status: answer.data, at: Date.now() });
  }

  async #livePlatforms(): Promise<LivePlatformsAnswer> {
    const answer = await this.#api('getLivePlatforms', { roomNumber: this.#roomNumber }, { quietNetworkError: true });
    if (isOk(answer)) return { ok: true, platforms: answer.data.platforms, custom: answer.data.custom };
    return { ok: false, code: answer.code, msg: this.#answerMessage(answer) };
  }

  async #startLive(platform: string, pushStreamUrl: string): Promise<LiveCallAnswer> {
    const state = this.#snapshot.state;
    if (!this.#isCreator || this.#liveBusy || !state) return { ok: false, code: 'busy', msg: '' };
    this.#liveBusy = true;
    try {
      const answer = await this.#api(
        'startLive',
        { roomNumber: this.#roomNumber, pushPlatform: platform, pushStreamUrl },
        { quietNetworkError: true },
      );
      if (!isOk(answer)) {
        // Already live (another tab): learn that push so the button shows it.
        if (answer.code === '38003') void this.#learnLive();
        return { ok: false, code: answer.code, msg: this.#answerMessage(answer) };
      }
      const status = { taskId: answer.data.taskId, liveState: '2' as const, platform, startedAt: null, kbps: 0, reconnecting: false };
      this.#dispatch({ type: 'live', status, at: Date.now() });
      return { ok: true };
    } finally {
      this.#liveBusy = false;
    }
  }

  async #endLive(): Promise<boolean> {
    const state = this.#snapshot.state;
    if (!this.#isCreator || this.#liveBusy || !state) return false;
    this.#liveBusy = true;
    try {
      const answer = await this.#api('endLive', { roomNumber: this.#roomNumber }, { quietNetworkError: true });
      // 38004: nothing is live any more (it ended meanwhile): the button says so too.
      if (answer.code !== '0' && answer.code !== '38004') {
        this.#refusal(answer);
        return false;
      }
      const live = this.#snapshot.state?.live;
      const status = {
        taskId: live?.taskId ?? '',
        liveState: '0' as const,
        platform: live?.platform ?? '',
        startedAt: null,
        kbps: 0,
        reconnecting: false,
      };
      this.#dispatch({ type: 'live', status, at: Date.now() });
      return true;
    } finally {
      this.#liveBusy = false;
    }
  }

  #reconnectNow(): void {
    const socket = this.#socket;
    if (!socket || socket.connected || this.#ended) return;
    if (this.#countdownTimer) clearInterval(this.#countdownTimer);
    this.#countdownTimer = null;
    this.#setReconnect({ countdown: 0, reconnecting: true });
    socket.connect();
  }
}
