import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { dismissStaleToasts, getToasts, NAVIGATION_GRACE_MS, showToast, toastScope } from './toast.ts';

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

  it("takes the sign-in page's own toasts away on a sign-in within the grace (SMS autofill), and leaves others", () => {
    const signInPage = toastScope();
    showToast('Classroom ended'); // raised elsewhere, about the next page
    signInPage.success('Code sent');
    vi.advanceTimersByTime(NAVIGATION_GRACE_MS - 500); // the code arrives and fills in at once
    // Successful sign-in: the page dismisses its toasts, then the route changes.
    signInPage.dismissAll();
    dismissStaleToasts();
    expect(getToasts().map((t) => t.text)).toEqual(['Classroom ended']);
  });

  it('without the scope, the route change alone would keep a toast raised within the grace', () => {
    showToast('Code sent');
    vi.advanceTimersByTime(NAVIGATION_GRACE_MS - 500);
    dismissStaleToasts();
    expect(getToasts().map((t) => t.text)).toEqual(['Code sent']);
  });

  it('forgets toasts that closed on their own, and a dismissed scope can raise again', () => {
    const page = toastScope();
    page.error('Phone or code incorrect');
    vi.runAllTimers();
    expect(getToasts()).toEqual([]);
    page.dismissAll();
    page.info('Again');
    expect(getToasts().map((t) => t.text)).toEqual(['Again']);
    page.dismissAll();
    expect(getToasts()).toEqual([]);
  });
});
