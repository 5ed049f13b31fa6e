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

export function useSlideImage(url: string, onExpired: () => void, preload: string[] = []): SlideImage {
  const [state, setState] = useState<SlideImage>({ status: 'none' });
  useEffect(() => {
    if (!url) {
      setState({ status: 'none' });
      return;
    }
    let alive = true;
    const image = new Image();
    image.decoding = 'async';
    setState({ status: 'loading', url });
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
  return state;
}
