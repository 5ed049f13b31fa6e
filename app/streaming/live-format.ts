/**
 * How the live-streaming button and dialogs show things (issue 14, ADR 084): the elapsed time
 * (hh:mm:ss), the bitrate, the key and address checks (the contract's rules) as message keys, and
 * the failure wording.
 * Pure functions, tested without a DOM.
 */
import { CUSTOM_PLATFORM, customPushUrlProblem, streamKeyProblem, type LiveFailure } from '#core/contracts/streaming.ts';

/** hh:mm:ss since the stream went live (hours keep counting past 23); negative is 00:00:00. */
export function formatLiveClock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  return [hours, minutes, seconds].map((n) => String(n).padStart(2, '0')).join(':');
}

/** The push's bitrate: '850 kbit/s' below a megabit, else '2.9 Mbit/s'; null while unknown (0). */
export function formatKbps(kbps: number): string | null {
  if (!Number.isFinite(kbps) || kbps <= 0) return null;
  const whole = Math.round(kbps);
  if (whole < 1000) return `${whole} kbit/s`;
  return `${(whole / 1000).toFixed(1)} Mbit/s`;
}

/** The message keys (live.*) of the key or address field's inline problem. */
export type LiveFieldMessage = 'keyEmpty' | 'keyMalformed' | 'addressEmpty' | 'addressMalformed';

/** What is wrong with the key (named platform) or the address ('custom'), as a message key; null when it may be sent. */
export function liveFieldProblem(platform: string, raw: string): LiveFieldMessage | null {
  if (platform === CUSTOM_PLATFORM) {
    const problem = customPushUrlProblem(raw);
    return problem === 'empty' ? 'addressEmpty' : problem === 'malformed' ? 'addressMalformed' : null;
  }
  const problem = streamKeyProblem(raw);
  return problem === 'empty' ? 'keyEmpty' : problem === 'malformed' ? 'keyMalformed' : null;
}

/** The server's answers to startLive that belong to the field (shown under it, the dialog stays open). */
const FIELD_CODES: Record<string, LiveFieldMessage> = { '38001': 'keyMalformed', '38006': 'keyEmpty', '38005': 'addressMalformed' };

export function fieldMessageOfCode(code: string): LiveFieldMessage | null {
  return FIELD_CODES[code] ?? null;
}

const FAILURE_MESSAGES = {
  refused: 'failure.refused',
  unreachable: 'failure.unreachable',
  timeout: 'failure.timeout',
  failed: 'failure.failed',
} as const satisfies Record<LiveFailure, string>;

/** The failure dialog's message key for how a push ended on its own (the generic one when unknown). */
export function failureMessage(failure: LiveFailure | null | undefined): (typeof FAILURE_MESSAGES)[LiveFailure] {
  return (failure && FAILURE_MESSAGES[failure]) || FAILURE_MESSAGES.failed;
}

export type LiveButtonView =
  { kind: 'start'; disabled: boolean } | { kind: 'starting'; disabled: boolean } | { kind: 'live'; disabled: boolean; elapsed: string };

/**
 * The top bar's live button for a liveState: '0' start (opens the key dialog), '2' starting (opens
 * the loading dialog), '1' live with the time since it went live (opens the progress dialog).
 * `offline`: the room channel is down (nothing can be started or ended).
 */
export function liveButtonView(state: string, since: number | null, now: number, offline = false): LiveButtonView {
  if (state === '2') return { kind: 'starting', disabled: false };
  if (state === '1') return { kind: 'live', disabled: false, elapsed: formatLiveClock(since === null ? 0 : now - since) };
  return { kind: 'start', disabled: offline };
}
