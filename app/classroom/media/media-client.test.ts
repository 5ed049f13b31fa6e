import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MediaSource, PublishedTrack } from '#core/contracts/media-signaling.ts';
import { MediaClient, RECONNECT_EVERY_MS, RECONNECT_FIRST_MS, RECONNECT_RETRY_MS } from './media-client.ts';
import type { MediaSessionEvents } from './media-session.ts';

/** A camera or microphone track as far as the class looks at it. */
class FakeTrack {
  enabled = true;
  readyState: 'live' | 'ended' = 'live';
  readonly #ended: (() => void)[] = [];
  readonly kind: 'audio' | 'video';
  constructor(kind: 'audio' | 'video') {
    this.kind = kind;
  }
  stop() {
    this.readyState = 'ended';
  }
  addEventListener(_type: 'ended', handler: () => void) {
    this.#ended.push(handler);
  }
  unplug() {
    this.readyState = 'ended';
    for (const h of this.#ended) h();
  }
}

/** The media session, with the SFU's answers in the test's hands. */
class FakeSession {
  rights: MediaSource[] = [];
  connected = false;
  closed = false;
  tokens: string[] = [];
  joinResult: () => Promise<PublishedTrack[]> = () => Promise.resolve([]);
  readonly publishedSources = new Map<MediaSource, FakeTrack>();
  readonly paused: [MediaSource, boolean][] = [];
  readonly subscribed: string[] = [];
  drops = 0;
  url: string;
  readonly joinedAt: string[] = [];
  readonly events: MediaSessionEvents;
  constructor(url: string, events: MediaSessionEvents) {
    this.url = url;
    this.events = events;
  }
  moveTo(url: string) {
    this.url = url;
  }
  async join(token: string) {
    this.tokens.push(token);
    this.joinedAt.push(this.url);
    const tracks = await this.joinResult();
    this.connected = true;
    this.rights = ['mic', 'camera'];
    return tracks;
  }
  async refresh(token: string) {
    this.tokens.push(token);
    this.rights = ['mic', 'camera'];
    return this.rights;
  }
  readonly publishedPaused = new Map<MediaSource, boolean>();
  async publish(source: MediaSource, track: MediaStreamTrack, _simulcast = false, paused = false) {
    this.publishedSources.set(source, track as unknown as FakeTrack);
    this.publishedPaused.set(source, paused);
    return `t-${source}`;
  }
  async unpublish(source: MediaSource) {
    this.publishedSources.delete(source);
  }
  async setPaused(source: MediaSource, paused: boolean) {
    this.paused.push([source, paused]);
  }
  async replaceTrack() {}
  published(source: MediaSource) {
    return this.publishedSources.has(source);
  }
  async subscribe(info: PublishedTrack) {
    this.subscribed.push(info.trackId);
  }
  async setLayer() {}
  layers() {
    return {};
  }
  async stats() {
    return [];
  }
  remoteTracks() {
    return [];
  }
  dropAll() {
    this.drops += 1;
    this.connected = false;
    this.publishedSources.clear();
  }
  close() {
    this.closed = true;
  }
}

const published = (trackId: string, userId: string): PublishedTrack => ({
  trackId,
  userId,
  source: 'camera',
  kind: 'video',
  paused: false,
  layers: [],
});

function setup(
  capture?: (kind: 'audio' | 'video') => Promise<MediaStreamTrack>,
  initial?: { cam: boolean; mic: boolean; micFailed?: boolean },
) {
  const sessions: FakeSession[] = [];
  const captured: FakeTrack[] = [];
  const api = vi.fn().mockResolvedValue({ code: '0', msg: '', data: { mediaToken: 'fresh' } });
  const client = new MediaClient({
    roomNumber: '123456',
    session: (url, events) => {
      const s = new FakeSession(url, events);
      sessions.push(s);
      return s;
    },
    api: api as never,
    capture:
      capture ??
      (async (kind) => {
        const track = new FakeTrack(kind);
        captured.push(track);
        return track as unknown as MediaStreamTrack;
      }),
    stream: (track) => ({ track }) as unknown as MediaStream,
    ...(initial ? { initial } : {}),
  });
  const session = () => sessions.at(-1)!;
  return { client, sessions, session, captured, api };
}

/** Lets the awaited promises of a connection settle (fake timers do not run microtasks by themselves). */
const settle = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('MediaClient', () => {
  it('joins with the first token, subscribes to what is there and publishes microphone and camera', async () => {
    const { client, session, captured } = setup();
    expect(client.getSnapshot().status).toBe('off');
    client.start('http://sfu', 'first');
    expect(client.getSnapshot().status).toBe('connecting');
    session().joinResult = () => Promise.resolve([published('x', '7')]);
    await settle();
    const snap = client.getSnapshot();
    expect(snap.status).toBe('live');
    expect(snap.rights).toEqual(['mic', 'camera']);
    expect(session().tokens).toEqual(['first']);
    expect(session().subscribed).toEqual(['x']);
    expect([...session().publishedSources.keys()].sort()).toEqual(['camera', 'mic']);
    expect(captured.map((t) => t.kind).sort()).toEqual(['audio', 'video']);
    expect(snap.local.video).not.toBeNull();
  });

  it('joins as the pre-join chose: camera off opens and publishes no camera, a muted microphone goes out paused (ADR 089)', async () => {
    const { client, session, captured } = setup(undefined, { cam: false, mic: false });
    expect(client.getSnapshot().local).toMatchObject({ camOn: false, micOn: false });
    client.start('http://sfu', 'first');
    await settle();
    expect([...session().publishedSources.keys()]).toEqual(['mic']);
    expect(session().publishedPaused.get('mic')).toBe(true);
    expect(captured.map((t) => t.kind)).toEqual(['audio']);
    expect(captured[0]!.enabled).toBe(false);
    expect(client.getSnapshot().local.video).toBeNull();
    // Switched on in the room: the camera opens and goes out then.
    client.actions.toggleCam();
    await settle();
    expect([...session().publishedSources.keys()].sort()).toEqual(['camera', 'mic']);
    expect(client.getSnapshot().local.camOn).toBe(true);
  });

  it('does not try a microphone that failed on the pre-join until it is unmuted', async () => {
    const { client, session, captured } = setup(undefined, { cam: false, mic: false, micFailed: true });
    client.start('http://sfu', 'first');
    await settle();
    expect(captured).toEqual([]);
    expect(session().publishedSources.size).toBe(0);
    client.actions.toggleMic();
    await settle();
    expect([...session().publishedSources.keys()]).toEqual(['mic']);
    expect(session().publishedPaused.get('mic')).toBe(false);
  });

  it('mutes by pausing the published track and keeps the track disabled', async () => {
    const { client, session, captured } = setup();
    client.start('http://sfu', 'first');
    await settle();
    client.actions.toggleMic();
    expect(client.getSnapshot().local.micOn).toBe(false);
    expect(session().paused).toEqual([['mic', true]]);
    expect(captured.find((t) => t.kind === 'audio')!.enabled).toBe(false);
    client.actions.toggleMic();
    expect(client.getSnapshot().local.micOn).toBe(true);
    expect(session().paused).toEqual([
      ['mic', true],
      ['mic', false],
    ]);
  });

  it('keeps levels and the worse direction of each quality report', async () => {
    const { client, session } = setup();
    client.start('http://sfu', 'first');
    await settle();
    session().events.onNote({ type: 'audioLevels', levels: { '7': 40 } });
    session().events.onNote({ type: 'quality', reports: [{ userId: '7', up: 2, down: 5 }] });
    session().events.onNote({ type: 'quality', reports: [{ userId: '8', up: 1, down: 1 }] });
    expect(client.getSnapshot().levels).toEqual({ '7': 40 });
    expect(client.getSnapshot().quality).toEqual({ '7': 5, '8': 1 });
  });

  it('stops the camera when the right to it is taken away', async () => {
    const { client, session, captured } = setup();
    client.start('http://sfu', 'first');
    await settle();
    session().events.onNote({ type: 'rightsChanged', rights: ['mic'] });
    expect(client.getSnapshot().rights).toEqual(['mic']);
    expect(client.getSnapshot().local.video).toBeNull();
    expect(captured.find((t) => t.kind === 'video')!.readyState).toBe('ended');
  });

  it('a microphone the node takes (lecture mode, ADR 099) comes back muted when the right returns', async () => {
    const { client, session } = setup();
    client.start('http://sfu', 'first');
    await settle();
    expect(client.getSnapshot().local.micOn).toBe(true);
    // The node closed the publication with the right (as the real session forgets it).
    session().rights = ['camera'];
    session().publishedSources.delete('mic');
    session().events.onNote({ type: 'rightsChanged', rights: ['camera'] });
    expect(client.getSnapshot().local.micOn).toBe(false);
    session().rights = ['mic', 'camera'];
    session().events.onNote({ type: 'rightsChanged', rights: ['mic', 'camera'] });
    await settle();
    expect(session().publishedSources.has('mic')).toBe(true);
    expect(session().publishedPaused.get('mic')).toBe(true);
    expect(client.getSnapshot().local.micOn).toBe(false);
    // Agreeing to the teacher's invitation unmutes it: agreeing is agreeing to be heard.
    client.setOnMic(true);
    await settle();
    expect(client.getSnapshot().local.micOn).toBe(true);
    expect(session().paused.at(-1)).toEqual(['mic', false]);
  });

  it('comes back after a drop with a fresh token from /api/createAgoraToken', async () => {
    const { client, session, api } = setup();
    client.start('http://sfu', 'first');
    await settle();
    session().events.onDisconnect();
    expect(client.getSnapshot().status).toBe('offline');
    expect(session().drops).toBe(1);
    await vi.advanceTimersByTimeAsync(RECONNECT_FIRST_MS);
    expect(api).toHaveBeenCalledWith(
      'createAgoraToken',
      { roomNumber: '123456', failedMediaUrl: 'http://sfu' },
      { quietNetworkError: true },
    );
    expect(session().tokens).toEqual(['first', 'fresh']);
    expect(client.getSnapshot().status).toBe('live');
  });

  it('follows the room to the node the fresh grant names, publishing again as it was (ADR 097)', async () => {
    const { client, sessions, session, api } = setup(undefined, { cam: true, mic: false });
    client.start('http://media-1', 'first');
    await settle();
    expect([...session().publishedPaused]).toEqual([
      ['mic', true],
      ['camera', false],
    ]);
    api.mockResolvedValue({ code: '0', msg: '', data: { mediaToken: 'moved', mediaUrl: 'http://media-2' } });
    session().joinResult = () => Promise.resolve([published('t-ann', 'ann')]);
    session().publishedPaused.clear();
    session().events.onDisconnect();
    expect(client.getSnapshot().status).toBe('offline');
    await vi.advanceTimersByTimeAsync(RECONNECT_FIRST_MS);
    expect(api).toHaveBeenCalledWith(
      'createAgoraToken',
      { roomNumber: '123456', failedMediaUrl: 'http://media-1' },
      { quietNetworkError: true },
    );
    expect(sessions).toHaveLength(1);
    expect(session().joinedAt).toEqual(['http://media-1', 'http://media-2']);
    expect(session().tokens).toEqual(['first', 'moved']);
    expect(session().subscribed).toEqual(['t-ann']);
    // The same camera and microphone state as before the loss: camera on, microphone muted.
    expect([...session().publishedPaused]).toEqual([
      ['mic', true],
      ['camera', false],
    ]);
    expect(client.getSnapshot().status).toBe('live');
  });

  it('shares the screen again after the session came back on another node', async () => {
    const screen = new FakeTrack('video');
    vi.stubGlobal('navigator', { mediaDevices: { getDisplayMedia: async () => ({ getVideoTracks: () => [screen] }) } });
    try {
      const { client, session, api } = setup();
      client.start('http://media-1', 'first');
      await settle();
      session().rights = ['mic', 'camera', 'screen'];
      // The room's view follows a share (the hook's onView): the screen view.
      client.setHelpers({ t: (k) => k, onView: (v) => client.setShowState(v) });
      client.actions.startScreen();
      await settle();
      expect(session().published('screen')).toBe(true);
      api.mockResolvedValue({ code: '0', msg: '', data: { mediaToken: 'moved', mediaUrl: 'http://media-2' } });
      session().events.onDisconnect();
      expect(session().published('screen')).toBe(false);
      const join = session().join.bind(session());
      session().join = async (token: string) => {
        const tracks = await join(token);
        session().rights = ['mic', 'camera', 'screen'];
        return tracks;
      };
      await vi.advanceTimersByTimeAsync(RECONNECT_FIRST_MS);
      expect(session().joinedAt.at(-1)).toBe('http://media-2');
      expect(session().publishedSources.get('screen')).toBe(screen);
      expect(client.getSnapshot().local.sharing).toBe(true);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('tries again 2 s after a failed join twice, then every 10 s', async () => {
    const { client, session } = setup();
    client.start('http://sfu', 'first');
    session().joinResult = () => Promise.reject(new Error('refused'));
    await settle();
    expect(client.getSnapshot().status).toBe('offline');
    await vi.advanceTimersByTimeAsync(RECONNECT_RETRY_MS - 1);
    expect(session().tokens).toEqual(['first']);
    await vi.advanceTimersByTimeAsync(1);
    expect(session().tokens).toEqual(['first', 'fresh']);
    await vi.advanceTimersByTimeAsync(RECONNECT_RETRY_MS);
    expect(session().tokens).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(RECONNECT_EVERY_MS - 1);
    expect(session().tokens).toHaveLength(3);
    session().joinResult = () => Promise.resolve([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(session().tokens).toHaveLength(4);
    expect(client.getSnapshot().status).toBe('live');
  });

  it('refreshes the token when invited to the microphone while live', async () => {
    const { client, session, api } = setup();
    client.start('http://sfu', 'first');
    await settle();
    client.setOnMic(true);
    await settle();
    expect(api).toHaveBeenCalledWith('createAgoraToken', { roomNumber: '123456' }, { quietNetworkError: true });
    expect(session().tokens).toEqual(['first', 'fresh']);
  });

  it('shows a device problem until a retry opens the device (no toast that goes away by itself)', async () => {
    let fail = true;
    const opened: FakeTrack[] = [];
    const { client, session } = setup(async (kind) => {
      if (fail && kind === 'video') throw Object.assign(new Error('busy'), { name: 'NotReadableError' });
      const track = new FakeTrack(kind);
      opened.push(track);
      return track as unknown as MediaStreamTrack;
    });
    client.start('http://sfu', 'first');
    await settle();
    expect(client.getSnapshot().issue).toEqual({ problem: 'occupied', source: 'camera' });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(client.getSnapshot().issue).toEqual({ problem: 'occupied', source: 'camera' });
    expect(session().published('camera')).toBe(false);
    fail = false;
    client.actions.retryDevices();
    await settle();
    expect(client.getSnapshot().issue).toBeNull();
    expect(session().published('camera')).toBe(true);
  });

  it('mutes an unplugged camera for everyone, says so, and a retry brings it back on', async () => {
    const { client, captured, session } = setup();
    client.start('http://sfu', 'first');
    await settle();
    const cam = captured.find((t) => t.kind === 'video')!;
    cam.unplug();
    await settle();
    expect(client.getSnapshot().issue).toEqual({ problem: 'unplugged', source: 'camera' });
    expect(client.getSnapshot().local.camOn).toBe(false);
    expect(session().paused).toContainEqual(['camera', true]);
    client.actions.retryDevices();
    await settle();
    expect(client.getSnapshot().issue).toBeNull();
    expect(client.getSnapshot().local.camOn).toBe(true);
    expect(session().paused.at(-1)).toEqual(['camera', false]);
    expect(captured.filter((t) => t.kind === 'video')).toHaveLength(2);
  });

  it('keeps a camera the person switched off switched off when its device goes', async () => {
    const { client, captured, session } = setup();
    client.start('http://sfu', 'first');
    await settle();
    client.actions.toggleCam();
    await settle();
    captured.find((t) => t.kind === 'video')!.unplug();
    client.actions.retryDevices();
    await settle();
    expect(client.getSnapshot().local.camOn).toBe(false);
    expect(session().paused.at(-1)).toEqual(['camera', true]);
  });

  it('no camera and no microphone are one problem: no devices', async () => {
    const { client } = setup(() => Promise.reject(Object.assign(new Error('none'), { name: 'NotFoundError' })));
    client.start('http://sfu', 'first');
    await settle();
    expect(client.getSnapshot().issue).toEqual({ problem: 'noDevices', source: 'both' });
  });

  it('keeps the node’s silent publications by track id and forgets them when packets come or the track goes', async () => {
    const { client, session } = setup();
    client.start('http://sfu', 'first');
    await settle();
    session().events.onNote({ type: 'trackSilent', trackId: 'a', userId: '7', source: 'mic', silent: true });
    expect(client.getSnapshot().silent).toEqual({ a: { userId: '7', source: 'mic' } });
    session().events.onNote({ type: 'trackSilent', trackId: 'a', userId: '7', source: 'mic', silent: false });
    expect(client.getSnapshot().silent).toEqual({});
    session().events.onNote({ type: 'trackSilent', trackId: 'b', userId: '8', source: 'mic', silent: true });
    session().events.onNote({ type: 'trackRemoved', trackId: 'b', userId: '8' });
    expect(client.getSnapshot().silent).toEqual({});
  });

  it('opens a refused camera again when the permission is granted, and mutes it when the permission is taken back, without leaving the class', async () => {
    const permissions = new Map<string, EventTarget & { state: PermissionState }>();
    const initial: PermissionState = 'prompt';
    for (const name of ['camera', 'microphone']) permissions.set(name, Object.assign(new EventTarget(), { state: initial }));
    const devices = new EventTarget();
    vi.stubGlobal('navigator', {
      mediaDevices: Object.assign(devices, { enumerateDevices: () => Promise.resolve([]) }),
      permissions: { query: ({ name }: { name: string }) => Promise.resolve(permissions.get(name)) },
    });
    try {
      let refused = true;
      const { client, session, captured } = setup(async (kind) => {
        if (refused && kind === 'video') throw Object.assign(new Error('no'), { name: 'NotAllowedError' });
        const track = new FakeTrack(kind);
        captured.push(track);
        return track as unknown as MediaStreamTrack;
      });
      const detach = client.attach();
      client.start('http://sfu', 'first');
      await settle();
      expect(client.getSnapshot().issue).toEqual({ problem: 'denied', source: 'camera' });
      const camera = permissions.get('camera')!;
      // Allowed in the address bar: the camera opens and goes out, the session is the same one.
      refused = false;
      camera.state = 'granted';
      camera.dispatchEvent(new Event('change'));
      await settle();
      expect(client.getSnapshot().issue).toBeNull();
      expect(session().published('camera')).toBe(true);
      expect(session().closed).toBe(false);
      // Taken back: muted for everyone and said.
      camera.state = 'denied';
      camera.dispatchEvent(new Event('change'));
      await settle();
      expect(client.getSnapshot().issue).toEqual({ problem: 'denied', source: 'camera' });
      expect(client.getSnapshot().local.camOn).toBe(false);
      expect(session().paused.at(-1)).toEqual(['camera', true]);
      detach();
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('mutes a source whose device left the list, and opens devices that arrive after none was found', async () => {
    let list: Array<{ deviceId: string; kind: string }> = [];
    const devices = Object.assign(new EventTarget(), { enumerateDevices: () => Promise.resolve(list) });
    vi.stubGlobal('navigator', { mediaDevices: devices });
    try {
      let none = true;
      const { client, session, captured } = setup(async (kind) => {
        if (none) throw Object.assign(new Error('none'), { name: 'NotFoundError' });
        const track = Object.assign(new FakeTrack(kind), { getSettings: () => ({ deviceId: `${kind}-1` }) });
        captured.push(track);
        return track as unknown as MediaStreamTrack;
      });
      const detach = client.attach();
      client.start('http://sfu', 'first');
      await settle();
      expect(client.getSnapshot().issue).toEqual({ problem: 'noDevices', source: 'both' });
      // A camera and a microphone are plugged in: opened without a click.
      none = false;
      list = [
        { deviceId: 'audio-1', kind: 'audioinput' },
        { deviceId: 'video-1', kind: 'videoinput' },
      ];
      devices.dispatchEvent(new Event('devicechange'));
      await vi.advanceTimersByTimeAsync(1000);
      await settle();
      expect(client.getSnapshot().issue).toBeNull();
      expect([...session().publishedSources.keys()].sort()).toEqual(['camera', 'mic']);
      // The microphone is unplugged: muted and said.
      list = [{ deviceId: 'video-1', kind: 'videoinput' }];
      devices.dispatchEvent(new Event('devicechange'));
      await vi.advanceTimersByTimeAsync(1000);
      await settle();
      expect(client.getSnapshot().issue).toEqual({ problem: 'deviceUpdate', source: 'mic' });
      expect(client.getSnapshot().local.micOn).toBe(false);
      expect(session().paused.at(-1)).toEqual(['mic', true]);
      detach();
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('stop() closes the session, stops the devices and a late drop reconnects nothing', async () => {
    const { client, sessions, session, captured } = setup();
    client.start('http://sfu', 'first');
    await settle();
    const s = session();
    client.stop();
    expect(client.getSnapshot().status).toBe('off');
    expect(s.closed).toBe(true);
    expect(captured.every((t) => t.readyState === 'ended')).toBe(true);
    s.events.onDisconnect();
    await vi.advanceTimersByTimeAsync(RECONNECT_EVERY_MS);
    expect(sessions).toHaveLength(1);
    expect(client.getSnapshot().status).toBe('off');
  });
});
