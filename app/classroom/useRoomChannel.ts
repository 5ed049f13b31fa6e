/**
 * The room channel (core/contracts/room-events.ts) as one React hook: one socket.io connection to
 * the `/room` namespace, the room state kept from its events, and the requests as actions that
 * resolve with the server's ack (a refusal is shown as a toast with the server's message).
 *
 * Reconnect (spec §4): the socket's own reconnection is off; this hook runs the spec's: a 10 s
 * countdown, then an attempt; 'try now' and the browser coming back online attempt at once; after
 * 3 failed attempts the teacher goes to the site root. While the socket is down the room info is
 * fetched every 10 s; a room that is gone closes the class. A successful reconnect joins again
 * and replaces the whole state with the new snapshot.
 */
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { io, type Socket } from 'socket.io-client';
import type { JoinAnswer } from '#core/contracts/api.ts';
import {
  CHAT_MAX_CHARS,
  ROOM_NAMESPACE,
  ROOM_PROTOCOL_VERSION,
  type Ack,
  type ClientToServer,
  type RoomPatch,
  type RoomSnapshot,
  type ServerToClient,
} from '#core/contracts/room-events.ts';
import type { CoursewareRoomEvents, CoursewareRoomRequests } from '#core/contracts/courseware.ts';
import { api, isOk, NETWORK_ERROR } from '#app/lib/api.ts';
import { currentLang } from '#app/lib/lang.ts';
import { codeMessage, networkMessage } from '#app/lib/messages.ts';
import { toast } from '#app/lib/toast.ts';
import { roomReducer, type RoomState } from './roomState.ts';

export const RECONNECT_WAIT_S = 10;
export const RECONNECT_ATTEMPTS = 3;
export const POLL_MS = 10_000;
const ACK_TIMEOUT_MS = 10_000;
const CLOSED_LEAVE_MS = 1000;

export type ChannelStatus = 'connecting' | 'live' | 'offline' | 'closed' | 'gone';

export interface ReconnectState {
  /** Seconds until the next attempt. */
  countdown: number;
  /** Failed attempts since the connection dropped. */
  attempts: number;
  /** An attempt is running. */
  reconnecting: boolean;
}

type RoomSocket = Socket<ServerToClient, ClientToServer>;
type Payload<E extends keyof ClientToServer> = Parameters<ClientToServer[E]>[0];
type Answer<E extends keyof ClientToServer> = Parameters<Parameters<ClientToServer[E]>[1]>[0];

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
  /** Tells the server we leave (the teacher's leaving resets the view), then closes the socket. */
  leave: () => Promise<void>;
  /** 'try now' on the reconnect overlay. */
  /** This person's network as the SFU grades it (1-6, 0 unknown); reported to the room for everyone's members list. */
  reportNetwork: (quality: number) => void;
  reconnectNow: () => void;
  /** A room patch (the board's wbPower and roomExtend), applied here once the server took it. */
  patch: (patch: RoomPatch) => Promise<boolean>;
}

export interface RoomChannel {
  status: ChannelStatus;
  state: RoomState | null;
  reconnect: ReconnectState;
  actions: RoomActions;
  /** The courseware events and requests on this socket (core/contracts/courseware.ts). */
  courseware: CoursewareChannel;
}

export interface CoursewareChannel {
  on: <E extends keyof CoursewareRoomEvents>(event: E, handler: CoursewareRoomEvents[E]) => () => void;
  request: <E extends keyof CoursewareRoomRequests>(
    event: E,
    payload: Parameters<CoursewareRoomRequests[E]>[0],
    options?: { quiet?: boolean },
  ) => Promise<{ code: string; msg: string }>;
}

const COURSEWARE_EVENTS: ReadonlyArray<keyof CoursewareRoomEvents> = ['documentConvert', 'courseware', 'videoControl'];

export interface RoomChannelOptions {
  answer: JoinAnswer;
  roomNumber: string;
}

/** Chat text as the server will take it: trimmed, 1 to CHAT_MAX_CHARS characters; null if not. */
export function chatText(raw: string): string | null {
  const text = raw.trim();
  const length = [...text].length;
  return length === 0 || length > CHAT_MAX_CHARS ? null : text;
}

export function useRoomChannel({ answer, roomNumber }: RoomChannelOptions): RoomChannel {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [state, dispatch] = useReducer(roomReducer, null);
  const [status, setStatus] = useState<ChannelStatus>('connecting');
  const [reconnect, setReconnect] = useState<ReconnectState>({ countdown: RECONNECT_WAIT_S, attempts: 0, reconnecting: false });

  const socketRef = useRef<RoomSocket | null>(null);
  /** Kicked, closed or left: nothing reconnects any more. */
  const endedRef = useRef(false);
  const statusRef = useRef<ChannelStatus>('connecting');
  const attemptsRef = useRef(0);
  const countdownTimer = useRef<ReturnType<typeof setInterval> | null>(null);
  const pollTimer = useRef<ReturnType<typeof setInterval> | null>(null);
  const reportedQuality = useRef(-1);
  /** The SFU's 1-6 figure for this person (0 unknown): the one source the members list and tiles show. */
  const networkQuality = useRef(0);
  const isCreator = answer.role === 'creator';
  const cwListeners = useRef(new Map<string, Set<(payload: never) => void>>());
  const tRef = useRef(t);
  tRef.current = t;

  const setStatusBoth = useCallback((next: ChannelStatus) => {
    statusRef.current = next;
    setStatus(next);
  }, []);

  useEffect(() => {
    endedRef.current = false;
    attemptsRef.current = 0;
    const socket: RoomSocket = io(ROOM_NAMESPACE, {
      auth: { token: answer.imToken },
      transports: ['websocket'],
      reconnection: false,
      autoConnect: false,
    });
    socketRef.current = socket;

    const stopTimers = () => {
      if (countdownTimer.current) clearInterval(countdownTimer.current);
      if (pollTimer.current) clearInterval(pollTimer.current);
      countdownTimer.current = null;
      pollTimer.current = null;
    };

    const end = (next: ChannelStatus) => {
      endedRef.current = true;
      stopTimers();
      setStatusBoth(next);
      socket.disconnect();
    };

    const roomGone = () => {
      if (endedRef.current) return;
      end('closed');
      toast.error(tRef.current('classroom.roomClosed'));
      // The teacher leaves for the profile; everyone else stays on the 'room closed' screen.
      if (isCreator) setTimeout(() => void navigate('/profile', { replace: true }), CLOSED_LEAVE_MS);
    };

    const refused = (code: string) => {
      if (endedRef.current) return;
      end('gone');
      void navigate(`/profile?joinRoomError=${encodeURIComponent(code)}`, { replace: true });
    };

    /** A code from the server that means this person cannot be in the room any more. */
    const fatal = (code: string): boolean => {
      if (code === '31002' || code === '31009') {
        roomGone();
        return true;
      }
      if (code === '31003' || code === '31004') {
        refused(code);
        return true;
      }
      return false;
    };

    const reportQuality = () => {
      if (answer.role === 'observer' || !socket.connected) return;
      const quality = networkQuality.current;
      if (quality === reportedQuality.current) return;
      reportedQuality.current = quality;
      socket.timeout(ACK_TIMEOUT_MS).emit('customRoomEvent', { networkQuality: quality }, () => undefined);
    };

    const poll = async () => {
      const envelope = await api('getRoomInfoByRoomNumber', { roomNumber }, { quietNetworkError: true });
      if (endedRef.current || statusRef.current === 'live') return;
      if (envelope.code === '31002' || envelope.code === '31009') roomGone();
      else if (isOk(envelope)) {
        if (envelope.data.roomInfo.state === 'closed') roomGone();
        else dispatch({ type: 'patch', patch: envelope.data.roomInfo });
      }
    };

    const attempt = () => {
      if (endedRef.current || socket.connected) return;
      if (countdownTimer.current) clearInterval(countdownTimer.current);
      countdownTimer.current = null;
      setReconnect((r) => ({ ...r, countdown: 0, reconnecting: true }));
      socket.connect();
    };

    const startCountdown = () => {
      if (countdownTimer.current) clearInterval(countdownTimer.current);
      let left = RECONNECT_WAIT_S;
      setReconnect({ countdown: left, attempts: attemptsRef.current, reconnecting: false });
      countdownTimer.current = setInterval(() => {
        left -= 1;
        if (left <= 0) attempt();
        else setReconnect((r) => ({ ...r, countdown: left }));
      }, 1000);
    };

    const wentDown = () => {
      if (endedRef.current) return;
      setStatusBoth('offline');
      reportedQuality.current = -1;
      startCountdown();
      if (!pollTimer.current) pollTimer.current = setInterval(() => void poll(), POLL_MS);
    };

    const failedAttempt = () => {
      attemptsRef.current += 1;
      if (attemptsRef.current >= RECONNECT_ATTEMPTS && isCreator) {
        // Spec §4: after 3 attempts the teacher is sent to the site root.
        end('gone');
        void navigate('/', { replace: true });
        return;
      }
      wentDown();
    };

    socket.on('connect', () => {
      socket.timeout(ACK_TIMEOUT_MS).emit('joinRoom', { version: ROOM_PROTOCOL_VERSION }, (err: Error | null, ack: Ack<RoomSnapshot>) => {
        if (endedRef.current) return;
        if (err) {
          socket.disconnect();
          failedAttempt();
          return;
        }
        if (ack.code !== '0' || !ack.data) {
          if (fatal(ack.code)) return;
          toast.error(ack.msg || codeMessage(ack.code, currentLang()) || tRef.current('common.refresh'));
          socket.disconnect();
          failedAttempt();
          return;
        }
        stopTimers();
        attemptsRef.current = 0;
        setReconnect({ countdown: RECONNECT_WAIT_S, attempts: 0, reconnecting: false });
        dispatch({ type: 'snapshot', snapshot: ack.data, receivedAt: Date.now() });
        setStatusBoth('live');
        reportQuality();
      });
    });
    socket.on('connect_error', (error: Error) => {
      if (endedRef.current) return;
      if (fatal(error.message)) return;
      if (error.message === '21001' && answer.role !== 'observer') {
        // The room token outlived its lifetime (a very long class): join again for a fresh one;
        // the next attempt uses it. The join itself applies every rule again.
        void api('userJoinAgoraRoom', { roomNumber: answer.roomInfo.roomNumber }).then((r) => {
          if (isOk(r) && r.data) socket.auth = { token: r.data.imToken };
          else if (r.code !== NETWORK_ERROR) fatal(r.code);
        });
      }
      failedAttempt();
    });
    socket.on('disconnect', (reason) => {
      if (endedRef.current) return;
      // A disconnect we asked for (leaving) is not a network problem; going offline is.
      if (reason === 'io client disconnect' && statusRef.current !== 'live') return;
      wentDown();
    });

    socket.on('customRoomEvent', (patch) => dispatch({ type: 'patch', patch }));
    socket.on('members', (payload) => dispatch({ type: 'members', ...payload }));
    socket.on('messageevent', (message) => dispatch({ type: 'message', message }));
    socket.on('mic', (mic) => {
      dispatch({ type: 'mic', mic });
      if (isCreator && mic.outcome === 'failed') toast.error(tRef.current('classroom.mic.failed'));
      if (isCreator && mic.outcome === 'rejected') toast.info(tRef.current('classroom.mic.rejected'));
    });
    socket.on('kickout', ({ userId }) => {
      if (userId !== answer.userIdForNumber || endedRef.current) return;
      end('gone');
      toast.error(tRef.current('classroom.kicked'));
      void navigate('/profile?joinRoomError=kickout', { replace: true });
    });
    socket.on('roomClosed', () => roomGone());
    const loose = socket as unknown as { on(event: string, handler: (payload: never) => void): void };
    for (const name of COURSEWARE_EVENTS) {
      loose.on(name, (payload) => {
        for (const handler of cwListeners.current.get(name) ?? []) handler(payload);
      });
    }

    const onOffline = () => {
      // The browser knows the network is gone: do not wait for the socket's heartbeat.
      if (endedRef.current || statusRef.current !== 'live') return;
      setStatusBoth('offline');
      socket.disconnect();
      wentDown();
    };
    const onOnline = () => {
      if (endedRef.current) return;
      if (statusRef.current === 'offline') attempt();
      else reportQuality();
    };
    window.addEventListener('offline', onOffline);
    window.addEventListener('online', onOnline);
    socket.connect();

    return () => {
      endedRef.current = true;
      window.removeEventListener('offline', onOffline);
      window.removeEventListener('online', onOnline);
      stopTimers();
      socket.removeAllListeners();
      socket.disconnect();
      socketRef.current = null;
    };
  }, [answer, roomNumber, isCreator, navigate, setStatusBoth]);

  const request = useCallback(
    <E extends keyof ClientToServer>(event: E, payload: Payload<E>, options: { quiet?: boolean } = {}): Promise<Answer<E>> => {
      const socket = socketRef.current;
      if (!socket?.connected) {
        const msg = networkMessage(currentLang());
        if (!options.quiet) toast.error(msg);
        return Promise.resolve({ code: NETWORK_ERROR, msg } as Answer<E>);
      }
      return new Promise((resolve) => {
        const loose = socket.timeout(ACK_TIMEOUT_MS) as unknown as {
          emit(event: string, payload: unknown, ack: (err: Error | null, answer: Ack<unknown>) => void): void;
        };
        loose.emit(event, payload, (err, ack) => {
          const result: Ack<unknown> = err || !ack ? { code: NETWORK_ERROR, msg: networkMessage(currentLang()) } : ack;
          if (result.code !== '0' && !options.quiet) {
            toast.error(result.msg || codeMessage(result.code, currentLang()) || tRef.current('common.refresh'));
          }
          resolve(result as Answer<E>);
        });
      });
    },
    [],
  );

  const actions = useMemo<RoomActions>(
    () => ({
      async setView(showState) {
        const ack = await request('customRoomEvent', { showState });
        if (ack.code === '0') dispatch({ type: 'patch', patch: { showState } });
        return ack.code === '0';
      },
      async sendChat(raw) {
        const text = chatText(raw);
        if (text === null) return false;
        const ack = await request('chat', { text });
        if (ack.code === '0' && ack.data) dispatch({ type: 'message', message: ack.data });
        return ack.code === '0';
      },
      async inviteMic(userId) {
        return (await request('inviteMic', { userId })).code === '0';
      },
      async answerMic(agree) {
        return (await request('answerMic', { agree })).code === '0';
      },
      async stopMic() {
        return (await request('stopMic', {})).code === '0';
      },
      async kick(userId) {
        return (await request('kickout', { userId })).code === '0';
      },
      async endRoom() {
        return (await request('endRoom', {})).code === '0';
      },
      async startTrial() {
        const ack = await request('startTrial', {});
        return ack.code === '0' && ack.data ? ack.data.trialEndsAt : null;
      },
      async leave() {
        const socket = socketRef.current;
        endedRef.current = true;
        if (socket?.connected) await Promise.race([request('leaveRoom', {}, { quiet: true }), new Promise((r) => setTimeout(r, 1000))]);
        socket?.disconnect();
      },
      async patch(patch) {
        const ack = await request('customRoomEvent', patch);
        if (ack.code === '0') dispatch({ type: 'patch', patch });
        return ack.code === '0';
      },
      reportNetwork(quality) {
        networkQuality.current = quality;
        const socket = socketRef.current;
        if (answer.role === 'observer' || !socket?.connected || statusRef.current !== 'live' || quality === reportedQuality.current) return;
        reportedQuality.current = quality;
        socket.timeout(ACK_TIMEOUT_MS).emit('customRoomEvent', { networkQuality: quality }, () => undefined);
      },
      reconnectNow() {
        const socket = socketRef.current;
        if (!socket || socket.connected || endedRef.current) return;
        if (countdownTimer.current) clearInterval(countdownTimer.current);
        countdownTimer.current = null;
        setReconnect((r) => ({ ...r, countdown: 0, reconnecting: true }));
        socket.connect();
      },
    }),
    [request, answer.role],
  );

  const courseware = useMemo<CoursewareChannel>(
    () => ({
      on(event, handler) {
        const set = cwListeners.current.get(event) ?? new Set();
        cwListeners.current.set(event, set);
        const h = handler as unknown as (payload: never) => void;
        set.add(h);
        return () => void set.delete(h);
      },
      request(event, payload, options) {
        const loose = request as unknown as (
          event: string,
          payload: unknown,
          options?: { quiet?: boolean },
        ) => Promise<{ code: string; msg: string }>;
        return loose(event, payload, options);
      },
    }),
    [request],
  );

  return { status, state, reconnect, actions, courseware };
}
