/**
 * `/#download` (docs/product/01-account-and-lobby.md §2, ADR 094): the download section lives on the
 * landing page `/home`, while `/` is the lobby (or, without a teacher's session, the front door of
 * ADR 098). The fragment never reaches the server, so the browser acts: both views of `/`, and the
 * sign-in page reached with `redirect=/` (the redirect keeps the fragment), open `/home#download`;
 * the landing page scrolls to its section after hydration, and once more when its images have
 * loaded and moved it.
 */
import { useEffect } from 'react';
import { useNavigate } from 'react-router';

export const DOWNLOAD_HASH = '#download';
export const DOWNLOAD_ADDRESS = `/home${DOWNLOAD_HASH}`;

/** On a page reached as `/#download`: go on to the landing page's download section. */
export function useDownloadAnchor(when = true): void {
  const navigate = useNavigate();
  useEffect(() => {
    if (when && window.location.hash === DOWNLOAD_HASH) void navigate(DOWNLOAD_ADDRESS, { replace: true });
  }, [navigate, when]);
}

/** On the landing page: bring the section named by the address's fragment into view. */
export function useScrollToHash(): void {
  useEffect(() => {
    const scroll = () => {
      const id = decodeURIComponent(window.location.hash.slice(1));
      if (id) document.getElementById(id)?.scrollIntoView({ block: 'start' });
    };
    scroll();
    if (document.readyState === 'complete') return;
    window.addEventListener('load', scroll, { once: true });
    return () => window.removeEventListener('load', scroll);
  }, []);
}
