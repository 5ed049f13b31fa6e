/**
 * Courseware (spec 03 §2.1, §3, §4, §7; ADRs 040-044): the library of each user, uploads signed
 * for the object store and checked by content when registered, conversions queued as jobs and
 * written page by page, and the one document a room shows (page, portrait scroll, video state).
 * Every rule is checked here; the /api adapter and the room channel only parse and answer.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { DomainError, notAllowed, roomNotFound } from '../platform/errors.ts';
import type { EventBus } from '../platform/events.ts';
import type { JobMeta, JobQueue } from '../platform/jobs.ts';
import type { Logger } from '../platform/logger.ts';
import type { ObjectStore } from '../platform/objects.ts';
import type { RateLimiter } from '../platform/rate-limit.ts';
import {
  SIGNED_URL_TTL_SECONDS,
  SLIDE_SCROLL_MAX,
  type CoursewareRoomEvents,
  type CoursewareUserEvents,
  type DocumentInfo,
  type DocumentStatus,
  type DocumentType,
  type RoomCourseware,
  type VideoControl,
} from '../contracts/courseware.ts';
import { ConvertError, type Converter, type ConvertedPage } from './converter.ts';
import type { CoursewareRoomRow, DocumentRepository, DocumentRow } from './document.repository.ts';
import { CONTENT_TYPES, displayName, documentTypeOf, extensionOf, keyFileName, kindFitsExtension } from './names.ts';
import { ROOM_NUMBER_RULE } from '../rooms/room.schema.ts';

type CoursewareConfig = Pick<
  Config,
  'COURSEWARE_MAX_BYTES' | 'COURSEWARE_MAX_PAGES' | 'COURSEWARE_CONVERT_SECONDS' | 'COURSEWARE_UPLOADS_PER_HOUR'
>;

/** Who may act on a room's courseware: from the signed room token (channel) or the session (/api). */
export interface CoursewareActor {
  room: string;
  uid: string;
  role: string;
}

/** The room port: membership checks and the room-info cache (RoomLiveService and RoomService). */
export interface CoursewareRooms {
  actorFor(viewer: { userId: string }, roomNumber: string): Promise<{ room: string; uid: string; role: string }>;
  invalidate(roomNumber: string): void;
}

export const pageKey = (prefix: string, page: number) => `${prefix}/pages/${page}.jpg`;
export const thumbKey = (prefix: string, page: number) => `${prefix}/thumbs/${page}.jpg`;
export const videoKey = (prefix: string) => `${prefix}/video.mp4`;
/**
 * Where a registered upload's checked bytes live: `{prefix}/{name}` -> `{prefix}/source/{tag}/{name}`
 * (the tag keeps two registrations racing for one upload from writing the same object).
 */
export function verifiedSourceKey(uploadKey: string, tag: string): string {
  const cut = uploadKey.lastIndexOf('/');
  return `${uploadKey.slice(0, cut)}/source/${tag}${uploadKey.slice(cut)}`;
}

/** A signed but unregistered upload is forgotten this long after its link expired. */
const STALE_UPLOAD_GRACE_MS = 600_000;

const noCourseware = (resourceType: 1 | 2): RoomCourseware => ({
  documentId: '',
  documentName: '',
  documentType: 0,
  resourceType,
  images: [],
  videoUrl: '',
  sizes: [],
  pptCurrentPage: 1,
  pptTotalPage: 1,
  status: 3,
});

function parseSizes(text: string): Array<{ width: number; height: number }> {
  try {
    const v = JSON.parse(text) as unknown;
    if (!Array.isArray(v)) return [];
    return v.map((p) => (Array.isArray(p) ? { width: Number(p[0]) || 0, height: Number(p[1]) || 0 } : { width: 0, height: 0 }));
  } catch {
    return [];
  }
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

async function md5File(file: string): Promise<string> {
  const hash = createHash('md5');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export class CoursewareService {
  private readonly repo: DocumentRepository;
  private readonly objects: ObjectStore;
  private readonly converter: Converter | null;
  private readonly jobs: JobQueue | null;
  private readonly bus: EventBus;
  private readonly limiter: RateLimiter;
  private readonly rooms: CoursewareRooms;
  private readonly clock: Clock;
  private readonly config: CoursewareConfig;
  private readonly logger: Logger;

  constructor(
    repo: DocumentRepository,
    objects: ObjectStore,
    converter: Converter | null,
    jobs: JobQueue | null,
    bus: EventBus,
    limiter: RateLimiter,
    rooms: CoursewareRooms,
    clock: Clock,
    config: CoursewareConfig,
    logger: Logger,
  ) {
    this.repo = repo;
    this.objects = objects;
    this.converter = converter;
    this.jobs = jobs;
    this.bus = bus;
    this.limiter = limiter;
    this.rooms = rooms;
    this.clock = clock;
    this.config = config;
    this.logger = logger;
  }

  close(): void {
    /* nothing held: the converter is closed by the platform that built it */
  }

  get resourceType(): 1 | 2 {
    return this.objects.resourceType;
  }

  // ---- events ---------------------------------------------------------------------------------

  #toRoom<E extends keyof CoursewareRoomEvents>(room: string, event: E, payload: Parameters<CoursewareRoomEvents[E]>[0]): void {
    this.bus.publish({ target: { room }, event, payload });
  }

  #toUser<E extends keyof CoursewareUserEvents>(user: string, event: E, payload: Parameters<CoursewareUserEvents[E]>[0]): void {
    this.bus.publish({ target: { user }, event, payload });
  }

  // ---- rooms ----------------------------------------------------------------------------------

  async #openRoom(roomNumber: string): Promise<CoursewareRoomRow> {
    if (typeof roomNumber !== 'string' || !ROOM_NUMBER_RULE.test(roomNumber)) throw roomNotFound();
    const room = await this.repo.room(roomNumber);
    if (!room) throw roomNotFound();
    if (room.state !== 'open') throw new DomainError('31009');
    return room;
  }

  async #creatorRoom(userId: string, roomNumber: string): Promise<CoursewareRoomRow> {
    const room = await this.#openRoom(roomNumber);
    if (room.create_user !== userId) throw notAllowed('only the creator handles courseware');
    return room;
  }

  /** The courseware block of a room, with freshly signed links. */
  async #block(room: CoursewareRoomRow, doc?: DocumentRow | null): Promise<RoomCourseware> {
    if (!room.document_id) return noCourseware(this.resourceType);
    const row = doc && doc.id === room.document_id ? doc : await this.repo.byId(room.document_id);
    if (!row) return noCourseware(this.resourceType);
    const ttl = SIGNED_URL_TTL_SECONDS;
    const images: string[] = [];
    for (let n = 1; n <= row.page_count; n++) images.push(await this.objects.signedGetUrl(pageKey(row.pages_prefix, n), ttl));
    const video = this.#video(room.doc_video);
    const total = row.page_count;
    return {
      documentId: row.id,
      documentName: row.name,
      documentType: row.document_type as DocumentType,
      resourceType: this.resourceType,
      images,
      videoUrl: row.document_type === 3 && row.status === 3 ? await this.objects.signedGetUrl(videoKey(row.pages_prefix), ttl) : '',
      sizes: parseSizes(row.page_sizes).slice(0, total),
      pptCurrentPage: total === 0 ? 1 : Math.min(Math.max(1, room.ppt_current_page), total),
      pptTotalPage: Math.max(total, 1),
      status: row.status as DocumentStatus,
      scroll: room.doc_scroll / 10,
      ...(video ? { video } : {}),
    };
  }

  #video(text: string): VideoControl | null {
    if (!text) return null;
    try {
      const v = JSON.parse(text) as VideoControl;
      return { type: v.type, currentTime: v.currentTime, at: v.at };
    } catch {
      return null;
    }
  }

  /** The room's courseware for the join snapshot (anyone admitted to the room). */
  async roomCourseware(roomNumber: string): Promise<RoomCourseware> {
    const room = await this.repo.room(roomNumber);
    if (!room || room.state !== 'open') return noCourseware(this.resourceType);
    return this.#block(room);
  }

  /** `/api/getRoomCourseware`: for someone in the room. */
  async getRoomCourseware(viewer: { userId: string }, roomNumber: string): Promise<{ courseware: RoomCourseware }> {
    const room = await this.#openRoom(roomNumber);
    await this.rooms.actorFor(viewer, roomNumber);
    return { courseware: await this.#block(room) };
  }

  /** Shows a document in the room and turns everyone to the document view (showState 'ppt'), wherever it was opened from. */
  async #show(room: CoursewareRoomRow, doc: DocumentRow, by: string): Promise<RoomCourseware> {
    await this.repo.setRoomCourseware(room.id, {
      document_id: doc.id,
      ppt_current_page: 1,
      doc_scroll: 0,
      doc_video: '',
      show_state: 'ppt',
    });
    this.rooms.invalidate(room.room_number);
    const courseware = await this.#block({ ...room, document_id: doc.id, ppt_current_page: 1, doc_scroll: 0, doc_video: '' }, doc);
    this.#toRoom(room.room_number, 'courseware', { courseware, by });
    this.bus.publish({ target: { room: room.room_number }, event: 'customRoomEvent', payload: { showState: 'ppt', by } });
    return courseware;
  }

  async #hide(room: { id: string; room_number: string }, by: string): Promise<void> {
    await this.repo.setRoomCourseware(room.id, { document_id: null, ppt_current_page: 1, doc_scroll: 0, doc_video: '' });
    this.rooms.invalidate(room.room_number);
    this.#toRoom(room.room_number, 'courseware', { courseware: noCourseware(this.resourceType), by });
  }

  /** `/api/closeRoomDocument`: the creator closes the courseware (page 1 of 1, scroll 0, type 0). */
  async closeRoom(viewer: { userId: string }, roomNumber: string): Promise<null> {
    const room = await this.#creatorRoom(viewer.userId, roomNumber);
    await this.#hide(room, viewer.userId);
    return null;
  }

  /** `/api/analysisDocumentExisting`: open a converted document of the caller's library in the caller's room. */
  async openExisting(viewer: { userId: string }, documentId: string, roomNumber: string): Promise<{ courseware: RoomCourseware }> {
    const room = await this.#creatorRoom(viewer.userId, roomNumber);
    const doc = await this.#own(viewer.userId, documentId);
    if (doc.status !== 3) throw new DomainError('34008');
    return { courseware: await this.#show(room, doc, viewer.userId) };
  }

  /** Room channel: the creator turns the page (1..pages converted so far) and scrolls a portrait page (0..1.8, step 0.1). */
  async setPage(actor: CoursewareActor, page: number, scroll?: number | null): Promise<RoomCourseware> {
    let tenths: number | null = null;
    if (scroll !== undefined && scroll !== null) {
      tenths = Math.round(scroll * 10);
      if (Math.abs(tenths - scroll * 10) > 1e-6 || tenths < 0 || tenths > Math.round(SLIDE_SCROLL_MAX * 10))
        throw new DomainError('34010', 'scroll');
    }
    const room = await this.#openRoom(actor.room);
    if (actor.role !== 'creator' || room.create_user !== actor.uid) throw notAllowed('only the creator turns pages');
    if (!room.document_id) throw new DomainError('34009');
    const doc = await this.repo.byId(room.document_id);
    if (!doc) throw new DomainError('34009');
    if (page < 1 || page > Math.max(doc.page_count, 1)) throw new DomainError('34010', `page ${page} of ${doc.page_count}`);
    // A slide change starts at the top of the page (spec 03 §4 Paging) unless a scroll comes with it.
    const docScroll = tenths ?? (page === room.ppt_current_page ? room.doc_scroll : 0);
    await this.repo.setRoomCourseware(room.id, { ppt_current_page: page, doc_scroll: docScroll });
    this.rooms.invalidate(room.room_number);
    const courseware = await this.#block({ ...room, ppt_current_page: page, doc_scroll: docScroll }, doc);
    this.#toRoom(room.room_number, 'courseware', { courseware, by: actor.uid });
    return courseware;
  }

  /** Room channel: the creator's play, pause, seek or heartbeat, stamped with the server's time and kept for late joiners. */
  async videoControl(actor: CoursewareActor, type: VideoControl['type'], currentTime: number): Promise<VideoControl> {
    const room = await this.#openRoom(actor.room);
    if (actor.role !== 'creator' || room.create_user !== actor.uid) throw notAllowed('only the creator controls the video');
    if (!room.document_id) throw new DomainError('34009');
    const doc = await this.repo.byId(room.document_id);
    if (!doc) throw new DomainError('34009');
    if (doc.document_type !== 3) throw new DomainError('34013');
    const previous = this.#video(room.doc_video);
    // A heartbeat reports the position; whether it plays stays as the last play or pause said.
    const kept: VideoControl['type'] = type === 'heartbeat' || type === 'seek' ? (previous?.type === 'play' ? 'play' : 'pause') : type;
    const control: VideoControl = { type, currentTime, at: this.clock.now().getTime() };
    await this.repo.setRoomCourseware(room.id, { doc_video: JSON.stringify({ ...control, type: kept }) });
    this.#toRoom(room.room_number, 'videoControl', { ...control, by: actor.uid });
    return control;
  }

  // ---- library --------------------------------------------------------------------------------

  async #own(userId: string, documentId: string): Promise<DocumentRow> {
    const doc = await this.repo.byId(documentId);
    if (!doc || doc.user_id !== userId || doc.status === 0) throw new DomainError('34006');
    return doc;
  }

  /** `/api/checkFileHash`: the caller's own document of these bytes, or whether anyone's conversion can be reused. */
  async checkFileHash(viewer: { userId: string }, fileHash: string): Promise<{ fileExist: boolean; documentInfo: DocumentInfo | null }> {
    const own = await this.repo.ownByHash(viewer.userId, fileHash);
    if (own) return { fileExist: true, documentInfo: toDocumentInfo(own) };
    // Someone else's: reusable, but their document (ids, name) stays theirs.
    const other = await this.repo.reusableByHash(fileHash);
    return { fileExist: !!other && other.status === 3, documentInfo: null };
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
    if (input.roomNumber !== undefined && input.roomNumber !== '') await this.#creatorRoom(viewer.userId, input.roomNumber);
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
    input: { documentSource: string; documentName: string; roomNumber?: string | undefined; fileHash: string; documentType: DocumentType },
  ): Promise<{ taskId: string; documentId: string; documentStatus: DocumentStatus; courseware: RoomCourseware | null }> {
    const room =
      input.roomNumber !== undefined && input.roomNumber !== '' ? await this.#creatorRoom(viewer.userId, input.roomNumber) : null;
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
    let courseware = room ? await this.#show(room, doc, viewer.userId) : null;
    if (queue) await queue();
    else if (room && doc.status === 1) {
      // Joined a conversion someone else's upload started: it may have failed meanwhile.
      const latest = await this.repo.byId(doc.id);
      if (latest && (latest.status === 2 || latest.status === 4)) {
        doc = latest;
        await this.#hide(room, viewer.userId);
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
      this.#toUser(doc.user_id, 'addDocumentConvertEvent', { document: toDocumentInfo(doc) });
      return { doc, queue: null };
    }
    // A second registration of the same upload (a double click) queues nothing more.
    const claimed = await this.repo.claimPending(pending.id, now);
    const doc = await this.repo.byId(pending.id);
    if (!doc) throw new DomainError('34004', 'cancelled meanwhile');
    if (!claimed) return { doc, queue: null };
    const queue = async () => {
      await this.#queue(doc);
      this.#toUser(doc.user_id, 'addDocumentConvertEvent', { document: toDocumentInfo(doc) });
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

  async #registerHashMatch(
    userId: string,
    input: { documentName: string; fileHash: string; documentType: DocumentType },
  ): Promise<DocumentRow> {
    const own = await this.repo.ownByHash(userId, input.fileHash);
    if (own) return own;
    const reusable = await this.repo.reusableByHash(input.fileHash);
    if (!reusable || reusable.document_type !== input.documentType)
      throw new DomainError('34004', 'no upload and no stored file of this hash');
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
    this.#toUser(userId, 'addDocumentConvertEvent', { document: toDocumentInfo(doc) });
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

  /** `/api/delUserDocument`: own documents that finished (3) or failed (4); stored files go unless another document shares them. */
  async delete(viewer: { userId: string }, input: { taskId: string; documentId: string }): Promise<null> {
    const doc = await this.#own(viewer.userId, input.documentId);
    if (doc.task_id !== input.taskId) throw new DomainError('34006');
    if (doc.status !== 3 && doc.status !== 4) throw new DomainError('34007');
    const showing = await this.repo.roomsShowing([doc.id]);
    await this.repo.delete(doc.id);
    for (const r of showing) {
      this.rooms.invalidate(r.room_number);
      this.#toRoom(r.room_number, 'courseware', { courseware: noCourseware(this.resourceType), by: viewer.userId });
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

  /** Tells the owners and the rooms showing any of these rows how the conversion stands. */
  async #announce(rows: DocumentRow[], phase: 'progress' | 'done' | 'failed', done: number, total: number): Promise<void> {
    for (const r of rows) this.#toUser(r.user_id, 'documentStatus', { document: toDocumentInfo(r) });
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const shown of await this.repo.roomsShowing(rows.map((r) => r.id))) {
      const doc = byId.get(shown.document_id)!;
      const room = await this.repo.room(shown.room_number);
      if (!room || room.document_id !== doc.id) continue;
      if (phase === 'failed') {
        // 'parse failed' for the uploader; the courseware closes (spec 03 §4).
        await this.repo.setRoomCourseware(room.id, { document_id: null, ppt_current_page: 1, doc_scroll: 0, doc_video: '' });
        this.rooms.invalidate(room.room_number);
      }
      const courseware = phase === 'failed' ? noCourseware(this.resourceType) : await this.#block(room, doc);
      this.#toRoom(shown.room_number, 'documentConvert', {
        status: phase === 'failed' ? '500' : '200',
        phase,
        taskId: doc.task_id,
        documentId: doc.id,
        userId: doc.user_id,
        done,
        total,
        courseware,
      });
      if (phase === 'failed') this.#toRoom(shown.room_number, 'courseware', { courseware, by: '' });
    }
  }

  /**
   * Converts one document: downloads the original to a temp dir, lets the converter write pages
   * one by one to the store (`pages/{n}.jpg`, `thumbs/{n}.jpg`), with progress after each page.
   * Idempotent: a retried attempt starts the pages again and overwrites the same keys.
   */
  async runConversion(payload: { documentId: string }, meta: JobMeta): Promise<void> {
    const id = typeof payload?.documentId === 'string' && /^\d{1,19}$/.test(payload.documentId) ? payload.documentId : null;
    const doc = id ? await this.repo.byId(id) : undefined;
    if (!doc || doc.status !== 1) return; // deleted, cancelled or already settled
    const prefix = doc.pages_prefix;
    const ext = extensionOf(doc.name) ?? 'pdf';
    const started = this.clock.now();
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
      const convertError =
        err instanceof ConvertError || (err instanceof Error && err.name === 'ConvertError') ? (err as ConvertError) : null;
      const retryable = convertError ? convertError.retryable : true;
      if (retryable && meta.retryCount < meta.retryLimit) {
        this.logger.warn({ err, documentId: doc.id, attempt: meta.retryCount }, 'courseware conversion failed, will retry');
        throw err;
      }
      const reason = convertError?.reason ?? 'failed';
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
