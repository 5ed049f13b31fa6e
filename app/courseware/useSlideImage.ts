/**
 * Loads a slide image for the board's paper. Signed links expire (3600 s): when one fails to load,
 * `onExpired` asks the room for fresh links, and the new address loads in its place.
 */
import { useEffect, useState } from 'react';

export type SlideImage =
  | { status: 'none' }
  | { status: 'loading'; url: string }
  | { status: 'ready'; url: string; image: HTMLImageElement }
  | { status: 'failed'; url: string };

const NONE: SlideImage = { status: 'none' };

export function useSlideImage(url: string, onExpired: () => void, preload: string[] = []): SlideImage {
  // The outcome of the last load; an address not loaded yet is 'loading' (derived, not set by the effect).
  const [loadedState, setState] = useState<SlideImage>({ status: 'none' });
  useEffect(() => {
    if (!url) return;
    let alive = true;
    const image = new Image();
    image.decoding = 'async';
    image.onload = () => {
      if (alive) setState({ status: 'ready', url, image });
    };
    image.onerror = () => {
      if (!alive) return;
      setState({ status: 'failed', url });
      onExpired();
    };
    image.src = url;
    return () => {
      alive = false;
      image.onload = null;
      image.onerror = null;
    };
  }, [url, onExpired]);
  // The neighbours load in the background, so a page turn shows at once.
  const key = preload.join('\n');
  useEffect(() => {
    for (const u of key.split('\n').filter(Boolean)) {
      const i = new Image();
      i.src = u;
    }
  }, [key]);
  if (!url) return NONE;
  return loadedState.status !== 'none' && loadedState.url === url ? loadedState : { status: 'loading', url };
}
