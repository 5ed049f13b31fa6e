/**
 * Courseware (docs/product/03-board-courseware-billing.md §2.1, §3, §4, §7; ADRs 040-044): the library of each user, uploads signed
 * for the object store and checked by content when registered, conversions queued as jobs and
 * written page by page, and the one document a room shows (page, portrait scroll, video state).
 * Every rule is checked here; the /api adapter and the room channel only parse and answer.
 */
import type { Clock } from '../platform/clock.ts';
import type { EventBus } from '../platform/events.ts';
import type { JobMeta, JobQueue } from '../platform/jobs.ts';
import type { Logger } from '../platform/logger.ts';
import type { ObjectStore } from '../platform/objects.ts';
import type { RateLimiter } from '../platform/rate-limit.ts';
import type { DocumentInfo, DocumentStatus, HashChallenge, RoomCourseware, VideoControl } from '../contracts/courseware.ts';
import type { TokenSigner } from '../platform/secrets.ts';
import type { Converter } from './converter.ts';
import type { DocumentRepository } from './document.repository.ts';
import type { RoomState } from '../rooms/room-state.ts';
import { CoursewareConversion } from './courseware-conversion.ts';
import { CoursewareLibrary, type RegisterInput } from './courseware-library.ts';
import { type CoursewareActor, type CoursewareConfig, type CoursewareRooms, CoursewareRoom } from './courseware-room.ts';

export { type CoursewareActor, type CoursewareRooms, pageKey, thumbKey, videoKey } from './courseware-room.ts';
export { toDocumentInfo, verifiedSourceKey } from './courseware-library.ts';

/**
 * The three parts under one name, so `services.courseware.*` keeps its callers: what the room
 * shows (CoursewareRoom), the library and uploads (CoursewareLibrary) and conversion
 * (CoursewareConversion). Every rule is checked in the parts; this only forwards.
 */
export class CoursewareService {
  readonly room: CoursewareRoom;
  readonly library: CoursewareLibrary;
  readonly conversion: CoursewareConversion;

  constructor(
    repo: DocumentRepository,
    objects: ObjectStore,
    converter: Converter | null,
    jobs: JobQueue | null,
    bus: EventBus,
    limiter: RateLimiter,
    rooms: CoursewareRooms,
    state: RoomState,
    clock: Clock,
    config: CoursewareConfig,
    logger: Logger,
    signer?: TokenSigner,
  ) {
    this.room = new CoursewareRoom(repo, objects, bus, rooms, state, clock);
    this.library = new CoursewareLibrary(repo, objects, converter, jobs, bus, limiter, this.room, state, clock, config, logger, signer);
    this.conversion = new CoursewareConversion(repo, objects, converter, bus, this.room, state, clock, config, logger);
  }

  close(): void {
    /* nothing held: the converter is closed by the platform that built it */
  }

  get resourceType(): 1 | 2 {
    return this.room.resourceType;
  }

  // ---- the room -------------------------------------------------------------------------------

  roomCourseware(roomNumber: string): Promise<RoomCourseware> {
    return this.room.roomCourseware(roomNumber);
  }

  getRoomCourseware(viewer: { userId: string }, roomNumber: string): Promise<{ courseware: RoomCourseware }> {
    return this.room.getRoomCourseware(viewer, roomNumber);
  }

  closeRoom(viewer: { userId: string }, roomNumber: string): Promise<null> {
    return this.room.closeRoom(viewer, roomNumber);
  }

  setPage(actor: CoursewareActor, page: number, scroll?: number | null): Promise<RoomCourseware> {
    return this.room.setPage(actor, page, scroll);
  }

  videoControl(actor: CoursewareActor, type: VideoControl['type'], currentTime: number): Promise<VideoControl> {
    return this.room.videoControl(actor, type, currentTime);
  }

  // ---- the library ----------------------------------------------------------------------------

  openExisting(viewer: { userId: string }, documentId: string, roomNumber: string): Promise<{ courseware: RoomCourseware }> {
    return this.library.openExisting(viewer, documentId, roomNumber);
  }

  checkFileHash(
    viewer: { userId: string },
    fileHash: string,
  ): Promise<{ fileExist: boolean; documentInfo: DocumentInfo | null; challenge: HashChallenge | null }> {
    return this.library.checkFileHash(viewer, fileHash);
  }

  signUpload(
    viewer: { userId: string },
    input: { fileName: string; fileSize: number; fileHash: string; roomNumber?: string | undefined },
  ): ReturnType<CoursewareLibrary['signUpload']> {
    return this.library.signUpload(viewer, input);
  }

  cancelUpload(
    viewer: { userId: string },
    input: { roomNumber: string; documentSource?: string | undefined; taskId?: string | undefined },
  ): Promise<null> {
    return this.library.cancelUpload(viewer, input);
  }

  register(
    viewer: { userId: string },
    input: RegisterInput,
  ): Promise<{ taskId: string; documentId: string; documentStatus: DocumentStatus; courseware: RoomCourseware | null }> {
    return this.library.register(viewer, input);
  }

  list(
    viewer: { userId: string },
    input: { pageNo?: number | undefined; pageSize?: number | undefined },
  ): Promise<{ documentList: DocumentInfo[]; total: number }> {
    return this.library.list(viewer, input);
  }

  delete(viewer: { userId: string }, input: { taskId: string; documentId: string }): Promise<null> {
    return this.library.delete(viewer, input);
  }

  downloadUrl(viewer: { userId: string }, documentId: string): Promise<{ url: string; expiresAt: number }> {
    return this.library.downloadUrl(viewer, documentId);
  }

  awaitsUpload(key: string): Promise<boolean> {
    return this.library.awaitsUpload(key);
  }

  // ---- conversion and housekeeping (jobs) -----------------------------------------------------

  runConversion(payload: { documentId: string }, meta: JobMeta): Promise<void> {
    return this.conversion.runConversion(payload, meta);
  }

  dropUpload(key: string): Promise<void> {
    return this.conversion.dropUpload(key);
  }

  purgeStaleUploads(): Promise<number> {
    return this.conversion.purgeStaleUploads();
  }
}
