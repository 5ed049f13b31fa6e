/**
 * The timer's short sound at zero (ADR 114): two soft beeps made with WebAudio, nothing to
 * download. The browser lets a page play sound once the person has interacted with it (the
 * pre-join's Join button is such an interaction); a context the browser keeps suspended stays silent.
 */
let context: AudioContext | null = null;
/** What has been played, for the e2e tests: how many times, and the context's state the last time. */
export const beeps = { count: 0, state: '' as string };

export function beep(): void {
  if (typeof window === 'undefined' || typeof window.AudioContext === 'undefined') return;
  try {
    context ??= new window.AudioContext();
    const ctx = context;
    if (ctx.state === 'suspended') void ctx.resume();
    const start = ctx.currentTime + 0.02;
    for (const [i, freq] of [880, 1320].entries()) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = 'sine';
      osc.frequency.value = freq;
      const at = start + i * 0.22;
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(0.25, at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.18);
      osc.connect(gain).connect(ctx.destination);
      osc.start(at);
      osc.stop(at + 0.2);
    }
    beeps.count += 1;
    beeps.state = ctx.state;
  } catch {
    // No sound device, or the browser refused: the timer still says it visibly.
  }
}
