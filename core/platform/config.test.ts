import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('runs on embedded defaults with the spec numbers', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 3000,
      HOST: '127.0.0.1',
      ROLE: 'all',
      SMS_SENDER: 'console',
      FREE_MINI_CAP: 2,
      PAID_MINI_CAP: 4,
      AUDIO_CAP: 3,
      WHITEBOARD_CAP: 200,
      CREDIT_WINDOW_HOURS: 3,
      SMS_RESEND_SECONDS: 60,
      SMS_CODE_TTL_SECONDS: 300,
      devOutbox: true,
      publicUrl: 'http://127.0.0.1:3000',
    });
    expect(c.DATABASE_URL).toBeUndefined();
  });

  it('names every bad setting in one message', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', ROLE: 'boss', DATABASE_URL: 'mysql://x', FREE_MINI_CAP: '-1' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const msg = (error as Error).message;
    for (const key of ['PORT', 'ROLE', 'DATABASE_URL', 'FREE_MINI_CAP']) expect(msg).toContain(key);
  });

  it('reads ROLE as all or a comma list of roles, and a recorder needs a media node', () => {
    expect([...loadConfig({}).roles].sort()).toEqual(['media', 'recorder', 'web', 'worker']);
    expect([...loadConfig({ ROLE: 'web,media' }).roles].sort()).toEqual(['media', 'web']);
    expect([...loadConfig({ ROLE: 'worker' }).roles]).toEqual(['worker']);
    expect(() => loadConfig({ ROLE: 'web,boss' })).toThrow(/ROLE/);
    expect(() => loadConfig({ ROLE: 'recorder' })).toThrow(/ROLE=recorder without an SFU needs MEDIA_PUBLIC_URL/);
    expect(loadConfig({ ROLE: 'recorder', MEDIA_PUBLIC_URL: 'http://127.0.0.1:3100' }).roles.has('recorder')).toBe(true);
    expect(loadConfig({ ROLE: 'recorder', MEDIA_PLACEMENT: 'registry' }).roles.has('web')).toBe(false);
  });

  it('has the recording settings with their defaults and bounds', () => {
    expect(loadConfig({})).toMatchObject({
      RECORDING_WIDTH: 1280,
      RECORDING_HEIGHT: 720,
      RECORDING_FPS: 30,
      RECORDING_VIDEO_KBPS: 3000,
      RECORDING_AUDIO_KBPS: 128,
      RECORDING_SEGMENT_SECONDS: 4,
      RECORDING_START_TIMEOUT_SECONDS: 12,
      RECORDING_LEASE_SECONDS: 6,
      RECORDER_SLOTS: 2,
    });
    expect(loadConfig({ RECORDER_SLOTS: '0', RECORDING_SEGMENT_SECONDS: '10' })).toMatchObject({
      RECORDER_SLOTS: 0,
      RECORDING_SEGMENT_SECONDS: 10,
    });
    expect(() => loadConfig({ RECORDING_SEGMENT_SECONDS: '11' })).toThrow(/RECORDING_SEGMENT_SECONDS/);
    expect(() => loadConfig({ RECORDING_SEGMENT_SECONDS: '0' })).toThrow(/RECORDING_SEGMENT_SECONDS/);
    expect(() => loadConfig({ RECORDING_LEASE_SECONDS: '1' })).toThrow(/RECORDING_LEASE_SECONDS/);
  });

  it("has the recorder's CPU budget (ADR 105): a share of the machine, 0.8 unless set", () => {
    expect(loadConfig({}).RECORDER_CPU_BUDGET).toBe(0.8);
    expect(loadConfig({ RECORDER_CPU_BUDGET: '0.25' }).RECORDER_CPU_BUDGET).toBe(0.25);
    expect(() => loadConfig({ RECORDER_CPU_BUDGET: '0' })).toThrow(/RECORDER_CPU_BUDGET/);
    expect(() => loadConfig({ RECORDER_CPU_BUDGET: '1.5' })).toThrow(/RECORDER_CPU_BUDGET/);
    expect(() => loadConfig({ RECORDER_CPU_BUDGET: 'half' })).toThrow(/RECORDER_CPU_BUDGET/);
  });

  it('needs a webhook for the http SMS sender and never offers the outbox in production', () => {
    expect(() => loadConfig({ SMS_SENDER: 'http' })).toThrow(/SMS_WEBHOOK_URL/);
    expect(loadConfig({ SMS_SENDER: 'http', SMS_WEBHOOK_URL: 'http://127.0.0.1:9/sms' }).devOutbox).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production' }).devOutbox).toBe(false);
    expect(() => loadConfig({ NODE_ENV: 'production', DEV_OUTBOX: 'true' })).toThrow(/DEV_OUTBOX/);
  });

  it('derives the public URL and secure cookies from PUBLIC_URL', () => {
    const c = loadConfig({ PUBLIC_URL: 'https://class.example.org/', HOST: '0.0.0.0' });
    expect(c.publicUrl).toBe('https://class.example.org');
    expect(c.cookieSecure).toBe(true);
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '8080' }).publicUrl).toBe('http://127.0.0.1:8080');
  });

  it('checks the media settings together', () => {
    expect(loadConfig({})).toMatchObject({
      MEDIA_LISTEN_IP: '127.0.0.1',
      MEDIA_RTC_MIN_PORT: 40000,
      MEDIA_RTC_MAX_PORT: 49999,
      MEDIA_TOKEN_TTL_SECONDS: 120,
      MEDIA_PLACEMENT: 'single',
    });
    expect(() => loadConfig({ MEDIA_RTC_MIN_PORT: '45000', MEDIA_RTC_MAX_PORT: '44000' })).toThrow(/MEDIA_RTC_MIN_PORT/);
    expect(() => loadConfig({ MEDIA_LISTEN_IP: '0.0.0.0' })).toThrow(/MEDIA_ANNOUNCED_ADDRESS/);
    expect(loadConfig({ MEDIA_LISTEN_IP: '0.0.0.0', MEDIA_ANNOUNCED_ADDRESS: '203.0.113.5' }).MEDIA_ANNOUNCED_ADDRESS).toBe('203.0.113.5');
    expect(() => loadConfig({ ROLE: 'web' })).toThrow(/MEDIA_PUBLIC_URL/);
    expect(loadConfig({ ROLE: 'web', MEDIA_PLACEMENT: 'registry' }).ROLE).toBe('web');
    expect(() => loadConfig({ MEDIA_LISTEN_IP: 'localhost' })).toThrow(/MEDIA_LISTEN_IP/);
  });

  it('REDIS_URL: unset by default (in-process realtime), a redis:// or rediss:// URL when set', () => {
    expect(loadConfig({}).REDIS_URL).toBeUndefined();
    expect(loadConfig({ REDIS_URL: 'redis://10.0.0.5:6379/0' }).REDIS_URL).toBe('redis://10.0.0.5:6379/0');
    expect(loadConfig({ REDIS_URL: 'rediss://:pw@cache.example.com:6380' }).REDIS_URL).toBe('rediss://:pw@cache.example.com:6380');
    for (const bad of ['127.0.0.1:6379', 'http://redis:6379', 'redis://'])
      expect(() => loadConfig({ REDIS_URL: bad }), bad).toThrow(ConfigError);
  });

  it('reads the live platforms (name -> rtmp(s) ingest address) and refuses a bad entry by name', () => {
    expect(loadConfig({}).LIVE_PLATFORMS).toEqual([{ name: 'YouTube', url: 'rtmp://a.rtmp.youtube.com/live2' }]);
    expect(loadConfig({}).LIVE_CUSTOM_URL).toBe(false);
    const c = loadConfig({
      LIVE_PLATFORMS: ' Bilibili=rtmp://live-push.bilivideo.com/live-bvc/ , 本地 1=rtmps://127.0.0.1:1935/live ',
      LIVE_CUSTOM_URL: 'true',
    });
    expect(c.LIVE_PLATFORMS).toEqual([
      { name: 'Bilibili', url: 'rtmp://live-push.bilivideo.com/live-bvc' },
      { name: '本地 1', url: 'rtmps://127.0.0.1:1935/live' },
    ]);
    expect(c.LIVE_CUSTOM_URL).toBe(true);
    for (const bad of [
      'YouTube=http://a.rtmp.youtube.com/live2',
      'YouTube=rtmp://a.rtmp.youtube.com',
      'YouTube=rtmp://u:p@example.com/live',
      'YouTube=rtmp://example.com/live?k=1',
      'custom=rtmp://example.com/live',
      'A=rtmp://example.com/live,A=rtmp://example.org/live',
      'rtmp://example.com/live',
      'Bad/Name=rtmp://example.com/live',
    ])
      expect(() => loadConfig({ LIVE_PLATFORMS: bad }), bad).toThrow(/LIVE_PLATFORMS/);
  });
});
