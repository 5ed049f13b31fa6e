import { describe, expect, it } from 'vitest';
import { gradeNetwork } from './network-check.ts';

describe('network grade', () => {
  it('is excellent only with a short round trip, no loss and room for a four-person class', () => {
    expect(gradeNetwork({ rttMs: 20, loss: 0, downKbps: 50_000, upKbps: 20_000 })).toBe('excellent');
    expect(gradeNetwork({ rttMs: 20, loss: 0.1, downKbps: 50_000, upKbps: 20_000 })).toBe('poor');
    expect(gradeNetwork({ rttMs: 300, loss: 0, downKbps: 50_000, upKbps: 20_000 })).toBe('poor');
    expect(gradeNetwork({ rttMs: 20, loss: 0, downKbps: 1000, upKbps: 20_000 })).toBe('poor');
  });
  it('is very poor past the poor bounds or with nothing measured', () => {
    expect(gradeNetwork({ rttMs: 600, loss: 0, downKbps: 50_000, upKbps: 20_000 })).toBe('veryPoor');
    expect(gradeNetwork({ rttMs: 20, loss: 0.3, downKbps: 50_000, upKbps: 20_000 })).toBe('veryPoor');
    expect(gradeNetwork({ rttMs: 20, loss: 0, downKbps: 100, upKbps: 20_000 })).toBe('veryPoor');
    expect(gradeNetwork({ rttMs: Infinity, loss: 1, downKbps: 0, upKbps: 0 })).toBe('veryPoor');
  });
});
