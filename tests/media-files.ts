/**
 * The test files that record real media in real time (ffmpeg publishers, the SFU, decoders, x264):
 * their timing (A/V drift, a recorder's take-over, stop to MP4) is what they measure, so they run
 * as their own vitest project, one file at a time with nothing beside them (ADR 078). Read by
 * vitest.config.ts and tests/run.ts.
 */
export const MEDIA_FILES = [
  'tests/integration/recorder-engine.test.ts',
  'tests/integration/recorder-process.test.ts',
  'tests/integration/live-push.test.ts',
  'tests/integration/live-recorder.test.ts',
  'tests/integration/recording-whole.test.ts',
  'tests/integration/recorder-capacity.test.ts',
];
