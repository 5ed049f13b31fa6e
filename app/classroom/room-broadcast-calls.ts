/**
 * The room's cloud recording (issue 13) and live push (issue 14) as the creator's page drives them:
 * the /api calls that start and stop them, what a (re)joined page learns of one already running,
 * and the record and live state they put into the room state. A refusal is toasted (recording) or
 * answered (the live dialogs). Part of the room channel's client (room-channel-client.ts), which
 * hands it the state and its dispatch.
 */
import type { JoinAnswer } from '#core/contracts/api.ts';
import { isOk, NETWORK_ERROR, type api as realApi } from '#app/lib/api.ts';
import { currentLang } from '#app/lib/lang.ts';
import { codeMessage, networkMessage } from '#app/lib/messages.ts';
import { toast } from '#app/lib/toast.ts';
import type { RoomAction, RoomState } from './roomState.ts';
import type { LiveCallAnswer, LivePlatformsAnswer, RoomText } from './room-channel-types.ts';

/** What the calls read and change of the room channel's client. */
export interface BroadcastHost {
  readonly answer: JoinAnswer;
  readonly roomNumber: string;
  readonly isCreator: boolean;
  readonly api: typeof realApi;
  state: () => RoomState | null;
  dispatch: (action: RoomAction) => void;
  /** Kicked, closed or left: late answers change nothing. */
  ended: () => boolean;
  t: RoomText;
}

export class RoomBroadcastCalls {
  readonly #host: BroadcastHost;
  /** A start or stop request is out: a second click does nothing. */
  #recordBusy = false;
  /** A live start or end request is out: a second one does nothing. */
  #liveBusy = false;

  constructor(host: BroadcastHost) {
    this.#host = host;
  }

  /** A start time in server time (roomRecord, getRoomMemberRecordState) as the action's local `startedAt`; nothing when absent. */
  localStart(startedAt: number | undefined): { startedAt?: number } {
    if (typeof startedAt !== 'number' || !(startedAt > 0)) return {};
    return { startedAt: startedAt - (this.#host.state()?.clockSkew ?? 0) };
  }

  /**
   * After a (re)join as the creator while a recording runs: its task id (from the join answer at
   * once, so stop works), and, while it records, when it began (the state call): a reloaded page's
   * elapsed time counts from the real start, not from the reload.
   */
  async learnRecording(): Promise<void> {
    const state = this.#host.state();
    const running = state?.roomInfo.recordState === '1' || state?.roomInfo.recordState === '2';
    if (!this.#host.isCreator || !state || !running || state.record.taskId) return;
    const joined = this.#host.answer.userRecordInfo?.taskId;
    if (joined && this.#host.answer.userRecordInfo.recordState === state.roomInfo.recordState) {
      this.#host.dispatch({ type: 'record', recordState: state.roomInfo.recordState, taskId: joined, at: Date.now() });
      // Starting: roomRecord will carry the start time.
      if (state.roomInfo.recordState === '2') return;
    }
    const answer = await this.#host.api('getRoomMemberRecordState', { roomNumber: this.#host.roomNumber }, { quietNetworkError: true });
    if (!isOk(answer) || this.#host.ended()) return;
    const { recordState, taskId, startedAt } = answer.data;
    // A stop or another task came over the socket meanwhile: it wins over this older read.
    const now = this.#host.state();
    if (!now || now.roomInfo.recordState === '0' || (now.record.taskId && now.record.taskId !== taskId)) return;
    this.#host.dispatch({ type: 'record', recordState, taskId, at: Date.now(), ...this.localStart(startedAt) });
  }

  #refusal(answer: { code: string; msg: string }): void {
    if (answer.code === NETWORK_ERROR) toast.error(answer.msg || networkMessage(currentLang()));
    else toast.error(answer.msg || codeMessage(answer.code, currentLang()) || this.#host.t('common.refresh'));
  }

  async startRecord(): Promise<boolean> {
    const state = this.#host.state();
    if (!this.#host.isCreator || this.#recordBusy || !state || state.roomInfo.recordState !== '0') return false;
    this.#recordBusy = true;
    const answer = await this.#host.api('startTask', { roomNumber: this.#host.roomNumber }, { quietNetworkError: true });
    this.#recordBusy = false;
    if (!isOk(answer)) {
      this.#refusal(answer);
      return false;
    }
    // The server's own patch ('2') or even roomRecord ('1') may have come first: never step back.
    if (this.#host.state()?.roomInfo.recordState === '1') return true;
    this.#host.dispatch({ type: 'record', recordState: '2', taskId: answer.data.taskId, at: Date.now() });
    return true;
  }

  async stopRecord(): Promise<boolean> {
    const state = this.#host.state();
    if (!this.#host.isCreator || this.#recordBusy || !state || state.roomInfo.recordState === '0') return false;
    this.#recordBusy = true;
    try {
      let taskId = state.record.taskId;
      if (!taskId) {
        const known = await this.#host.api('getRoomMemberRecordState', { roomNumber: this.#host.roomNumber }, { quietNetworkError: true });
        if (!isOk(known)) {
          this.#refusal(known);
          return false;
        }
        taskId = known.data.taskId;
      }
      const answer = await this.#host.api('stopTask', { roomNumber: this.#host.roomNumber, taskId }, { quietNetworkError: true });
      if (answer.code !== '0') {
        this.#refusal(answer);
        return false;
      }
      this.#host.dispatch({ type: 'record', recordState: '0', at: Date.now() });
      toast.success(this.#host.t('record.button.stopped'));
      return true;
    } finally {
      this.#recordBusy = false;
    }
  }

  /** The message of a refused /api answer, in the page's language. */
  #answerMessage(answer: { code: string; msg: string }): string {
    if (answer.code === NETWORK_ERROR) return answer.msg || networkMessage(currentLang());
    return answer.msg || codeMessage(answer.code, currentLang()) || this.#host.t('common.refresh');
  }

  /**
   * After a (re)join as the creator while a push is starting or live: its platform, start time
   * and bitrate (the state call), so a reloaded page's progress dialog and elapsed time are right.
   */
  async learnLive(): Promise<void> {
    const state = this.#host.state();
    if (!this.#host.isCreator || !state || (state.roomInfo.liveState ?? '0') === '0') return;
    const answer = await this.#host.api('getLiveState', { roomNumber: this.#host.roomNumber }, { quietNetworkError: true });
    if (!isOk(answer) || this.#host.ended()) return;
    // An end that came over the socket meanwhile wins over this older read.
    if ((this.#host.state()?.roomInfo.liveState ?? '0') === '0') return;
    this.#host.dispatch({ type: 'live', status: answer.data, at: Date.now() });
  }

  async livePlatforms(): Promise<LivePlatformsAnswer> {
    const answer = await this.#host.api('getLivePlatforms', { roomNumber: this.#host.roomNumber }, { quietNetworkError: true });
    if (isOk(answer)) return { ok: true, platforms: answer.data.platforms, custom: answer.data.custom };
    return { ok: false, code: answer.code, msg: this.#answerMessage(answer) };
  }

  async startLive(platform: string, pushStreamUrl: string): Promise<LiveCallAnswer> {
    const state = this.#host.state();
    if (!this.#host.isCreator || this.#liveBusy || !state) return { ok: false, code: 'busy', msg: '' };
    this.#liveBusy = true;
    try {
      const answer = await this.#host.api(
        'startLive',
        { roomNumber: this.#host.roomNumber, pushPlatform: platform, pushStreamUrl },
        { quietNetworkError: true },
      );
      if (!isOk(answer)) {
        // Already live (another tab): learn that push so the button shows it.
        if (answer.code === '38003') void this.learnLive();
        return { ok: false, code: answer.code, msg: this.#answerMessage(answer) };
      }
      const status = { taskId: answer.data.taskId, liveState: '2' as const, platform, startedAt: null, kbps: 0, reconnecting: false };
      this.#host.dispatch({ type: 'live', status, at: Date.now() });
      return { ok: true };
    } finally {
      this.#liveBusy = false;
    }
  }

  async endLive(): Promise<boolean> {
    const state = this.#host.state();
    if (!this.#host.isCreator || this.#liveBusy || !state) return false;
    this.#liveBusy = true;
    try {
      const answer = await this.#host.api('endLive', { roomNumber: this.#host.roomNumber }, { quietNetworkError: true });
      // 38004: nothing is live any more (it ended meanwhile): the button says so too.
      if (answer.code !== '0' && answer.code !== '38004') {
        this.#refusal(answer);
        return false;
      }
      const live = this.#host.state()?.live;
      const status = {
        taskId: live?.taskId ?? '',
        liveState: '0' as const,
        platform: live?.platform ?? '',
        startedAt: null,
        kbps: 0,
        reconnecting: false,
      };
      this.#host.dispatch({ type: 'live', status, at: Date.now() });
      return true;
    } finally {
      this.#liveBusy = false;
    }
  }
}
