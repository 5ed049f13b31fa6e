import { describe, expect, it } from 'vitest';
import { downloadName, uploadPercent } from './format.ts';

describe('the save screen numbers', () => {
  it('shows the share of the take the store holds, 100 only when done', () => {
    expect(uploadPercent(null)).toBe(0);
    expect(uploadPercent({ phase: 'uploading', sentBytes: 0, totalBytes: 0 })).toBe(0);
    expect(uploadPercent({ phase: 'uploading', sentBytes: 5, totalBytes: 10 })).toBe(50);
    expect(uploadPercent({ phase: 'completing', sentBytes: 10, totalBytes: 10 })).toBe(99);
    expect(uploadPercent({ phase: 'waiting-network', sentBytes: 12, totalBytes: 10 })).toBe(99);
    expect(uploadPercent({ phase: 'done', sentBytes: 10, totalBytes: 10 })).toBe(100);
  });

  it('names the download after the file name and the container', () => {
    expect(downloadName(' 第一课 ', 'video/mp4')).toBe('第一课.mp4');
    expect(downloadName('Lesson', 'video/webm')).toBe('Lesson.webm');
    // A name typed with the extension already is not given a second one.
    expect(downloadName('第一课.mp4', 'video/mp4')).toBe('第一课.mp4');
  });
});
