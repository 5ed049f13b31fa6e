import { describe, expect, it, vi } from 'vitest';
import { CAMERA_FALLBACK, openCameraWithFallback, retrySmaller } from '#app/device/camera-fallback.ts';
import { issueActions, mergeIssue, retrySources, type DeviceIssue } from './device-issue.ts';
import { problemOf } from './devices.ts';
import { isAutoplayBlock, PlaybackGate, type PlayableElement } from './playback.ts';

const err = (name: string) => Object.assign(new Error(name), { name });

describe('getUserMedia failures, classified (docs/product/02 §4, §8)', () => {
  it.each([
    ['NotAllowedError', 'video', 'denied'],
    ['SecurityError', 'audio', 'denied'],
    ['PermissionDeniedError', 'both', 'denied'],
    ['NotReadableError', 'video', 'occupied'],
    ['TrackStartError', 'audio', 'occupied'],
    ['AbortError', 'video', 'occupied'],
    ['NotFoundError', 'audio', 'noMicrophone'],
    ['NotFoundError', 'video', 'noWebcam'],
    ['DevicesNotFoundError', 'both', 'noDevices'],
    ['OverconstrainedError', 'video', 'resolution'],
    ['OverconstrainedError', 'audio', 'deviceError'],
    ['TypeError', 'video', 'deviceError'],
  ] as const)('%s for %s is %s', (name, kind, problem) => {
    expect(problemOf(err(name), kind)).toBe(problem);
  });

  it('reads a plain object with a name as well (DOMException-like), and anything else as a device error', () => {
    expect(problemOf({ name: 'NotAllowedError' }, 'video')).toBe('denied');
    expect(problemOf('boom', 'video')).toBe('deviceError');
    expect(problemOf(null, 'audio')).toBe('deviceError');
  });
});

describe('the camera fallback, one rule for the classroom and the studio (docs/product/02 §5)', () => {
  it.each([
    ['OverconstrainedError', 640, true],
    ['OverconstrainedError', 1280, true],
    ['ConstraintNotSatisfiedError', 640, true],
    ['NotReadableError', 1280, true],
    ['TrackStartError', 1280, true],
    // A camera busy at 640 is busy, not too small.
    ['NotReadableError', 640, false],
    ['NotAllowedError', 1280, false],
    ['NotFoundError', 1280, false],
  ] as const)('%s at width %i: retry at 640x480 is %s', (name, width, retry) => {
    expect(retrySmaller(err(name), width)).toBe(retry);
  });

  it('opens at the size asked, then at 640x480 once, and says which', async () => {
    const open = vi.fn(async (size: { width: number; height: number }) => {
      if (size.width > 640) throw err('NotReadableError');
      return `stream ${size.width}x${size.height}`;
    });
    await expect(openCameraWithFallback(open, { width: 1280, height: 720 })).resolves.toEqual({
      result: 'stream 640x480',
      fellBack: true,
    });
    expect(open.mock.calls.map((c) => c[0])).toEqual([{ width: 1280, height: 720 }, CAMERA_FALLBACK]);
    open.mockClear();
    await expect(openCameraWithFallback(open, { width: 640, height: 360 })).resolves.toEqual({ result: 'stream 640x360', fellBack: false });
    expect(open).toHaveBeenCalledTimes(1);
  });

  it('does not retry a refusal, and a fallback that fails too fails with its own error', async () => {
    const denied = vi.fn(() => Promise.reject(err('NotAllowedError')));
    await expect(openCameraWithFallback(denied, { width: 640, height: 360 })).rejects.toMatchObject({ name: 'NotAllowedError' });
    expect(denied).toHaveBeenCalledTimes(1);
    const never = vi.fn(() => Promise.reject(err('OverconstrainedError')));
    await expect(openCameraWithFallback(never, { width: 640, height: 360 })).rejects.toMatchObject({ name: 'OverconstrainedError' });
    expect(never).toHaveBeenCalledTimes(2);
  });
});

describe('the device-exception view', () => {
  const issue = (problem: DeviceIssue['problem'], source: DeviceIssue['source']): DeviceIssue => ({ problem, source });

  it.each([
    [null, issue('occupied', 'camera'), issue('occupied', 'camera')],
    [issue('noWebcam', 'camera'), issue('noMicrophone', 'mic'), issue('noDevices', 'both')],
    [issue('noMicrophone', 'mic'), issue('noWebcam', 'camera'), issue('noDevices', 'both')],
    [issue('denied', 'camera'), issue('occupied', 'mic'), issue('denied', 'camera')],
    [issue('denied', 'camera'), issue('denied', 'mic'), issue('denied', 'both')],
    [issue('unplugged', 'mic'), issue('unplugged', 'camera'), issue('unplugged', 'both')],
    [issue('occupied', 'camera'), issue('unplugged', 'mic'), issue('unplugged', 'mic')],
  ])('%o then %o shows %o', (prev, next, shown) => {
    expect(mergeIssue(prev, next)).toEqual(shown);
  });

  it('always offers a retry; the permission steps for a refusal; another device where one may help', () => {
    expect(issueActions('denied')).toEqual({ retry: true, permissionHelp: true, chooseDevice: false });
    expect(issueActions('noDevices')).toEqual({ retry: true, permissionHelp: false, chooseDevice: false });
    for (const p of ['occupied', 'resolution', 'unplugged', 'deviceUpdate', 'deviceError'] as const)
      expect(issueActions(p)).toEqual({ retry: true, permissionHelp: false, chooseDevice: true });
  });

  it('a retry opens the device the problem names, or both', () => {
    expect(retrySources(issue('unplugged', 'mic'))).toEqual(['mic']);
    expect(retrySources(issue('occupied', 'camera'))).toEqual(['camera']);
    expect(retrySources(issue('noDevices', 'both'))).toEqual(['mic', 'camera']);
    expect(retrySources(null)).toEqual(['mic', 'camera']);
  });
});

class FakeElement implements PlayableElement {
  paused = true;
  isConnected = true;
  tagName = 'AUDIO';
  allowed = false;
  plays = 0;
  play(): Promise<void> {
    this.plays += 1;
    if (!this.allowed) return Promise.reject(Object.assign(new Error('blocked'), { name: 'NotAllowedError' }));
    this.paused = false;
    return Promise.resolve();
  }
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('playback the browser blocks', () => {
  it('knows the autoplay refusal from other failures', () => {
    expect(isAutoplayBlock(err('NotAllowedError'))).toBe(true);
    expect(isAutoplayBlock(err('AbortError'))).toBe(false);
    expect(isAutoplayBlock(undefined)).toBe(false);
  });

  it('lists refused elements, logs video_play_error once per refusal, and resumes them all on a gesture', async () => {
    const log = vi.fn();
    const gate = new PlaybackGate(log);
    gate.setRoom('123456');
    const a = new FakeElement();
    const v = Object.assign(new FakeElement(), { tagName: 'VIDEO' });
    gate.play(a);
    gate.play(v);
    gate.play(a);
    await settle();
    expect(gate.getSnapshot()).toBe(2);
    expect(log).toHaveBeenCalledTimes(2);
    expect(log).toHaveBeenCalledWith('video_play_error', '123456', expect.objectContaining({ element: 'audio', error: 'NotAllowedError' }));
    // Still blocked: a resume outside a gesture fails and keeps the list.
    gate.resumeAll();
    await settle();
    expect(gate.getSnapshot()).toBe(2);
    a.allowed = v.allowed = true;
    gate.resumeAll();
    await settle();
    expect(gate.getSnapshot()).toBe(0);
    expect([a.paused, v.paused]).toEqual([false, false]);
    expect(log).toHaveBeenCalledTimes(2);
  });

  it('forgets an element that left the page and ignores other failures', async () => {
    const log = vi.fn();
    const gate = new PlaybackGate(log);
    const a = new FakeElement();
    gate.play(a);
    await settle();
    gate.forget(a);
    expect(gate.getSnapshot()).toBe(0);
    const aborted: PlayableElement = { paused: true, isConnected: true, tagName: 'VIDEO', play: () => Promise.reject(err('AbortError')) };
    gate.play(aborted);
    await settle();
    expect(gate.getSnapshot()).toBe(0);
    expect(log).toHaveBeenCalledTimes(1);
  });
});
