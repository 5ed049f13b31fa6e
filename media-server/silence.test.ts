import { describe, expect, it } from 'vitest';
import { SILENT_AFTER_MS } from '#core/contracts/media-signaling.ts';
import { silenceStep, type SilenceState } from './silence.ts';

/** Runs the step once a second over a script of (paused, packets) readings; answers the reports with their second. */
function run(script: Array<{ paused?: boolean; packets: number }>): Array<[number, boolean]> {
  let state: SilenceState = { packets: 0, since: 0, silent: false };
  const reports: Array<[number, boolean]> = [];
  script.forEach((reading, i) => {
    const now = (i + 1) * 1000;
    const next = silenceStep(state, { paused: reading.paused ?? false, packets: reading.packets }, now);
    state = next.state;
    if (next.report !== null) reports.push([now / 1000, next.report]);
  });
  return reports;
}

const seconds = (n: number, reading: { paused?: boolean; packets: number }) => Array.from({ length: n }, () => reading);

describe('a publication that sends nothing', () => {
  it('is reported once after 10 s without a packet, and cleared when packets come', () => {
    expect(SILENT_AFTER_MS).toBe(10_000);
    expect(run([...seconds(12, { packets: 0 }), { packets: 5 }, { packets: 9 }])).toEqual([
      [10, true],
      [13, false],
    ]);
  });

  it('is never reported while packets arrive', () => {
    expect(run(Array.from({ length: 30 }, (_, i) => ({ packets: i * 50 })))).toEqual([]);
  });

  it('is reported when packets stop after a while (a device that died)', () => {
    expect(run([{ packets: 50 }, { packets: 100 }, ...seconds(11, { packets: 100 })])).toEqual([[12, true]]);
  });

  it('is not silent while paused (muted sends nothing by design), and gets a fresh 10 s after the unmute', () => {
    expect(run([...seconds(20, { paused: true, packets: 0 }), ...seconds(9, { packets: 0 })])).toEqual([]);
    expect(run([...seconds(20, { paused: true, packets: 0 }), ...seconds(10, { packets: 0 })])).toEqual([[30, true]]);
    // Silent, then muted: the report is taken back.
    expect(run([...seconds(10, { packets: 0 }), { paused: true, packets: 0 }])).toEqual([
      [10, true],
      [11, false],
    ]);
  });
});
