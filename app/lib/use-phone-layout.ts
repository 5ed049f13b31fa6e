import { useEffect, useState } from 'react';
import { isMobileDevice, parseUa } from './ua.ts';

/** Below this width a computer's window gets the phone layout too (ADR 091). */
export const PHONE_QUERY = '(max-width: 719px)';

/** In the browser, now: a phone or tablet by its user agent, or a window narrower than PHONE_QUERY. */
export function isPhoneNow(): boolean {
  return isMobileDevice(parseUa(navigator.userAgent)) || window.matchMedia(PHONE_QUERY).matches;
}

/**
 * Whether to lay a page out for a phone: a phone or tablet (by its user agent), or any window
 * narrower than PHONE_QUERY, followed as the window is resized. `initial` is the first render's
 * answer: what the server knew from the request's user agent, or a function read at once on a
 * page rendered only in the browser.
 */
export function usePhoneLayout(initial: boolean | (() => boolean) = false): boolean {
  const [phone, setPhone] = useState(initial);
  useEffect(() => {
    const query = window.matchMedia(PHONE_QUERY);
    const update = () => setPhone(isPhoneNow());
    update();
    query.addEventListener('change', update);
    return () => query.removeEventListener('change', update);
  }, []);
  return phone;
}
