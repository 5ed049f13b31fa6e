/**
 * How the recordings library and the record button show numbers: sizes in B/KB/MB/GB (1024 steps,
 * docs/product/03-board-courseware-billing.md §2.4), durations and elapsed time as mm:ss.
 */
import type { RecordRow } from '#core/contracts/recording.ts';

const UNITS = ['B', 'KB', 'MB', 'GB'] as const;

/**
 * A record's size as the list shows it; null while the size is empty (the MP4 is still being
 * made: the list says 'transcoding'). Whole bytes below 1 KB, else one decimal (two under 10 GB
 * would be noise), GB is the largest unit.
 */
export function formatRecordSize(fileSize: string): string | null {
  if (!/^\d{1,16}$/.test(fileSize.trim())) return null;
  let value = Number(fileSize.trim());
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${value} B`;
  // 1023.96 KB rounds to "1024.0 KB": say 1.0 MB instead.
  if (Number(value.toFixed(1)) >= 1024 && unit < UNITS.length - 1) return `1.0 ${UNITS[unit + 1]}`;
  return `${value.toFixed(1)} ${UNITS[unit]}`;
}

/** mm:ss (minutes keep counting past 59: a 75-minute class shows 75:03); negative is 00:00. */
export function formatClock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return `${String(minutes).padStart(2, '0')}:${String(seconds).padStart(2, '0')}`;
}

/** A duration for the list ('' when unknown). */
export function formatDuration(ms: number | null): string {
  return ms === null || !Number.isFinite(ms) || ms < 0 ? '' : formatClock(ms);
}

/** The list after one more page: rows kept in order, a row already shown is not shown twice. */
export function appendPage(shown: readonly RecordRow[], page: readonly RecordRow[]): RecordRow[] {
  const seen = new Set(shown.map((r) => r.fileId));
  return [...shown, ...page.filter((r) => !seen.has(r.fileId))];
}

/** The cursor for the next page: the last row's createTime, as the contract's string. */
export function nextCursor(rows: readonly RecordRow[]): string | undefined {
  const last = rows.at(-1);
  return last ? String(last.createTime) : undefined;
}

/**
 * A fresh first page merged with what is shown (a live refresh must not drop the pages the user
 * already loaded): the first page's rows replace their old copies and come first; older rows
 * stay below, except those the first page's time range covers but no longer lists (deleted).
 */
export function refreshFirstPage(shown: readonly RecordRow[], first: readonly RecordRow[], pageSize: number): RecordRow[] {
  if (first.length < pageSize) return [...first];
  const oldest = first.at(-1)!.createTime;
  const ids = new Set(first.map((r) => r.fileId));
  return [...first, ...shown.filter((r) => !ids.has(r.fileId) && r.createTime < oldest)];
}

export type RecordButtonView =
  { kind: 'start'; disabled: boolean } | { kind: 'starting'; disabled: true } | { kind: 'stop'; disabled: boolean; elapsed: string };

/**
 * The top bar's record button for a recordState (docs/product/decisions.md): '0' start, '2'
 * starting (disabled, waiting for a recorder), '1' stop with the time since it began. `busy`: a
 * start or stop request is out; `offline`: the room channel is down.
 */
export function recordButtonView(state: string, since: number | null, now: number, busy = false, offline = false): RecordButtonView {
  if (state === '2') return { kind: 'starting', disabled: true };
  if (state === '1') return { kind: 'stop', disabled: busy || offline, elapsed: formatClock(since === null ? 0 : now - since) };
  return { kind: 'start', disabled: busy || offline };
}
