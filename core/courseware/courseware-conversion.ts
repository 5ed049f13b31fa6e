/**
 * Courseware conversion (docs/product/03-board-courseware-billing.md §3; ADRs 040-044): the 'courseware.convert' job writes a
 * document's pages one by one and tells owners and rooms how it stands; the housekeeping jobs
 * forget stale uploads and drop upload keys no document uses.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Clock } from '../platform/clock.ts';
import { roomMessage, userMessage, type EventBus } from '../platform/events.ts';
import type { JobMeta, JobQueue } from '../platform/jobs.ts';
import type { Logger } from '../platform/logger.ts';
import type { ObjectStore } from '../platform/objects.ts';
import { SIGNED_URL_TTL_SECONDS } from '../contracts/courseware.ts';
import { ConvertError, conversionOutcome, type Converter, type ConvertedPage } from './converter.ts';
import type { DocumentRepository, DocumentRow } from './document.repository.ts';
import { extensionOf } from './names.ts';
import { type CoursewareConfig, type CoursewareRoom, noCourseware, pageKey, thumbKey, videoKey } from './courseware-room.ts';
import type { RoomState } from '../rooms/room-state.ts';
import { toDocumentInfo } from './courseware-library.ts';
import { md5File } from './hash-proof.ts';

/** A signed but unregistered upload is forgotten this long after its link expired. */
const STALE_UPLOAD_GRACE_MS = 600_000;

export class CoursewareConversion {
  private readonly repo: DocumentRepository;
  private readonly objects: ObjectStore;
  private readonly converter: Converter | null;
  private readonly bus: EventBus;
  private readonly room: CoursewareRoom;
  private readonly state: RoomState;
  private readonly clock: Clock;
  private readonly config: CoursewareConfig;
  private readonly logger: Logger;

  constructor(
    repo: DocumentRepository,
    objects: ObjectStore,
    converter: Converter | null,
    bus: EventBus,
    room: CoursewareRoom,
    state: RoomState,
    clock: Clock,
    config: CoursewareConfig,
    logger: Logger,
  ) {
    this.repo = repo;
    this.objects = objects;
    this.converter = converter;
    this.bus = bus;
    this.room = room;
    this.state = state;
    this.clock = clock;
    this.config = config;
    this.logger = logger;
  }

  get resourceType(): 1 | 2 {
    return this.objects.resourceType;
  }

  /** The 'courseware.dropUpload' job: an upload key no document uses any more is deleted. */
  async dropUpload(key: string): Promise<void> {
    if (await this.repo.anyBySourceKey(key)) return;
    await this.objects.delete(key);
  }

  /** Housekeeping: signed uploads never registered are forgotten (rows and whatever arrived). */
  async purgeStaleUploads(): Promise<number> {
    const before = new Date(this.clock.now().getTime() - SIGNED_URL_TTL_SECONDS * 1000 - STALE_UPLOAD_GRACE_MS);
    const rows = await this.repo.staleUploads(before);
    for (const r of rows) {
      await this.repo.delete(r.id);
      await this.objects.delete(r.source_key).catch(() => undefined);
    }
    return rows.length;
  }

  // ---- conversion (the 'courseware.convert' job) -----------------------------------------------

  /**
   * At a worker's start (ADR 068): each conversion left converting with no job waiting, running or
   * due for a retry is queued again (it starts over from page 1), unless its last job already used
   * up its retries (a file that keeps killing workers): that one fails with a reason, and can be deleted.
   */
  async resumeInterrupted(jobs: JobQueue): Promise<{ requeued: number; failed: number }> {
    const seen = new Set<string>();
    let requeued = 0;
    let failed = 0;
    for (const doc of await this.repo.converting()) {
      if (seen.has(doc.pages_prefix)) continue;
      seen.add(doc.pages_prefix);
      const states = await jobs.jobStates('courseware.convert', doc.pages_prefix);
      if (states.some((s) => s === 'created' || s === 'retry' || s === 'active')) continue;
      if (states[0] === 'failed') {
        const rows = await this.repo.updateConversion(doc.pages_prefix, { status: 2, fail_reason: 'failed', updated_at: this.clock.now() });
        await this.#announce(rows, 'failed', rows[0]?.page_count ?? 0, 0);
        failed++;
      } else {
        await jobs.send('courseware.convert', { documentId: doc.id }, { singletonKey: doc.pages_prefix });
        requeued++;
      }
    }
    if (requeued || failed) this.logger.warn({ requeued, failed }, 'courseware conversions left by a stopped worker');
    return { requeued, failed };
  }

  /** Tells the owners and the rooms showing any of these rows how the conversion stands. */
  async #announce(rows: DocumentRow[], phase: 'progress' | 'done' | 'failed', done: number, total: number): Promise<void> {
    for (const r of rows) this.bus.publish(userMessage(r.user_id, 'documentStatus', { document: toDocumentInfo(r) }));
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const shown of await this.repo.roomsShowing(rows.map((r) => r.id))) {
      const doc = byId.get(shown.document_id)!;
      const room = await this.repo.room(shown.room_number);
      if (!room || room.document_id !== doc.id) continue;
      if (phase === 'failed') {
        // 'parse failed' for the uploader; the courseware closes (docs/product/03-board-courseware-billing.md §4).
        await this.state.setCourseware(room.id, { document_id: null, ppt_current_page: 1, doc_scroll: 0, doc_video: '' });
      }
      const courseware = phase === 'failed' ? noCourseware(this.resourceType) : await this.room.block(room, doc);
      this.bus.publish(
        roomMessage(shown.room_number, 'documentConvert', {
          status: phase === 'failed' ? '500' : '200',
          phase,
          taskId: doc.task_id,
          documentId: doc.id,
          userId: doc.user_id,
          done,
          total,
          courseware,
        }),
      );
      if (phase === 'failed') this.bus.publish(roomMessage(shown.room_number, 'courseware', { courseware, by: '' }));
    }
  }

  /**
   * Converts one document: downloads the original to a temp dir, lets the converter write pages
   * one by one to the store (`pages/{n}.jpg`, `thumbs/{n}.jpg`), with progress after each page.
   * Idempotent: a retried attempt starts the pages again and overwrites the same keys.
   */
  async runConversion(payload: { documentId: string }, meta: JobMeta): Promise<void> {
    const doc = await this.repo.byId(payload.documentId);
    if (!doc || doc.status !== 1) return; // deleted, cancelled or already settled
    const prefix = doc.pages_prefix;
    const ext = extensionOf(doc.name) ?? 'pdf';
    const started = this.clock.now();
    // Which worker holds a conversion, for an operator reading the logs (and the failover test).
    this.logger.info({ documentId: doc.id, attempt: meta.retryCount }, 'courseware conversion started');
    await this.repo.updateConversion(prefix, { page_count: 0, page_sizes: '[]', fail_reason: '', updated_at: started });
    const dir = await mkdtemp(path.join(tmpdir(), 'banshu-convert-'));
    try {
      if (!this.converter) throw new Error('no courseware converter in this process');
      const file = path.join(dir, `source.${ext}`);
      if (!(await this.objects.download(doc.source_key, file))) throw new ConvertError('corrupt', 'the original is gone from the store');
      // The bytes checked at registration, not others written later behind a still valid upload link.
      if ((await md5File(file)) !== doc.file_hash) throw new ConvertError('corrupt', 'the stored original is not the registered file');
      const kind = await this.converter.sniff(file);
      if (!kind) throw new ConvertError('unsupported', 'not courseware by its content');
      const opts = {
        timeoutMs: this.config.COURSEWARE_CONVERT_SECONDS * 1000,
        maxPages: this.config.COURSEWARE_MAX_PAGES,
        signal: meta.signal,
      };
      if (kind === 'mp4') {
        const video = await this.converter.convertVideo(file, opts);
        try {
          await this.objects.putFile(videoKey(prefix), video.file, 'video/mp4');
        } finally {
          await rm(video.file, { force: true });
        }
        await this.objects.put(pageKey(prefix, 1), video.poster, 'image/jpeg');
        await this.objects.put(thumbKey(prefix, 1), video.poster, 'image/jpeg');
        const rows = await this.repo.updateConversion(prefix, {
          status: 3,
          page_count: 1,
          page_sizes: JSON.stringify([[video.width, video.height]]),
          updated_at: this.clock.now(),
        });
        await this.#announce(rows, 'done', 1, 1);
        return;
      }
      const sizes: Array<[number, number]> = [];
      const onPage = async (p: ConvertedPage, total: number) => {
        await this.objects.put(thumbKey(prefix, p.page), p.thumb, 'image/jpeg');
        await this.objects.put(pageKey(prefix, p.page), p.image, 'image/jpeg');
        sizes[p.page - 1] = [p.width, p.height];
        const rows = await this.repo.updateConversion(prefix, {
          page_count: p.page,
          page_sizes: JSON.stringify(sizes),
          updated_at: this.clock.now(),
        });
        await this.#announce(rows, 'progress', p.page, total);
      };
      const { pages } = await this.converter.convertDocument(file, kind, onPage, opts);
      const rows = await this.repo.updateConversion(prefix, {
        status: 3,
        page_count: pages,
        page_sizes: JSON.stringify(sizes.slice(0, pages)),
        updated_at: this.clock.now(),
      });
      await this.#announce(rows, 'done', pages, pages);
      this.logger.info({ documentId: doc.id, pages, ms: this.clock.now().getTime() - started.getTime() }, 'courseware converted');
    } catch (err) {
      const outcome = conversionOutcome(err, meta);
      if (outcome.retry) {
        this.logger.warn({ err, documentId: doc.id, attempt: meta.retryCount }, 'courseware conversion failed, will retry');
        throw err;
      }
      const { reason, retryable } = outcome;
      // 2: timed out or gave up after retries; 4: the file itself cannot be converted.
      const status = reason === 'timeout' || retryable ? 2 : 4;
      this.logger.warn({ err, documentId: doc.id, reason, status }, 'courseware conversion failed');
      const rows = await this.repo.updateConversion(prefix, { status, fail_reason: reason, updated_at: this.clock.now() });
      const done = rows[0]?.page_count ?? 0;
      await this.#announce(rows, 'failed', done, 0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
