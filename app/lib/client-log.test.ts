import { describe, expect, it } from 'vitest';
import { addLogInput } from '#core/messaging/messaging.schema.ts';
import { describeAgent, deviceResult, toMinutes } from './client-log.ts';

describe('client log helpers (ADR 102)', () => {
  it('names browser and OS from the user agents the product meets', () => {
    const table: Array<[string, { browser: string; os: string }]> = [
      [
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36',
        { browser: 'Chrome 140.0.0.0', os: 'Linux' },
      ],
      [
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.91',
        { browser: 'Edge 120.0.2210.91', os: 'Windows NT 10.0' },
      ],
      [
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
        { browser: 'Safari 17.4', os: 'iOS 17.4' },
      ],
      [
        'Mozilla/5.0 (Linux; Android 13; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36 MicroMessenger/8.0.44',
        { browser: 'WeChat 8.0.44', os: 'Android 13' },
      ],
      [
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7; rv:125.0) Gecko/20100101 Firefox/125.0',
        { browser: 'Firefox 125.0', os: 'macOS 10.15.7' },
      ],
      ['curl/8.0', { browser: 'unknown', os: 'unknown' }],
    ];
    for (const [ua, want] of table) expect(describeAgent(ua), ua).toEqual(want);
  });

  it('reports minutes with one decimal', () => {
    expect(toMinutes(0)).toBe(0);
    expect(toMinutes(90_000)).toBe(1.5);
    expect(toMinutes(100_000)).toBe(1.7);
    expect(toMinutes(3_600_000)).toBe(60);
  });

  it('reads a pre-join device as off, running, opening or its problem, in words the server schema accepts', () => {
    const d = (over: Partial<Parameters<typeof deviceResult>[0]>) =>
      deviceResult({ wanted: true, on: true, stream: null, problem: null, ...over });
    const results = [
      d({ wanted: false }),
      d({ on: false }),
      d({}),
      d({ stream: {} as MediaStream }),
      d({ problem: 'denied' }),
      d({ problem: 'noWebcam' }),
      d({ problem: 'occupied' }),
      d({ problem: 'deviceError' }),
    ];
    expect(results).toEqual(['off', 'off', 'pending', 'ok', 'denied', 'missing', 'busy', 'error']);
    for (const camera of results) {
      const batch = {
        roomNumber: '123456',
        events: [{ event: 'check_devices', details: { source: 'prejoin', camera, microphone: 'ok' } }],
      };
      expect(addLogInput.safeParse(batch).success, camera).toBe(true);
    }
  });
});
