/**
 * The recording studio's calls (issue 15, ADR 086). A take goes from the teacher's browser
 * straight to the object store: createUploadToken opens a multipart upload, signUploadParts signs
 * each part's PUT (its size signed), addlocalRecordFile joins the parts and lists the record in the
 * library's studio tab, and the 'studio.remux' job makes the fast-start MP4 (H.264 copied, Opus to
 * AAC) and its poster. Only the owner ever reaches an upload or a record: another user's token or
 * id is answered like a missing one.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Viewer } from '../account/account.service.ts';
import {
  STUDIO_MAX_PARTS,
  STUDIO_PART_BYTES,
  studioFileNameProblem,
  type StudioApiAnswers,
  type StudioMediaType,
} from '../contracts/studio.ts';
import { ConvertError, conversionOutcome, type Converter } from '../courseware/converter.ts';
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { DomainError, notAllowed } from '../platform/errors.ts';
import { userMessage, type EventBus } from '../platform/events.ts';
import type { JobMeta, JobQueue } from '../platform/jobs.ts';
import type { Logger } from '../platform/logger.ts';
import { MultipartRefused, type ObjectStore } from '../platform/objects.ts';
import type { RateLimiter } from '../platform/rate-limit.ts';
import type { StudioRepository, UploadRow } from './studio.repository.ts';

type StudioConfig = Pick<Config, 'STUDIO_MAX_MB' | 'STUDIO_UPLOADS_PER_HOUR' | 'STUDIO_UPLOAD_HOURS' | 'COURSEWARE_CONVERT_SECONDS'>;

/** A part's PUT link lasts an hour; the browser asks again for a part it had to wait for. */
const PART_URL_TTL_SECONDS = 3600;
/** How long a second save waits for the first one to finish joining the parts. */
const SAVE_WAIT_MS = 15_000;
/** A take's remux may take this long per hour of video at most (a copy of the picture, the sound re-encoded). */
const REMUX_SECONDS_MIN = 600;

const extensionOf = (t: StudioMediaType) => (t === 'video/webm' ? 'webm' : 'mp4');
const videoKey = (sourceKey: string) => `${path.posix.dirname(sourceKey)}/video.mp4`;
const posterKey = (sourceKey: string) => `${path.posix.dirname(sourceKey)}/poster.jpg`;

export class StudioService {
  private readonly repo: StudioRepository;
  private readonly objects: ObjectStore;
  private readonly converter: Converter | null;
  private readonly jobs: JobQueue | null;
  private readonly events: EventBus;
  private readonly limiter: RateLimiter;
  private readonly clock: Clock;
  private readonly config: StudioConfig;
  private readonly logger: Logger;

  constructor(o: {
    repo: StudioRepository;
    objects: ObjectStore;
    converter: Converter | null;
    jobs: JobQueue | null;
    events: EventBus;
    limiter: RateLimiter;
    clock: Clock;
    config: StudioConfig;
    logger: Logger;
  }) {
    this.repo = o.repo;
    this.objects = o.objects;
    this.converter = o.converter;
    this.jobs = o.jobs;
    this.events = o.events;
    this.limiter = o.limiter;
    this.clock = o.clock;
    this.config = o.config;
    this.logger = o.logger;
  }

  get maxBytes(): number {
    return this.config.STUDIO_MAX_MB * 1024 * 1024;
  }

  async createUploadToken(viewer: Viewer, mediaType: StudioMediaType): Promise<StudioApiAnswers['createUploadToken']> {
    // The studio is a teacher's tool: a visitor's session opens nothing (and so owns no upload below).
    if (viewer.type !== '1') throw notAllowed('the studio is for signed-in teachers');
    if (!(await this.limiter.hit(`studio-upload:user:${viewer.userId}`, this.config.STUDIO_UPLOADS_PER_HOUR, 3_600_000))) {
      throw new DomainError('39006');
    }
    const now = this.clock.now();
    const token = randomBytes(24).toString('base64url');
    const key = `studio/${viewer.userId}/${token}/source.${extensionOf(mediaType)}`;
    const storeUploadId = await this.objects.createMultipart(key, mediaType);
    const expiresAt = new Date(now.getTime() + this.config.STUDIO_UPLOAD_HOURS * 3_600_000);
    await this.repo.insertUpload({
      token,
      user_id: viewer.userId,
      object_key: key,
      store_upload_id: storeUploadId,
      media_type: mediaType,
      state: 'open',
      created_at: now,
      expires_at: expiresAt,
    });
    return { uploadToken: token, partBytes: STUDIO_PART_BYTES, maxBytes: this.maxBytes, expiresAt: expiresAt.getTime() };
  }

  /** The caller's upload while it takes parts; anything else (another user's, saved, dropped, expired) is 39001. */
  async #open(viewer: Viewer, token: string): Promise<UploadRow> {
    const u = await this.repo.ownUpload(viewer.userId, token);
    if (!u || u.state !== 'open' || u.expires_at.getTime() <= this.clock.now().getTime()) throw new DomainError('39001');
    return u;
  }

  async signUploadParts(
    viewer: Viewer,
    i: { uploadToken: string; parts: Array<{ partNumber: number; size: number }> },
  ): Promise<StudioApiAnswers['signUploadParts']> {
    const u = await this.#open(viewer, i.uploadToken);
    for (const p of i.parts) {
      // Part n holds bytes (n-1)*P .. : one that would end past the operator's limit is refused.
      if ((p.partNumber - 1) * STUDIO_PART_BYTES + p.size > this.maxBytes) throw new DomainError('39002');
    }
    const parts = await Promise.all(
      i.parts.map(async (p) => {
        const signed = await this.objects.signedPartUrl(u.object_key, u.store_upload_id, p.partNumber, p.size, PART_URL_TTL_SECONDS);
        return { partNumber: p.partNumber, url: signed.url, headers: signed.headers, expiresAt: signed.expiresAt };
      }),
    );
    return { parts };
  }

  /**
   * Joins the parts and lists the record. The same upload saved again (a double submit, a retry
   * whose answer was lost) answers the record it made; a save already joining is waited for.
   */
  async addlocalRecordFile(
    viewer: Viewer,
    i: { fileName: string; fileUrl: string; parts: Array<{ partNumber: number; etag: string }>; durationMs?: number | undefined },
  ): Promise<StudioApiAnswers['addlocalRecordFile']> {
    const problem = studioFileNameProblem(i.fileName);
    if (problem) throw new DomainError(problem === 'empty' ? '39003' : '39004');
    const fileName = i.fileName.trim();
    const sorted = [...i.parts].sort((a, b) => a.partNumber - b.partNumber);
    // Parts 1..n, each once: the take's bytes in order with nothing left out.
    if (sorted.length > STUDIO_MAX_PARTS || sorted.some((p, n) => p.partNumber !== n + 1)) throw new DomainError('39005');
    let u = await this.repo.ownUpload(viewer.userId, i.fileUrl);
    if (!u) throw new DomainError('39001');
    if (!(await this.repo.claimForSaving(u.id, this.clock.now()))) return { fileId: await this.#savedBefore(viewer, i.fileUrl) };
    let bytes: number;
    try {
      bytes = await this.objects.completeMultipart(u.object_key, u.store_upload_id, sorted);
    } catch (err) {
      await this.repo.reopen(u.id);
      if (err instanceof MultipartRefused) {
        this.logger.info({ err: err.message, upload: u.id }, 'studio save refused: the parts do not make the take');
        throw new DomainError('39005');
      }
      throw err;
    }
    if (bytes > this.maxBytes) {
      await this.objects.delete(u.object_key);
      await this.repo.markAborted(u.id);
      throw new DomainError('39002');
    }
    u = { ...u, state: 'saving' };
    const fileId = await this.repo.saveRecord(u, { fileName, durationMs: i.durationMs ?? null, now: this.clock.now() });
    this.logger.info({ fileId, bytes, parts: sorted.length }, 'studio take saved');
    await this.#queueRemux(fileId);
    return { fileId };
  }

  /** The record an earlier save of this upload made (waiting while that save is still joining the parts). */
  async #savedBefore(viewer: Viewer, token: string): Promise<string> {
    const until = Date.now() + SAVE_WAIT_MS;
    for (;;) {
      const u = await this.repo.ownUpload(viewer.userId, token);
      if (u?.state === 'saved' && u.record_id) return u.record_id;
      if (!u || u.state !== 'saving' || Date.now() > until) throw new DomainError('39001');
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async #queueRemux(recordId: string): Promise<void> {
    if (!this.jobs) {
      this.logger.warn({ recordId }, 'no job queue in this process: the studio take waits for a worker');
      return;
    }
    await this.jobs.send('studio.remux', { recordId }, { singletonKey: `studio-${recordId}` });
  }

  async abortUpload(viewer: Viewer, token: string): Promise<StudioApiAnswers['abortUpload']> {
    const u = await this.repo.ownUpload(viewer.userId, token);
    if (!u || u.state === 'saving' || u.state === 'saved') throw new DomainError('39001');
    if (u.state === 'open' && (await this.repo.abort(u.id))) await this.#dropParts(u);
    return {};
  }

  async #dropParts(u: UploadRow): Promise<void> {
    try {
      await this.objects.abortMultipart(u.object_key, u.store_upload_id);
    } catch (err) {
      this.logger.warn({ err, upload: u.id }, 'the store kept the parts of a dropped studio upload (its lifecycle rule removes them)');
    }
  }

  /** Hourly: uploads never saved within STUDIO_UPLOAD_HOURS are dropped with their parts (the take stays in the browser). */
  async purgeExpired(): Promise<number> {
    let n = 0;
    for (const u of await this.repo.expired(this.clock.now(), 500)) {
      await this.repo.markAborted(u.id);
      await this.#dropParts(u);
      n++;
    }
    if (n) this.logger.info({ uploads: n }, 'expired studio uploads dropped');
    return n;
  }

  /**
   * The job: downloads the joined take, remuxes it (workers/convert: H.264 copied, the sound to
   * AAC, moov first), stores the MP4 and its poster, and tells the owner's pages. Idempotent: a
   * retried attempt writes the same keys.
   */
  async remux(payload: { recordId: string }, meta: JobMeta): Promise<void> {
    const r = await this.repo.record(payload.recordId);
    if (!r || r.deleted_at || r.object_key || r.failure || !r.source_key) return;
    const sourceKey = r.source_key;
    const dir = await mkdtemp(path.join(tmpdir(), 'banshu-studio-'));
    const started = Date.now();
    try {
      if (!this.converter) throw new Error('no video converter in this process');
      const file = path.join(dir, path.posix.basename(sourceKey));
      const info = await this.objects.download(sourceKey, file);
      if (!info) throw new ConvertError('corrupt', 'the take is gone from the store');
      const video = await this.converter.convertVideo(file, {
        timeoutMs: Math.max(REMUX_SECONDS_MIN, this.config.COURSEWARE_CONVERT_SECONDS) * 1000,
        signal: meta.signal,
        acceptWebm: true,
      });
      let bytes: number;
      try {
        await this.objects.putFile(videoKey(sourceKey), video.file, 'video/mp4');
        bytes = (await this.objects.head(videoKey(sourceKey)))?.size ?? 0;
      } finally {
        await rm(video.file, { force: true });
      }
      await this.objects.put(posterKey(sourceKey), video.poster, 'image/jpeg');
      const kept = await this.repo.made(r.id, {
        objectKey: videoKey(sourceKey),
        posterKey: posterKey(sourceKey),
        bytes,
        durationMs: video.durationMs,
      });
      await this.objects.delete(sourceKey);
      if (!kept) {
        // Deleted while it was made: nothing of it stays.
        await this.objects.delete(videoKey(sourceKey));
        await this.objects.delete(posterKey(sourceKey));
        return;
      }
      this.logger.info({ fileId: r.id, bytes, durationMs: video.durationMs, ms: Date.now() - started }, 'studio take made into an MP4');
      this.events.publish(userMessage(r.user_id, 'studioRecord', { fileId: r.id, state: 'ready', fileSize: String(bytes) }));
    } catch (err) {
      const outcome = conversionOutcome(err, meta);
      if (outcome.retry) {
        this.logger.warn({ err, fileId: r.id, attempt: meta.retryCount }, 'studio remux failed, will retry');
        throw err;
      }
      const { reason } = outcome;
      this.logger.warn({ err, fileId: r.id, reason }, 'studio take could not be made into an MP4');
      await this.repo.failed(r.id, reason);
      this.events.publish(userMessage(r.user_id, 'studioRecord', { fileId: r.id, state: 'failed', fileSize: '' }));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** At a worker's start (ADR 068): a saved take whose job was lost is queued again. */
  async resumeInterrupted(jobs: JobQueue): Promise<number> {
    let n = 0;
    for (const r of await this.repo.unmade(1000)) {
      const states = await jobs.jobStates('studio.remux', `studio-${r.id}`);
      if (states.some((s) => s === 'created' || s === 'retry' || s === 'active')) continue;
      if (states[0] === 'failed') {
        await this.repo.failed(r.id, 'failed');
        continue;
      }
      await jobs.send('studio.remux', { recordId: r.id }, { singletonKey: `studio-${r.id}` });
      n++;
    }
    if (n) this.logger.warn({ requeued: n }, 'studio remuxes left by a stopped worker');
    return n;
  }
}
