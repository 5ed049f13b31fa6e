/**
 * Job payloads are parsed by their job's schema when the worker takes them (core/jobs.ts): a
 * malformed one fails with its reason logged, the handler never sees it, and the worker goes on.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { parseJobPayload, startPgBoss, type JobQueue } from '#core/platform/jobs.ts';
import { capturingLogger } from '#tests/support/log-capture.ts';

const { logger, lines } = capturingLogger('info');
let pglite: PGlite;
let queue: JobQueue;
const seen: unknown[] = [];

beforeAll(async () => {
  pglite = new PGlite();
  queue = await startPgBoss({ pglite }, logger);
  await queue.work(
    'courseware.dropUpload',
    async (payload) => {
      seen.push(payload);
    },
    { pollingIntervalSeconds: 0.5 },
  );
});
afterAll(async () => {
  await queue.stop();
  await pglite.close();
});

it('parses each payload with its job schema', () => {
  expect(parseJobPayload('courseware.convert', { documentId: '12' })).toEqual({ documentId: '12' });
  expect(() => parseJobPayload('courseware.convert', { documentId: 12 })).toThrow(/malformed courseware\.convert payload/);
  expect(() => parseJobPayload('courseware.dropUpload', {})).toThrow(/key/);
});

it('fails a malformed job with a logged reason and keeps working', async () => {
  // What another process (an older version, a hand-written row) could put in the queue.
  await queue.send('courseware.dropUpload', { key: 42 } as never);
  await vi.waitFor(() => expect(lines.some((l) => l.msg === 'job payload malformed: the job fails without running')).toBe(true), {
    timeout: 20_000,
    interval: 100,
  });
  expect(seen).toEqual([]);
  await queue.send('courseware.dropUpload', { key: 'documentConvert/2026/01/01/a/a.pdf' });
  await vi.waitFor(() => expect(seen).toEqual([{ key: 'documentConvert/2026/01/01/a/a.pdf' }]), { timeout: 20_000, interval: 100 });
});
