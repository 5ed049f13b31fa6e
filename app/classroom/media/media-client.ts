/**
 * The classroom's audio and video as a plain class over a MediaSession: publish what the token
 * allows (camera 640x360 at 15 fps, microphone), subscribe to everything the others publish, mute
 * and unmute, share the screen (creator), and come back after the media signaling drops: a fresh
 * token from `/api/createAgoraToken` naming the node it lost (the web role places the room again
 * when that node is dead, ADR 097), on the node the answer names, then publish and subscribe again. No React here: `useMedia()`
 * feeds it the room's inputs and reads its snapshot with useSyncExternalStore; the tests drive it
 * with a fake session.
 */
import type { Layer, MediaNote, MediaSource } from '#core/contracts/media-signaling.ts';
import { api as realApi, isOk } from '#app/lib/api.ts';
import { currentLang } from '#app/lib/lang.ts';
import { codeMessage } from '#app/lib/messages.ts';
import { toast } from '#app/lib/toast.ts';
import { mergeIssue, retrySources, sourceOfKind } from './device-issue.ts';
import { captureScreen, captureTrack, problemOf, readDeviceConfig, saveDeviceConfig, type DeviceProblem } from './devices.ts';
import { MediaSession, type MediaSessionEvents } from './media-session.ts';
import { keepConnected, type MediaConnection } from './media-connection.ts';
import { watchDevices } from './media-device-watch.ts';
import {
  noteChange,
  peopleFrom,
  type MediaActions,
  type MediaClientOptions,
  type MediaSessionLike,
  type MediaSnapshot,
  type MediaStatus,
  type MediaText,
} from './media-model.ts';

declare global {
  interface Window {
    /** Receive statistics of the classroom's media (diagnostics; read by the end-to-end tests). */
    banshuMedia?: {
      stats: MediaSession['stats'];
      layers: MediaSession['layers'];
      /** The local camera and microphone tracks (a test ends one to stand for an unplugged device). */
      local?: () => Partial<Record<MediaSource, MediaStreamTrack>>;
    };
  }
}

export const SCREEN_BUTTON_BLOCK_MS = 3000;
export { RECONNECT_EVERY_MS, RECONNECT_FIRST_MS, RECONNECT_RETRY_MS } from './media-connection.ts';
export { canShareScreen } from './media-model.ts';
export type { MediaActions, MediaPerson, MediaSnapshot, MediaStatus } from './media-model.ts';
export { SCREEN_FPS } from './devices.ts';

export class MediaClient {
  readonly #roomNumber: string;
  readonly #makeSession: (url: string, events: MediaSessionEvents) => MediaSessionLike;
  readonly #api: typeof realApi;
  readonly #capture: typeof captureTrack;
  readonly #stream: (track: MediaStreamTrack) => MediaStream;
  #t: MediaText = (key) => key;
  #onView: (showState: string) => void = () => undefined;

  #snapshot: MediaSnapshot = {
    status: 'off',
    rights: [],
    local: { video: null, camOn: true, micOn: true, sharing: false, screen: null, micLabel: '' },
    people: {},
    levels: {},
    quality: {},
    issue: null,
    silent: {},
    screenBlocked: false,
    speakerId: '',
  };
  readonly #listeners = new Set<() => void>();

  #session: MediaSessionLike | null = null;
  readonly #tracks: Partial<Record<MediaSource, MediaStreamTrack>> = {};
  readonly #want: { cam: boolean; mic: boolean };
  /** A muted microphone is opened and sent paused (the others see it muted), unless it failed on the pre-join. */
  #openMutedMic: boolean;
  #publishing: Promise<void> | null = null;
  #publishAgain = false;
  /** Sources muted because their device went away: a retry that opens them again unmutes them. */
  readonly #mutedByLoss = new Set<'mic' | 'camera'>();
  /** Ends the running connection (its reconnect timer and listeners); null when stopped. */
  #stopConnection: (() => void) | null = null;
  #onMic = false;
  /** Cancels the running microphone refresh. */
  #micRun: { cancelled: boolean } | null = null;
  #showState = '';

  readonly actions: MediaActions;

  constructor(options: MediaClientOptions) {
    this.#roomNumber = options.roomNumber;
    this.#makeSession = options.session ?? ((url, events) => new MediaSession(url, events));
    this.#api = options.api ?? realApi;
    this.#capture = options.capture ?? captureTrack;
    this.#stream = options.stream ?? ((track) => new MediaStream([track]));
    this.#want = { cam: options.initial?.cam ?? true, mic: options.initial?.mic ?? true };
    this.#openMutedMic = !options.initial?.micFailed;
    this.#snapshot = { ...this.#snapshot, local: { ...this.#snapshot.local, camOn: this.#want.cam, micOn: this.#want.mic } };
    this.actions = {
      toggleCam: () => this.#toggle('camera'),
      toggleMic: () => this.#toggle('mic'),
      startScreen: () => this.#startScreen(),
      stopScreen: () => this.#stopScreen(),
      setLayer: (userId, layer) => this.#setLayer(userId, layer),
      switchDevice: (kind, deviceId) => this.#switchDevice(kind, deviceId),
      retryDevices: (source) => void this.#retry(source),
      dismissIssue: () => this.#set({ issue: null }),
    };
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  };

  readonly getSnapshot = (): MediaSnapshot => this.#snapshot;

  /** The hook keeps these current. */
  setHelpers(helpers: { t: MediaText; onView: (showState: string) => void }): void {
    this.#t = helpers.t;
    this.#onView = helpers.onView;
  }

  /**
   * Reads the stored speaker and watches the devices (docs/product/02-live-classroom.md §4): a
   * device that went away mutes its source; a device that arrives while none was found, or a
   * permission granted, opens them again without leaving the class; a permission taken back mutes.
   * Returns the undo.
   */
  attach(): () => void {
    this.#set({ speakerId: readDeviceConfig().speakerId ?? '' });
    return watchDevices({
      devices: (list) => this.#devicesChanged(list),
      permission: (source, state) => this.#permissionChanged(source, state),
    });
  }

  /** The device list changed: a live track whose device left is gone; a missing device that came is opened. */
  #devicesChanged(list: Array<Pick<MediaDeviceInfo, 'deviceId' | 'kind'>>): void {
    for (const source of ['mic', 'camera'] as const) {
      const track = this.#tracks[source];
      const id = track?.getSettings?.().deviceId;
      const kind = source === 'mic' ? 'audioinput' : 'videoinput';
      if (track && id && !list.some((d) => d.kind === kind && d.deviceId === id)) this.#deviceLost(source, 'deviceUpdate');
    }
    const missing = this.#snapshot.issue?.problem;
    if (missing === 'noDevices' || missing === 'noWebcam' || missing === 'noMicrophone') {
      const arrived = list.some((d) => d.deviceId && (d.kind === 'audioinput' || d.kind === 'videoinput'));
      if (arrived) void this.#retry();
    }
  }

  /**
   * A permission changed while in class. The old client reloaded the page; here a grant opens the
   * devices again (the seat, the board and the chat stay), and a refusal mutes what it sent.
   */
  #permissionChanged(source: 'mic' | 'camera', state: PermissionState): void {
    if (state === 'granted') {
      const issue = this.#snapshot.issue;
      if (issue?.problem === 'denied' || this.#mutedByLoss.has(source) || !this.#tracks[source]) void this.#retry(source);
    } else if (state === 'denied') {
      if (this.#tracks[source]) this.#deviceLost(source, 'denied');
      else this.#showProblem('denied', source);
    }
  }

  /** Connects once seated and comes back after drops, until stop(). The first token is the join answer's. */
  start(url: string, token: string): void {
    this.stop();
    let connection: MediaConnection | null = null;
    const session = this.#makeSession(url, {
      onRemote: (remote) => this.#set({ people: peopleFrom(remote, this.#stream) }),
      onNote: (n) => this.#note(n),
      onDisconnect: () => connection?.disconnected(),
    });
    this.#session = session;
    if (typeof window !== 'undefined')
      window.banshuMedia = { stats: () => session.stats(), layers: () => session.layers(), local: () => ({ ...this.#tracks }) };
    connection = keepConnected(session, token, {
      roomNumber: this.#roomNumber,
      api: this.#api,
      status: () => this.#snapshot.status,
      setStatus: (status) => this.#setStatus(status),
      joined: async (existing) => {
        this.#set({ rights: session.rights });
        this.#setStatus('live');
        await Promise.all(existing.map((tr) => session.subscribe(tr).catch(() => undefined)));
        await this.#publishAllowed();
        await this.#shareAgain(session);
      },
      dropped: () => this.#set({ silent: {} }),
    });
    this.#stopConnection = () => connection?.stop();
  }

  /** Closes the session and stops the local devices. */
  stop(): void {
    const stopConnection = this.#stopConnection;
    if (!stopConnection) return;
    this.#stopConnection = null;
    stopConnection();
    this.#session?.close();
    this.#session = null;
    for (const s of Object.keys(this.#tracks) as MediaSource[]) this.#stopLocal(s);
    this.#setStatus('off');
  }

  /** This person holds the microphone of a large class now: a fresh token carries the right. */
  setOnMic(onMic: boolean): void {
    if (onMic === this.#onMic) return;
    this.#onMic = onMic;
    // Agreeing to the teacher's invitation is agreeing to be heard (docs/product/02-live-classroom.md §4
    // 'agree publishes audio'), also after lecture mode brought the microphone back muted (ADR 099).
    if (onMic && !this.#want.mic) this.#toggle('mic');
    this.#checkMic();
  }

  /** The room's view; another view than the screen ends a share (docs/product/02-live-classroom.md §4). */
  setShowState(showState: string): void {
    if (showState === this.#showState) return;
    this.#showState = showState;
    this.#checkShare();
  }

  #set(next: Partial<MediaSnapshot>): void {
    this.#snapshot = { ...this.#snapshot, ...next };
    for (const listener of this.#listeners) listener();
  }

  #setLocal(next: Partial<MediaSnapshot['local']>): void {
    const local = { ...this.#snapshot.local, ...next };
    this.#set({ local: { ...local, sharing: !!local.screen } });
  }

  #setStatus(status: MediaStatus): void {
    if (status === this.#snapshot.status) return;
    this.#set({ status });
    this.#checkMic();
  }

  #checkMic(): void {
    if (this.#micRun) this.#micRun.cancelled = true;
    this.#micRun = null;
    const session = this.#session;
    if (!this.#onMic || !session || this.#snapshot.status !== 'live') return;
    const run = { cancelled: false };
    this.#micRun = run;
    void (async () => {
      // The invitation's own banner says when the microphone does not come: no 'network exception' RETRY here (ADR 102).
      const env = await this.#api('createAgoraToken', { roomNumber: this.#roomNumber }, { quietNetworkError: true });
      if (run.cancelled || !isOk(env)) return;
      this.#set({ rights: await session.refresh(env.data.mediaToken) });
      await this.#publishAllowed();
    })().catch(() => toast.error(this.#t('media.failed')));
  }

  #checkShare(): void {
    if (this.#snapshot.local.screen && this.#showState !== 'screen') this.#stopScreen();
  }

  /** The device-exception view shows the problem (it stays until a retry works or the person closes it). */
  #showProblem(p: DeviceProblem, source: 'mic' | 'camera' | 'both'): void {
    this.#set({ issue: mergeIssue(this.#snapshot.issue, { problem: p, source }) });
  }

  /**
   * The device of a source went away (unplugged, permission taken back): its source is muted, so
   * the others see it muted on the node (not a frozen picture or silence), and the view says so.
   */
  #deviceLost(source: 'mic' | 'camera', problem: DeviceProblem): void {
    const key = source === 'mic' ? 'mic' : 'cam';
    if (this.#want[key]) {
      this.#want[key] = false;
      this.#mutedByLoss.add(source);
      this.#setLocal(source === 'mic' ? { micOn: false } : { camOn: false });
    }
    const session = this.#session;
    if (session?.published(source)) void session.setPaused(source, true).catch(() => undefined);
    this.#stopLocal(source);
    this.#showProblem(problem, source);
  }

  /** Opens the camera or microphone; a failure shows the device-exception view and answers null. */
  async #open(source: 'mic' | 'camera'): Promise<MediaStreamTrack | null> {
    const kind = source === 'mic' ? 'audio' : 'video';
    let track: MediaStreamTrack;
    try {
      track = await this.#capture(kind);
    } catch (err) {
      this.#showProblem(problemOf(err, kind), sourceOfKind(kind));
      return null;
    }
    this.#tracks[source] = track;
    track.addEventListener('ended', () => {
      // Unplugged (docs/product/02-live-classroom.md §4): muted for everyone and said.
      if (this.#tracks[source] === track) this.#deviceLost(source, 'unplugged');
    });
    if (source === 'camera') this.#setLocal({ video: this.#stream(track) });
    else this.#setLocal({ micLabel: track.label ?? '' });
    return track;
  }

  /** The view's retry: open the devices again, unmute what a lost device muted, send them. */
  async #retry(only?: 'mic' | 'camera'): Promise<void> {
    const sources = only ? [only] : retrySources(this.#snapshot.issue);
    this.#set({ issue: null });
    this.#openMutedMic = true;
    const session = this.#session;
    for (const source of sources) {
      const key = source === 'mic' ? 'mic' : 'cam';
      if (!this.#want[key] && !this.#mutedByLoss.has(source)) continue;
      // Only what this person may send, once in the class (an audience opens nothing before the invitation).
      if (!session?.rights.includes(source)) continue;
      const old = this.#tracks[source];
      const track = await this.#open(source);
      if (!track) continue;
      if (old && old !== track) old.stop();
      if (this.#mutedByLoss.delete(source)) {
        this.#want[key] = true;
        this.#setLocal(source === 'mic' ? { micOn: true } : { camOn: true });
      }
      track.enabled = this.#want[key];
      if (session?.published(source)) {
        await session.replaceTrack(source, track).catch(() => undefined);
        await session.setPaused(source, !this.#want[key]).catch(() => undefined);
      }
    }
    await this.#publishAllowed();
  }

  /** Publishes the microphone and camera the rights allow and the person wants on; one run at a time. */
  #publishAllowed(): Promise<void> {
    if (this.#publishing) {
      this.#publishAgain = true;
      return this.#publishing;
    }
    const run = (async () => {
      do {
        this.#publishAgain = false;
        await this.#publishOnce();
      } while (this.#publishAgain);
    })().finally(() => {
      this.#publishing = null;
    });
    this.#publishing = run;
    return run;
  }

  async #publishOnce(): Promise<void> {
    const session = this.#session;
    if (!session) return;
    for (const source of ['mic', 'camera'] as const) {
      if (!session.rights.includes(source) || session.published(source)) continue;
      // A camera switched off is not opened at all (nothing is published for video until it is
      // switched on); a muted microphone goes out paused, so the others see it muted (ADR 089).
      if (source === 'camera' && !this.#want.cam) continue;
      if (source === 'mic' && !this.#want.mic && !this.#openMutedMic) continue;
      let track = this.#tracks[source];
      if (!track || track.readyState === 'ended') {
        const opened = await this.#open(source);
        if (!opened) continue;
        track = opened;
      }
      const on = source === 'mic' ? this.#want.mic : this.#want.cam;
      track.enabled = on;
      try {
        await session.publish(source, track, source === 'camera', !on);
      } catch (err) {
        const code = (err as { code?: string }).code ?? '9';
        toast.error(codeMessage(code, currentLang()) ?? this.#t('media.failed'));
      }
    }
  }

  #stopLocal(source: MediaSource): void {
    const track = this.#tracks[source];
    track?.stop();
    delete this.#tracks[source];
    if (source === 'camera') this.#setLocal({ video: null });
    if (source === 'screen') this.#setLocal({ screen: null });
  }

  #note(note: MediaNote): void {
    const session = this.#session;
    switch (note.type) {
      case 'trackAdded':
        if (session) void session.subscribe(note.track).catch(() => undefined);
        break;
      case 'audioLevels':
      case 'quality':
      case 'trackSilent':
      case 'trackRemoved': {
        const change = noteChange(this.#snapshot, note);
        if (change) this.#set(change);
        break;
      }
      case 'rightsChanged':
        // The microphone taken (lecture mode, ADR 099; a large class's microphone stopped): it comes
        // back muted, so a student is never live again without pressing unmute.
        if (!note.rights.includes('mic') && this.#want.mic && this.#snapshot.rights.includes('mic')) {
          this.#want.mic = false;
          this.#setLocal({ micOn: false });
        }
        this.#set({ rights: note.rights });
        for (const s of ['mic', 'camera', 'screen'] as const) if (!note.rights.includes(s) && this.#tracks[s]) this.#stopLocal(s);
        void this.#publishAllowed();
        break;
      case 'closed':
        this.#setStatus('off');
        break;
      case 'trackPaused':
      case 'layerChanged':
        break;
    }
  }

  #toggle(source: 'mic' | 'camera'): void {
    const session = this.#session;
    const key = source === 'mic' ? 'mic' : 'cam';
    const next = !this.#want[key];
    this.#want[key] = next;
    this.#setLocal(source === 'mic' ? { micOn: next } : { camOn: next });
    const track = this.#tracks[source];
    if (track) track.enabled = next;
    // A switch by hand: the device's loss is no longer what keeps it off or on.
    this.#mutedByLoss.delete(source);
    if (!session) return;
    if (session.published(source)) void session.setPaused(source, !next).catch(() => undefined);
    else if (next) void this.#publishAllowed();
  }

  /** A screen still shared when the session came back (a reconnect, a moved room) goes out again. */
  async #shareAgain(session: MediaSessionLike): Promise<void> {
    const track = this.#tracks.screen;
    if (!track || track.readyState === 'ended' || session.published('screen')) return;
    if (!session.rights.includes('screen')) return this.#stopLocal('screen');
    await session.publish('screen', track).catch(() => this.#stopScreen());
  }

  #stopScreen(): void {
    const session = this.#session;
    this.#stopLocal('screen');
    if (session) void session.unpublish('screen');
  }

  #startScreen(): void {
    const session = this.#session;
    if (!session || this.#snapshot.screenBlocked) return;
    this.#set({ screenBlocked: true });
    setTimeout(() => this.#set({ screenBlocked: false }), SCREEN_BUTTON_BLOCK_MS);
    void (async () => {
      try {
        const track = await captureScreen();
        this.#tracks.screen = track;
        track.addEventListener('ended', () => {
          if (this.#tracks.screen === track) this.#stopScreen();
        });
        await session.publish('screen', track);
        this.#setLocal({ screen: this.#stream(track) });
        this.#onView('screen');
        this.#checkShare();
      } catch {
        this.#stopLocal('screen');
        toast.error(this.#t('media.screenFailed'));
      }
    })();
  }

  #setLayer(userId: string, layer: Layer): void {
    const session = this.#session;
    const r = session?.remoteTracks().find((x) => x.info.userId === userId && x.info.source === 'camera');
    if (session && r) void session.setLayer(r.info.trackId, layer).catch(() => undefined);
  }

  #switchDevice(kind: 'videoDeviceId' | 'audioDeviceId' | 'speakerId', deviceId: string): void {
    saveDeviceConfig({ [kind]: deviceId });
    if (kind === 'speakerId') return this.#set({ speakerId: deviceId });
    const source = kind === 'videoDeviceId' ? 'camera' : 'mic';
    const old = this.#tracks[source];
    void (async () => {
      const track = await this.#open(source);
      if (!track) return;
      // Another device chosen for one that went away: it is back on, as before the loss.
      const key = source === 'mic' ? 'mic' : 'cam';
      if (this.#mutedByLoss.delete(source)) {
        this.#want[key] = true;
        this.#setLocal(source === 'mic' ? { micOn: true } : { camOn: true });
      }
      track.enabled = this.#want[key];
      try {
        const session = this.#session;
        if (session?.published(source)) {
          await session.replaceTrack(source, track);
          await session.setPaused(source, !this.#want[key]);
        } else await this.#publishAllowed();
      } finally {
        if (old && old !== track) old.stop();
      }
    })().catch(() => toast.error(this.#t('media.failed')));
  }
}
