import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LIVE_END_DEBOUNCE_MS, LIVE_START_DEBOUNCE_MS } from '#core/contracts/streaming.ts';
import { debouncedCall } from './debounce.ts';

describe('debouncedCall (live start 300 ms, end 200 ms)', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('sends one call after the quiet window, however many clicks came within it', async () => {
    const busy: boolean[] = [];
    const d = debouncedCall(LIVE_START_DEBOUNCE_MS, (b) => busy.push(b));
    const first = vi.fn(() => Promise.resolve());
    const second = vi.fn(() => Promise.resolve());
    d.trigger(first);
    expect(busy).toEqual([true]);
    await vi.advanceTimersByTimeAsync(LIVE_START_DEBOUNCE_MS - 100);
    d.trigger(second);
    await vi.advanceTimersByTimeAsync(LIVE_START_DEBOUNCE_MS - 1);
    expect(first).not.toHaveBeenCalled();
    expect(second).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(first).not.toHaveBeenCalled();
    expect(second).toHaveBeenCalledTimes(1);
    expect(busy).toEqual([true, false]);
    expect(d.busy()).toBe(false);
  });

  it('ignores clicks while the call runs, and takes one again once it answered', async () => {
    let answer: () => void = () => undefined;
    const slow = vi.fn(() => new Promise<void>((resolve) => (answer = resolve)));
    const d = debouncedCall(LIVE_END_DEBOUNCE_MS);
    d.trigger(slow);
    await vi.advanceTimersByTimeAsync(LIVE_END_DEBOUNCE_MS);
    expect(slow).toHaveBeenCalledTimes(1);
    expect(d.busy()).toBe(true);
    const extra = vi.fn(() => Promise.resolve());
    d.trigger(extra);
    await vi.advanceTimersByTimeAsync(LIVE_END_DEBOUNCE_MS * 5);
    expect(extra).not.toHaveBeenCalled();
    answer();
    await vi.advanceTimersByTimeAsync(0);
    expect(d.busy()).toBe(false);
    d.trigger(extra);
    await vi.advanceTimersByTimeAsync(LIVE_END_DEBOUNCE_MS);
    expect(extra).toHaveBeenCalledTimes(1);
  });

  it('a cancelled call is never sent, and a failing call frees the button', async () => {
    const busy: boolean[] = [];
    const d = debouncedCall(LIVE_START_DEBOUNCE_MS, (b) => busy.push(b));
    const call = vi.fn(() => Promise.resolve());
    d.trigger(call);
    d.cancel();
    await vi.advanceTimersByTimeAsync(LIVE_START_DEBOUNCE_MS * 2);
    expect(call).not.toHaveBeenCalled();
    expect(busy).toEqual([true, false]);
    d.trigger(() => Promise.reject(new Error('boom')));
    await vi.advanceTimersByTimeAsync(LIVE_START_DEBOUNCE_MS);
    expect(d.busy()).toBe(false);
    expect(busy).toEqual([true, false, true, false]);
  });
});
