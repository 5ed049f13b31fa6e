/**
 * The compositor's clock (compositor.ts): a worker's timers keep their rate in a hidden tab, where
 * the page's own timers are slowed to once a second. `{ fps }` starts it; terminate() ends it.
 * One tick at a time: the next is sent only once the page answered the last ('done'), so a page too
 * busy to draw 30 frames a second draws fewer instead of falling ever further behind.
 */
let timer: ReturnType<typeof setInterval> | null = null;
let waiting = false;

self.onmessage = (event: MessageEvent<{ fps?: number } | 'done'>) => {
  if (event.data === 'done') {
    waiting = false;
    return;
  }
  if (timer !== null) clearInterval(timer);
  waiting = false;
  const fps = Math.min(60, Math.max(1, Number(event.data.fps) || 30));
  timer = setInterval(() => {
    if (waiting) return;
    waiting = true;
    self.postMessage(0);
  }, 1000 / fps);
};
