import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { dismissStaleToasts, getToasts, NAVIGATION_GRACE_MS, showToast } from './toast.ts';

describe('toasts on a route change (ADR 090)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.stubGlobal('window', {});
  });
  afterEach(() => {
    vi.runAllTimers();
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it('dismisses the toasts of the page left behind and keeps one raised for the navigation itself', () => {
    showToast('Code sent');
    vi.advanceTimersByTime(NAVIGATION_GRACE_MS + 1);
    showToast('You have been removed');
    dismissStaleToasts();
    expect(getToasts().map((t) => t.text)).toEqual(['You have been removed']);
  });
});
