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
import { io } from 'socket.io-client';
import { openChannel, type AnswerOf, type Channel, type ChannelProblem } from '#core/channel/open.ts';
import type { JoinAnswer } from '#core/contracts/api.ts';
import {
  CHAT_MAX_CHARS,
  ROOM_NAMESPACE,
  ROOM_PROTOCOL_VERSION,
  roomChannel,
  type ClientToServer,
  type RoomPatch,
  type roomEvents,
  type roomRequests,
} from '#core/contracts/room-events.ts';
import { api as realApi, isOk, NETWORK_ERROR } from '#app/lib/api.ts';
import { channelLog, logClientEvent } from '#app/lib/client-log.ts';
import { currentLang } from '#app/lib/lang.ts';
import { codeMessage, networkMessage } from '#app/lib/messages.ts';
import { refusalPath } from '#app/lib/refusal.ts';
import { toast } from '#app/lib/toast.ts';
import { roomReducer, type RoomAction } from './roomState.ts';
import { RoomBroadcastCalls } from './room-broadcast-calls.ts';
import { CoursewareRelay } from './room-channel-courseware.ts';
import { ToolsStore } from './tools/tools-store.ts';
import { GroupsStore } from './groups/groups-store.ts';
import type {
  ChannelStatus,
  CoursewareChannel,
  ReconnectState,
  RoomActions,
  RoomChannelOptions,
  RoomChannelSnapshot,
  RoomSocket,
  RoomText,
} from './room-channel-types.ts';

/** For the pages and tests that import them from here. */
export type { LiveCallAnswer, LivePlatformsAnswer, RoomSocket } from './room-channel-types.ts';

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

type RoomChannelOf = Channel<typeof roomRequests, typeof roomEvents>;
type Payload<E extends keyof ClientToServer> = Parameters<ClientToServer[E]>[0];
type Answer<E extends keyof ClientToServer> = AnswerOf<typeof roomRequests, E>;

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
  readonly #courseware = new CoursewareRelay();

  /** Recording and live push (room-broadcast-calls.ts). */
  readonly #broadcast: RoomBroadcastCalls;

  /** The requests, bound (a stable object for React props). */
  readonly actions: RoomActions;
  /** The courseware events and requests on this socket (core/contracts/courseware.ts). */
  readonly courseware: CoursewareChannel;
  /** The class tools' state, heard on this socket, and their requests (ADR 114). */
  readonly tools: ToolsStore;
  /** The breakout groups' state, heard on this socket, and their requests (ADR 118). */
  readonly groups: GroupsStore;

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
    this.#broadcast = new RoomBroadcastCalls({
      answer: this.#answer,
      roomNumber: this.#roomNumber,
      isCreator: this.#isCreator,
      api: this.#api,
      state: () => this.#snapshot.state,
      dispatch: (action) => this.#dispatch(action),
      ended: () => this.#ended,
      t: (key) => this.#t(key),
    });
    this.actions = {
      setView: (showState) => this.#patch({ showState }),
      sendChat: (raw) => this.#sendChat(raw),
      raiseHand: () => this.#stage('raiseHand', {}),
      lowerHand: (userId) => this.#stage('lowerHand', userId ? { userId } : {}),
      inviteStage: (userId) => this.#stage('inviteStage', { userId }),
      answerStage: (agree) => this.#stage('answerStage', { agree }),
      stageDown: (userId) => this.#stage('stageDown', { userId }),
      stageAllDown: () => this.#stage('stageAllDown', {}),
      setCarousel: (seconds) => this.#stage('setCarousel', { seconds }),
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
      startRecord: () => this.#broadcast.startRecord(),
      stopRecord: () => this.#broadcast.stopRecord(),
      startLive: (platform, pushStreamUrl) => this.#broadcast.startLive(platform, pushStreamUrl),
      endLive: () => this.#broadcast.endLive(),
      livePlatforms: () => this.#broadcast.livePlatforms(),
    };
    this.courseware = this.#courseware.channel((event, payload, options) => this.#request(event, payload, options));
    this.tools = new ToolsStore((event, payload) => this.#request(event as keyof ClientToServer, payload));
    this.groups = new GroupsStore((event, payload) => this.#request(event as keyof ClientToServer, payload));
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
        this.tools.snapshot(ack.data);
        this.groups.snapshot(ack.data);
        this.#reportQuality();
        void this.#broadcast.learnRecording();
        void this.#broadcast.learnLive();
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
    channel.on('stage', (event) => {
      const { outcome, userIds, off: _off, ...stage } = event;
      this.#dispatch({ type: 'stage', stage });
      if (this.#isCreator && outcome === 'failed') toast.error(this.#t('hands.failed'));
      if (this.#isCreator && outcome === 'rejected') toast.info(this.#t('hands.rejected'));
      // The carousel brings students up without asking: they are told.
      if (outcome === 'carousel' && userIds.includes(this.#answer.userIdForNumber)) toast.info(this.#t('hands.broughtUp'));
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
      this.#dispatch({ type: 'record', recordState: '1', taskId: p.taskId, at: Date.now(), ...this.#broadcast.localStart(p.startedAt) });
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
    channel.on('documentConvert', (p) => this.#courseware.emit('documentConvert', p));
    channel.on('courseware', (p) => this.#courseware.emit('courseware', p));
    channel.on('videoControl', (p) => this.#courseware.emit('videoControl', p));
    // The class tools (ADR 114): the whole state with the server's time, the teacher's tally, a reward's animation.
    channel.on('tools', (p) => this.tools.tools(p));
    channel.on('quizTally', (p) => this.tools.tally(p));
    channel.on('pollTally', (p) => this.tools.pollTally(p));
    channel.on('rewarded', (p) => this.tools.rewarded(p));
    // Breakout groups (ADR 118): the whole state with what happened, and the teacher's messages to all groups.
    channel.on('groups', (p) => this.groups.event(p));
    channel.on('groupsBroadcast', (p) => this.groups.broadcast(p));
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

  /**
   * A stage request. Its answer carries the stage too, but the room's `stage` events are what the
   * page keeps: an answer could arrive after the event of a later change and undo it.
   */
  async #stage<E extends 'raiseHand' | 'lowerHand' | 'inviteStage' | 'answerStage' | 'stageDown' | 'stageAllDown' | 'setCarousel'>(
    event: E,
    payload: Payload<E>,
  ): Promise<boolean> {
    return (await this.#request(event, payload)).code === '0';
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

  #reconnectNow(): void {
    const socket = this.#socket;
    if (!socket || socket.connected || this.#ended) return;
    if (this.#countdownTimer) clearInterval(this.#countdownTimer);
    this.#countdownTimer = null;
    this.#setReconnect({ countdown: 0, reconnecting: true });
    socket.connect();
  }
}
