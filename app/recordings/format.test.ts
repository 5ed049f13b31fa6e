import { describe, expect, it } from 'vitest';
import { appendPage, formatClock, formatDuration, formatRecordSize, nextCursor, recordButtonView, refreshFirstPage } from './format.ts';
import type { RecordRow } from '#core/contracts/recording.ts';

describe('formatRecordSize', () => {
  it('shows bytes, KB, MB and GB in 1024 steps', () => {
    expect(formatRecordSize('0')).toBe('0 B');
    expect(formatRecordSize('1023')).toBe('1023 B');
    expect(formatRecordSize('1024')).toBe('1.0 KB');
    expect(formatRecordSize('1536')).toBe('1.5 KB');
    expect(formatRecordSize(String(5 * 1024 * 1024 + 300 * 1024))).toBe('5.3 MB');
    expect(formatRecordSize(String(3 * 1024 ** 3))).toBe('3.0 GB');
    // GB is the largest unit.
    expect(formatRecordSize(String(2048 * 1024 ** 3))).toBe('2048.0 GB');
  });

  it('never shows 1024.0 of a unit', () => {
    expect(formatRecordSize(String(1024 * 1024 - 1))).toBe('1.0 MB');
    expect(formatRecordSize(String(1024 ** 3 - 10))).toBe('1.0 GB');
  });

  it('is null (transcoding) for an empty or unreadable size', () => {
    expect(formatRecordSize('')).toBeNull();
    expect(formatRecordSize('  ')).toBeNull();
    expect(formatRecordSize('-5')).toBeNull();
    expect(formatRecordSize('1e9')).toBeNull();
  });
});

describe('formatClock', () => {
  it('is mm:ss, minutes counting past the hour', () => {
    expect(formatClock(0)).toBe('00:00');
    expect(formatClock(999)).toBe('00:00');
    expect(formatClock(61_000)).toBe('01:01');
    expect(formatClock(75 * 60_000 + 3000)).toBe('75:03');
    expect(formatClock(-5000)).toBe('00:00');
  });
  it('is empty for an unknown duration', () => {
    expect(formatDuration(null)).toBe('');
    expect(formatDuration(59_400)).toBe('00:59');
  });
});

const row = (fileId: string, createTime: number): RecordRow => ({
  id: fileId,
  fileId,
  taskId: `t${fileId}`,
  fileName: `class ${fileId}`,
  fileSize: '100',
  durationMs: 1000,
  createTime,
  type: 2,
  roomNumber: '123456',
});

describe('paging', () => {
  it('appends a page without repeating rows and gives the last row as the cursor', () => {
    const a = [row('3', 300), row('2', 200)];
    const merged = appendPage(a, [row('2', 200), row('1', 100)]);
    expect(merged.map((r) => r.fileId)).toEqual(['3', '2', '1']);
    expect(nextCursor(merged)).toBe('100');
    expect(nextCursor([])).toBeUndefined();
  });

  it('a refreshed first page replaces its rows and keeps older loaded pages', () => {
    const shown = [row('4', 400), row('3', 300), row('2', 200), row('1', 100)];
    // A new recording (5), 4 finished transcoding (new size), page size 2.
    const first = [row('5', 500), { ...row('4', 400), fileSize: '999' }];
    const next = refreshFirstPage(shown, first, 2);
    expect(next.map((r) => r.fileId)).toEqual(['5', '4', '3', '2', '1']);
    expect(next[1]!.fileSize).toBe('999');
  });

  it('a short first page is the whole list (a deleted row goes)', () => {
    const shown = [row('2', 200), row('1', 100)];
    expect(refreshFirstPage(shown, [row('1', 100)], 10).map((r) => r.fileId)).toEqual(['1']);
  });
});

describe('recordButtonView', () => {
  it("'0' offers start, '2' waits disabled, '1' offers stop with mm:ss since it began", () => {
    expect(recordButtonView('0', null, 5000)).toEqual({ kind: 'start', disabled: false });
    expect(recordButtonView('2', null, 5000)).toEqual({ kind: 'starting', disabled: true });
    expect(recordButtonView('1', 1000, 1000 + 125_000)).toEqual({ kind: 'stop', disabled: false, elapsed: '02:05' });
    // Unknown start (a page that joined mid-recording before the server said when): from zero.
    expect(recordButtonView('1', null, 9999)).toMatchObject({ elapsed: '00:00' });
  });
  it('refuses clicks while a request is out or the channel is down', () => {
    expect(recordButtonView('0', null, 0, true).disabled).toBe(true);
    expect(recordButtonView('1', 0, 0, false, true).disabled).toBe(true);
    expect(recordButtonView('2', null, 0, false, false).disabled).toBe(true);
  });
});
