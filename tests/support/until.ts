/**
 * The one polling wait of the tests (issue 29: it had fifteen copies). Two forms:
 *
 *   await until('the peer to connect', () => peer.connected);
 *   const row = await until('the task to be done', () => taskRow(id), (r) => r.state === 'done', { timeoutMs: 30_000 });
 *
 * The first resolves once `check` holds; the second reads a value until `ok` passes on it and
 * returns that value. Either fails after the timeout with an error naming what was awaited (and,
 * in the second form, the last value read), so a red test says what never happened.
 * A number in place of the options is the timeout in milliseconds.
 */

export interface UntilOptions {
  /** How long to wait before failing (default 5 s). */
  timeoutMs?: number;
  /** How often to look (default 20 ms). */
  everyMs?: number;
}

type Options = UntilOptions | number;

const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_EVERY_MS = 20;

const options = (o: Options | undefined): Required<UntilOptions> =>
  typeof o === 'number'
    ? { timeoutMs: o, everyMs: DEFAULT_EVERY_MS }
    : { timeoutMs: o?.timeoutMs ?? DEFAULT_TIMEOUT_MS, everyMs: o?.everyMs ?? DEFAULT_EVERY_MS };

/** The last value read, short enough for an error message. */
function shown(v: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(v);
  } catch {
    text = undefined;
  }
  text ??= String(v);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

export function until(what: string, check: () => boolean | Promise<boolean>, opts?: Options): Promise<void>;
export function until<T>(what: string, read: () => T | Promise<T>, ok: (v: T) => boolean, opts?: Options): Promise<T>;
export async function until<T>(
  what: string,
  read: () => T | Promise<T>,
  okOrOpts?: ((v: T) => boolean) | Options,
  maybeOpts?: Options,
): Promise<T | void> {
  const ok = typeof okOrOpts === 'function' ? okOrOpts : undefined;
  const { timeoutMs, everyMs } = options(typeof okOrOpts === 'function' ? maybeOpts : okOrOpts);
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok ? ok(v) : v === true) return ok ? v : undefined;
    if (Date.now() > end) {
      throw new Error(`timed out after ${String(timeoutMs)} ms waiting for ${what}${ok ? ` (last: ${shown(v)})` : ''}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
