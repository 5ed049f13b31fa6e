/**
 * The courseware library (docs/product/03-board-courseware-billing.md §2.1, §3, §7; ADRs 040-044, 056): each user's documents, uploads
 * signed for the object store and checked by content when registered, hash matches, deletes and
 * lists. Registering with a room number shows the document there (CoursewareRoom). The hash
 * challenge for reusing a file someone else stored is hash-proof.ts.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Clock } from '../platform/clock.ts';
import { DomainError } from '../platform/errors.ts';
import { roomMessage, userMessage, type EventBus } from '../platform/events.ts';
import type { JobQueue } from '../platform/jobs.ts';
import type { Logger } from '../platform/logger.ts';
import type { ObjectStore } from '../platform/objects.ts';
import type { RateLimiter } from '../platform/rate-limit.ts';
import { TokenSigner } from '../platform/secrets.ts';
import {
  SIGNED_URL_TTL_SECONDS,
  type HashChallenge,
  type DocumentInfo,
  type DocumentStatus,
  type DocumentType,
  type RoomCourseware,
} from '../contracts/courseware.ts';
import type { Converter } from './converter.ts';
import { HashProof, md5File } from './hash-proof.ts';
import type { DocumentRepository, DocumentRow } from './document.repository.ts';
import { CONTENT_TYPES, displayName, documentTypeOf, extensionOf, keyFileName, kindFitsExtension } from './names.ts';
import { type CoursewareConfig, type CoursewareRoom, noCourseware, pageKey, thumbKey, videoKey } from './courseware-room.ts';
import type { RoomState } from '../rooms/room-state.ts';

/**
 * Where a registered upload's checked bytes live: `{prefix}/{name}` -> `{prefix}/source/{tag}/{name}`
 * (the tag keeps two registrations racing for one upload from writing the same object).
 */
export function verifiedSourceKey(uploadKey: string, tag: string): string {
  const cut = uploadKey.lastIndexOf('/');
  return `${uploadKey.slice(0, cut)}/source/${tag}${uploadKey.slice(cut)}`;
}

export function toDocumentInfo(r: DocumentRow): DocumentInfo {
  return {
    documentId: r.id,
    documentName: r.name,
    documentSource: r.source_key,
    fileHash: r.file_hash,
    taskId: r.task_id,
    documentType: r.document_type as DocumentType,
    status: r.status as DocumentStatus,
    size: Number(r.size),
    pageCount: r.page_count,
    createTime: r.created_at.getTime(),
    failReason: r.fail_reason,
  };
}

export type RegisterInput = {
  documentSource: string;
  documentName: string;
  roomNumber?: string | undefined;
  fileHash: string;
  documentType: DocumentType;
  nonce?: string | undefined;
  rangeHash?: string | undefined;
};

/** The challenge's answer over a stream of the file (hash-proof.ts); the browser's uploader is checked against it. */
export { rangeAnswer } from './hash-proof.ts';

export class CoursewareLibrary {
  private readonly repo: DocumentRepository;
  private readonly objects: ObjectStore;
  private readonly converter: Converter | null;
  private readonly jobs: JobQueue | null;
  private readonly bus: EventBus;
  private readonly limiter: RateLimiter;
  private readonly room: CoursewareRoom;
  private readonly state: RoomState;
  private readonly clock: Clock;
  private readonly config: CoursewareConfig;
  private readonly logger: Logger;
  /** The hash challenge of a file someone else stored (ADR 069). */
  readonly #proof: HashProof;

  constructor(
    repo: DocumentRepository,
    objects: ObjectStore,
    converter: Converter | null,
    jobs: JobQueue | null,
    bus: EventBus,
    limiter: RateLimiter,
    room: CoursewareRoom,
    state: RoomState,
    clock: Clock,
    config: CoursewareConfig,
    logger: Logger,
    signer?: TokenSigner,
  ) {
    // A process of its own signs its challenges with a random key; every web process of one
    // deployment shares the platform's secret.
    this.#proof = new HashProof(signer ?? new TokenSigner(randomBytes(32).toString('hex')), objects, clock);
    this.repo = repo;
    this.objects = objects;
    this.converter = converter;
    this.jobs = jobs;
    this.bus = bus;
    this.limiter = limiter;
    this.room = room;
    this.state = state;
    this.clock = clock;
    this.config = config;
    this.logger = logger;
  }

  get resourceType(): 1 | 2 {
    return this.objects.resourceType;
  }

  /** `/api/analysisDocumentExisting`: open a converted document of the caller's library in the caller's room. */
  async openExisting(viewer: { userId: string }, documentId: string, roomNumber: string): Promise<{ courseware: RoomCourseware }> {
    const room = await this.room.creatorRoom(viewer.userId, roomNumber);
    const doc = await this.#own(viewer.userId, documentId);
    if (doc.status !== 3) throw new DomainError('34008');
    return { courseware: await this.room.show(room, doc, viewer.userId) };
  }

  // ---- library --------------------------------------------------------------------------------

  async #own(userId: string, documentId: string): Promise<DocumentRow> {
    const doc = await this.repo.byId(documentId);
    if (!doc || doc.user_id !== userId || doc.status === 0) throw new DomainError('34006');
    return doc;
  }

  /**
   * `/api/checkFileHash`: the caller's own document of these bytes, or whether anyone's conversion
   * can be reused; that one only with the answer to the challenge (ADR 069: a hash is no proof of
   * having the file).
   */
  async checkFileHash(
    viewer: { userId: string },
    fileHash: string,
  ): Promise<{ fileExist: boolean; documentInfo: DocumentInfo | null; challenge: HashChallenge | null }> {
    const own = await this.repo.ownByHash(viewer.userId, fileHash);
    if (own) return { fileExist: true, documentInfo: toDocumentInfo(own), challenge: null };
    // Someone else's: reusable, but their document (ids, name) stays theirs.
    const other = await this.repo.reusableByHash(fileHash);
    // The challenge comes with any reusable file, converted or still converting (joined without upload).
    const challenge = other ? this.#proof.challenge(viewer.userId, fileHash, Number(other.size)) : null;
    return { fileExist: !!other && other.status === 3, documentInfo: null, challenge };
  }

  /** `/api/createUpyunSign`: a presigned PUT for one courseware file; the upload waits (status 0) for registration. */
  async signUpload(
    viewer: { userId: string },
    input: { fileName: string; fileSize: number; fileHash: string; roomNumber?: string | undefined },
  ): Promise<{
    uploadUrl: string;
    method: 'PUT';
    headers: Record<string, string>;
    saveName: string;
    expiresAt: number;
    resourceType: 1 | 2;
  }> {
    const name = displayName(input.fileName);
    const ext = name ? extensionOf(name) : null;
    if (!name || !ext) throw new DomainError('34001');
    if (input.fileSize > this.config.COURSEWARE_MAX_BYTES) throw new DomainError('34002');
    if (input.fileSize === 0) throw new DomainError('34003', 'empty file');
    if (input.roomNumber !== undefined && input.roomNumber !== '') await this.room.creatorRoom(viewer.userId, input.roomNumber);
    if (!(await this.limiter.hit(`courseware-sign:${viewer.userId}`, this.config.COURSEWARE_UPLOADS_PER_HOUR, 3600_000)))
      throw new DomainError('34011');
    const now = this.clock.now();
    const unique = randomUUID().replace(/-/g, '');
    const day = `${now.getUTCFullYear()}/${String(now.getUTCMonth() + 1).padStart(2, '0')}/${String(now.getUTCDate()).padStart(2, '0')}`;
    const prefix = ext === 'mp4' ? `documentConvert/videos/${day}/${unique}` : `documentConvert/${day}/${unique}`;
    const key = `${prefix}/${keyFileName(name, ext)}`;
    const signed = await this.objects.signedPutUrl(key, CONTENT_TYPES[ext], input.fileSize, SIGNED_URL_TTL_SECONDS);
    await this.repo.insert({
      user_id: viewer.userId,
      name,
      source_key: key,
      pages_prefix: prefix,
      file_hash: input.fileHash,
      task_id: randomUUID(),
      document_type: documentTypeOf(ext),
      status: 0,
      size: input.fileSize,
      created_at: now,
      updated_at: now,
    });
    return {
      uploadUrl: signed.url,
      method: 'PUT',
      headers: signed.headers,
      saveName: key,
      expiresAt: signed.expiresAt,
      resourceType: this.resourceType,
    };
  }

  /** `/api/updateDocumentNotice`: the uploader cancelled; the pending upload and whatever arrived of it are forgotten. */
  async cancelUpload(
    viewer: { userId: string },
    input: { roomNumber: string; documentSource?: string | undefined; taskId?: string | undefined },
  ): Promise<null> {
    const pending = await this.repo.pendingUpload(viewer.userId, { sourceKey: input.documentSource, taskId: input.taskId });
    if (!pending) {
      // Registered a moment before the cancel arrived: nothing is pending any more.
      const done = input.taskId ? await this.repo.byTaskId(input.taskId) : undefined;
      if (done && done.user_id === viewer.userId) return null;
      throw new DomainError('34006');
    }
    await this.repo.delete(pending.id);
    await this.objects.delete(pending.source_key).catch((err: unknown) => this.logger.warn({ err }, 'cancelled upload not deleted'));
    return null;
  }

  /**
   * `/api/addRoomDocument`: registers an uploaded file (checked here: it exists, has the signed
   * size, the claimed MD5 and courseware content) and queues its conversion, or registers a hash
   * match without upload or conversion; with a room number the creator's room shows it.
   */
  async register(
    viewer: { userId: string },
    input: RegisterInput,
  ): Promise<{ taskId: string; documentId: string; documentStatus: DocumentStatus; courseware: RoomCourseware | null }> {
    const room =
      input.roomNumber !== undefined && input.roomNumber !== '' ? await this.room.creatorRoom(viewer.userId, input.roomNumber) : null;
    const pending = input.documentSource ? await this.repo.pendingUpload(viewer.userId, { sourceKey: input.documentSource }) : undefined;
    let doc: DocumentRow;
    let queue: (() => Promise<void>) | null = null;
    // The same upload registered a moment ago (a double click): its row already left the link.
    const registered = !pending && input.documentSource ? await this.repo.registeredUpload(viewer.userId, input.documentSource) : undefined;
    if (pending) {
      if (pending.file_hash !== input.fileHash || pending.document_type !== input.documentType)
        throw new DomainError('34005', 'not what was signed');
      ({ doc, queue } = await this.#registerUpload(pending));
    } else if (registered && registered.file_hash === input.fileHash && registered.document_type === input.documentType) {
      doc = registered;
    } else {
      doc = await this.#registerHashMatch(viewer.userId, input);
    }
    // The room shows the document before its conversion is queued: a conversion that fails at
    // once then finds the room showing it and closes it there, instead of the room showing a
    // failed document because the show came after the failure.
    let courseware = room ? await this.room.show(room, doc, viewer.userId) : null;
    if (queue) await queue();
    else if (room && doc.status === 1) {
      // Joined a conversion someone else's upload started: it may have failed meanwhile.
      const latest = await this.repo.byId(doc.id);
      if (latest && (latest.status === 2 || latest.status === 4)) {
        doc = latest;
        await this.room.hide(room, viewer.userId);
        courseware = noCourseware(this.resourceType);
      }
    }
    return { taskId: doc.task_id, documentId: doc.id, documentStatus: doc.status as DocumentStatus, courseware };
  }

  /** Checks and keeps the upload; `queue` (when set) queues its conversion, once the room shows it. */
  async #registerUpload(row: DocumentRow): Promise<{ doc: DocumentRow; queue: (() => Promise<void>) | null }> {
    let pending = row;
    const ext = extensionOf(pending.name);
    if (!ext) throw new DomainError('34001');
    if (!this.converter || !this.jobs) throw new DomainError('34012');
    const { converter, jobs } = this;
    // The checked bytes are stored under a key no signed link points to, and the uploaded object
    // goes: the uploader's link stays valid until it expires, and a second PUT to it (S3 allows
    // one) must not change a file others may share by its hash or download (ADR 056).
    const verifiedKey = verifiedSourceKey(pending.source_key, randomUUID().slice(0, 8));
    const verify = async (): Promise<void> => {
      const info = await this.objects.head(pending.source_key);
      if (!info || info.size !== Number(pending.size))
        throw new DomainError('34004', info ? `size ${info.size} of ${String(pending.size)}` : 'missing');
      const dir = await mkdtemp(path.join(tmpdir(), 'banshu-upload-'));
      try {
        const file = path.join(dir, `source.${ext}`);
        if (!(await this.objects.download(pending.source_key, file))) throw new DomainError('34004');
        const [hash, kind] = await Promise.all([md5File(file), converter.sniff(file)]);
        const refuse = async (code: '34003' | '34005', detail: string) => {
          // Nothing half-written: the refused upload and its pending row are gone.
          await this.repo.delete(pending.id);
          await this.objects.delete(pending.source_key).catch(() => undefined);
          throw new DomainError(code, detail);
        };
        if (hash !== pending.file_hash) return await refuse('34005', 'md5 differs');
        if (!kind || !kindFitsExtension(kind, ext)) return await refuse('34003', `content ${kind ?? 'unknown'} named .${ext}`);
        await this.objects.putFile(verifiedKey, file, CONTENT_TYPES[ext]);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    };
    try {
      await verify();
    } catch (err) {
      // A second registration of the same upload (a double click) that lost the race finds the
      // object gone: the first one's outcome is the answer.
      const current = await this.repo.byId(pending.id);
      if (current && current.source_key !== pending.source_key) return { doc: current, queue: null };
      throw err;
    }
    if (!(await this.repo.moveSource(pending.id, pending.source_key, verifiedKey))) {
      // Cancelled, or registered by a double click meanwhile: that path owns the row.
      await this.objects.delete(verifiedKey).catch(() => undefined);
      const current = await this.repo.byId(pending.id);
      if (!current) throw new DomainError('34004', 'cancelled meanwhile');
      return { doc: current, queue: null };
    }
    await this.objects.delete(pending.source_key).catch((err: unknown) => this.logger.warn({ err }, 'uploaded object not deleted'));
    // S3 takes a PUT to the link until it expires: whatever lands there then is deleted after.
    if (this.resourceType === 2) {
      await jobs
        .send('courseware.dropUpload', { key: pending.source_key }, { startAfterSeconds: SIGNED_URL_TTL_SECONDS + 60 })
        .catch((err: unknown) => this.logger.warn({ err }, 'upload link clean-up not queued'));
    }
    const moved = await this.repo.byId(pending.id);
    if (!moved) throw new DomainError('34004', 'cancelled meanwhile');
    pending = moved;
    const now = this.clock.now();
    // Someone converted (or is converting) the same bytes meanwhile: share that, drop this copy.
    const reusable = await this.repo.reusableByHash(pending.file_hash, pending.pages_prefix);
    if (reusable && reusable.document_type === pending.document_type) {
      await this.repo.update(pending.id, {
        source_key: reusable.source_key,
        pages_prefix: reusable.pages_prefix,
        status: reusable.status,
        page_count: reusable.page_count,
        page_sizes: reusable.page_sizes,
        updated_at: now,
      });
      await this.objects.delete(pending.source_key).catch(() => undefined);
      const doc = await this.#settleShared((await this.repo.byId(pending.id))!, reusable.id);
      this.bus.publish(userMessage(doc.user_id, 'addDocumentConvertEvent', { document: toDocumentInfo(doc) }));
      return { doc, queue: null };
    }
    // A second registration of the same upload (a double click) queues nothing more.
    const claimed = await this.repo.claimPending(pending.id, now);
    const doc = await this.repo.byId(pending.id);
    if (!doc) throw new DomainError('34004', 'cancelled meanwhile');
    if (!claimed) return { doc, queue: null };
    const queue = async () => {
      await this.#queue(doc);
      this.bus.publish(userMessage(doc.user_id, 'addDocumentConvertEvent', { document: toDocumentInfo(doc) }));
    };
    return { doc, queue };
  }

  /** A row that joined a conversion still running may have missed its end: copy the outcome. */
  async #settleShared(doc: DocumentRow, sourceId: string): Promise<DocumentRow> {
    if (doc.status !== 1) return doc;
    const source = await this.repo.byId(sourceId);
    if (!source || source.status === 1 || source.pages_prefix !== doc.pages_prefix) return doc;
    await this.repo.update(doc.id, {
      status: source.status,
      page_count: source.page_count,
      page_sizes: source.page_sizes,
      fail_reason: source.fail_reason,
      updated_at: this.clock.now(),
    });
    return (await this.repo.byId(doc.id))!;
  }

  async #registerHashMatch(userId: string, input: RegisterInput): Promise<DocumentRow> {
    const own = await this.repo.ownByHash(userId, input.fileHash);
    if (own) return own;
    const reusable = await this.repo.reusableByHash(input.fileHash);
    if (!reusable || reusable.document_type !== input.documentType)
      throw new DomainError('34004', 'no upload and no stored file of this hash');
    // Another user's file: knowing its hash is not having it (ADR 069).
    if (!(await this.#proof.proves(userId, reusable, input))) throw new DomainError('34015', 'no proof of having the file');
    const name = displayName(input.documentName);
    if (!name) throw new DomainError('34001');
    const now = this.clock.now();
    const row = await this.repo.insert({
      user_id: userId,
      name,
      source_key: reusable.source_key,
      pages_prefix: reusable.pages_prefix,
      file_hash: input.fileHash,
      task_id: randomUUID(),
      document_type: reusable.document_type,
      status: reusable.status,
      size: reusable.size,
      page_count: reusable.page_count,
      page_sizes: reusable.page_sizes,
      created_at: now,
      updated_at: now,
    });
    const doc = await this.#settleShared(row, reusable.id);
    this.bus.publish(userMessage(userId, 'addDocumentConvertEvent', { document: toDocumentInfo(doc) }));
    return doc;
  }

  async #queue(doc: DocumentRow): Promise<void> {
    if (!this.jobs) throw new DomainError('34012', 'no job queue in this process');
    await this.jobs.send('courseware.convert', { documentId: doc.id }, { singletonKey: doc.pages_prefix });
  }

  /** `/api/getMyDocumentList`: newest first, registered documents only. */
  async list(
    viewer: { userId: string },
    input: { pageNo?: number | undefined; pageSize?: number | undefined },
  ): Promise<{ documentList: DocumentInfo[]; total: number }> {
    const pageSize = input.pageSize ?? 10;
    const pageNo = input.pageNo ?? 1;
    const { rows, total } = await this.repo.list(viewer.userId, (pageNo - 1) * pageSize, pageSize);
    return { documentList: rows.map(toDocumentInfo), total };
  }

  /** `/api/delUserDocument`: own documents not converting (2, 3, 4); stored files go unless another document shares them. */
  async delete(viewer: { userId: string }, input: { taskId: string; documentId: string }): Promise<null> {
    const doc = await this.#own(viewer.userId, input.documentId);
    if (doc.task_id !== input.taskId) throw new DomainError('34006');
    // A conversion that timed out or gave up (2) is as final as one that failed (4, ADR 068).
    if (doc.status === 1) throw new DomainError('34007');
    const showing = await this.repo.roomsShowing([doc.id]);
    // What the foreign key would do on delete, through RoomState so every cache hears of it.
    for (const r of showing) await this.state.setCourseware(r.id, { document_id: null });
    await this.repo.delete(doc.id);
    for (const r of showing) {
      this.bus.publish(roomMessage(r.room_number, 'courseware', { courseware: noCourseware(this.resourceType), by: viewer.userId }));
    }
    if ((await this.repo.countSharing('pages_prefix', doc.pages_prefix, doc.id)) === 0) await this.#deleteObjects(doc);
    return null;
  }

  async #deleteObjects(doc: DocumentRow): Promise<void> {
    const keys = [doc.source_key];
    for (let n = 1; n <= doc.page_count; n++) keys.push(pageKey(doc.pages_prefix, n), thumbKey(doc.pages_prefix, n));
    if (doc.document_type === 3) keys.push(videoKey(doc.pages_prefix));
    for (const key of keys) await this.objects.delete(key).catch((err: unknown) => this.logger.warn({ err, key }, 'object not deleted'));
  }

  /** `/api/getDocumentDownloadUrl`: a signed link to the original of the caller's document. */
  async downloadUrl(viewer: { userId: string }, documentId: string): Promise<{ url: string; expiresAt: number }> {
    const doc = await this.#own(viewer.userId, documentId);
    return {
      url: await this.objects.signedGetUrl(doc.source_key, SIGNED_URL_TTL_SECONDS),
      expiresAt: this.clock.now().getTime() + SIGNED_URL_TTL_SECONDS * 1000,
    };
  }

  /** Whether a signed upload to this key is still awaited (disk store: a link is good until registration or cancel). */
  async awaitsUpload(key: string): Promise<boolean> {
    return !!(await this.repo.pendingByKey(key));
  }
}
