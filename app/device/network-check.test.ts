import { describe, expect, it } from 'vitest';
import { EchoCounter, gradeNetwork } from './network-check.ts';

const fast = { downKbps: 50_000, upKbps: 20_000, udp: true };

describe('network grade', () => {
  it('is excellent only with a short round trip, no loss and room for a four-person class', () => {
    expect(gradeNetwork({ rttMs: 20, loss: 0, ...fast })).toBe('excellent');
    expect(gradeNetwork({ rttMs: 20, loss: 0.1, ...fast })).toBe('poor');
    expect(gradeNetwork({ rttMs: 300, loss: 0, ...fast })).toBe('poor');
    expect(gradeNetwork({ rttMs: 20, loss: 0, ...fast, downKbps: 1000 })).toBe('poor');
    // Measured on the socket where the browser has no WebRTC: graded on the same bounds.
    expect(gradeNetwork({ rttMs: 20, loss: 0, ...fast, udp: null })).toBe('excellent');
  });
  it('is very poor past the poor bounds, with nothing measured, or when the media path does not connect', () => {
    expect(gradeNetwork({ rttMs: 600, loss: 0, ...fast })).toBe('veryPoor');
    expect(gradeNetwork({ rttMs: 20, loss: 0.3, ...fast })).toBe('veryPoor');
    expect(gradeNetwork({ rttMs: 20, loss: 0, ...fast, downKbps: 100 })).toBe('veryPoor');
    expect(gradeNetwork({ rttMs: Infinity, loss: 1, downKbps: 0, upKbps: 0, udp: true })).toBe('veryPoor');
    // Fast TCP but no UDP (nor TURN): the class would have no audio or video.
    expect(gradeNetwork({ rttMs: 20, loss: 0, ...fast, udp: false })).toBe('veryPoor');
  });
});

describe('echo counter', () => {
  it('takes the median round trip of the echoes and counts what never came back as lost', () => {
    const c = new EchoCounter();
    for (let i = 0; i < 10; i++) c.sent(i, i * 20);
    // 0..7 come back after 10, 12, ..., 24 ms; 8 and 9 are lost.
    for (let i = 0; i < 8; i++) c.received(i, i * 20 + 10 + 2 * i);
    expect(c.complete).toBe(false);
    expect(c.result()).toEqual({ rttMs: 18, loss: 0.2 });
  });
  it('ignores duplicates and packets it never sent', () => {
    const c = new EchoCounter();
    c.sent(0, 0);
    c.sent(1, 0);
    c.received(0, 5);
    c.received(0, 50); // a duplicate
    c.received(7, 1); // never sent
    expect(c.result()).toEqual({ rttMs: 5, loss: 0.5 });
    c.received(1, 7);
    expect(c.complete).toBe(true);
    expect(c.result()).toEqual({ rttMs: 7, loss: 0 });
  });
  it('with nothing sent reports everything lost, not a perfect line', () => {
    expect(new EchoCounter().result()).toEqual({ rttMs: Infinity, loss: 1 });
  });
});
