import { describe, expect, it } from 'vitest';
import { downloadFileName, videoExtensionOf } from './recording.ts';

describe('download names', () => {
  it('end in the file’s real extension whatever the teacher typed', () => {
    expect(downloadFileName('第一课', 'mp4')).toBe('第一课.mp4');
    expect(downloadFileName('  第一课  ', 'mp4')).toBe('第一课.mp4');
    expect(downloadFileName('Lesson.MP4', 'mp4')).toBe('Lesson.MP4');
    expect(downloadFileName('Lesson.webm', 'mp4')).toBe('Lesson.mp4');
    expect(downloadFileName('Lesson .mp4', 'webm')).toBe('Lesson.webm');
    expect(downloadFileName('第一课.v2', 'mp4')).toBe('第一课.v2.mp4');
    expect(downloadFileName('', 'mp4')).toBe('recording.mp4');
    expect(downloadFileName('.webm', 'mp4')).toBe('recording.mp4');
  });

  it('take the extension from the stored object', () => {
    expect(videoExtensionOf('records/1/2/recording.mp4')).toBe('mp4');
    expect(videoExtensionOf('studio/1/2/take.WEBM')).toBe('webm');
    expect(videoExtensionOf('records/1/2/recording')).toBe('mp4');
    expect(videoExtensionOf('records/1/2/recording.ts')).toBe('mp4');
  });
});
