/**
 * What a room shows of its courseware (docs/product/03-board-courseware-billing.md §4; ADRs 040-044): the document open in the room,
 * its page and portrait scroll, and the video state, with freshly signed links for the deck.
 */
import { DomainError, notAllowed, roomNotFound } from '../platform/errors.ts';
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { roomMessage, type EventBus } from '../platform/events.ts';
import type { ObjectStore } from '../platform/objects.ts';
import {
  SIGNED_URL_TTL_SECONDS,
  SLIDE_SCROLL_MAX,
  type DocumentStatus,
  type DocumentType,
  type RoomCourseware,
  type VideoControl,
} from '../contracts/courseware.ts';
import type { CoursewareRoomRow, DocumentRepository, DocumentRow } from './document.repository.ts';
import { ROOM_NUMBER_RULE } from '../rooms/room.schema.ts';
import type { RoomState } from '../rooms/room-state.ts';

export type CoursewareConfig = Pick<
  Config,
  'COURSEWARE_MAX_BYTES' | 'COURSEWARE_MAX_PAGES' | 'COURSEWARE_CONVERT_SECONDS' | 'COURSEWARE_UPLOADS_PER_HOUR'
>;

/** Who may act on a room's courseware: from the signed room token (channel) or the session (/api). */
export interface CoursewareActor {
  room: string;
  uid: string;
  role: string;
}

/** The room port: membership checks (RoomLiveService). */
export interface CoursewareRooms {
  actorFor(viewer: { userId: string }, roomNumber: string): Promise<{ room: string; uid: string; role: string }>;
}

export const pageKey = (prefix: string, page: number) => `${prefix}/pages/${page}.jpg`;
export const thumbKey = (prefix: string, page: number) => `${prefix}/thumbs/${page}.jpg`;
export const videoKey = (prefix: string) => `${prefix}/video.mp4`;

export const noCourseware = (resourceType: 1 | 2): RoomCourseware => ({
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

export class CoursewareRoom {
  private readonly repo: DocumentRepository;
  private readonly objects: ObjectStore;
  private readonly bus: EventBus;
  private readonly rooms: CoursewareRooms;
  private readonly state: RoomState;
  private readonly clock: Clock;

  constructor(repo: DocumentRepository, objects: ObjectStore, bus: EventBus, rooms: CoursewareRooms, state: RoomState, clock: Clock) {
    this.repo = repo;
    this.objects = objects;
    this.bus = bus;
    this.rooms = rooms;
    this.state = state;
    this.clock = clock;
  }

  get resourceType(): 1 | 2 {
    return this.objects.resourceType;
  }

  // ---- rooms ----------------------------------------------------------------------------------

  async openRoom(roomNumber: string): Promise<CoursewareRoomRow> {
    if (!ROOM_NUMBER_RULE.test(roomNumber)) throw roomNotFound();
    const room = await this.repo.room(roomNumber);
    if (!room) throw roomNotFound();
    if (room.state !== 'open') throw new DomainError('31009');
    return room;
  }

  async creatorRoom(userId: string, roomNumber: string): Promise<CoursewareRoomRow> {
    const room = await this.openRoom(roomNumber);
    if (room.create_user !== userId) throw notAllowed('only the creator handles courseware');
    return room;
  }

  /** The courseware block of a room, with freshly signed links. */
  async block(room: CoursewareRoomRow, doc?: DocumentRow | null): Promise<RoomCourseware> {
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
    return this.block(room);
  }

  /** `/api/getRoomCourseware`: for someone in the room. */
  async getRoomCourseware(viewer: { userId: string }, roomNumber: string): Promise<{ courseware: RoomCourseware }> {
    const room = await this.openRoom(roomNumber);
    await this.rooms.actorFor(viewer, roomNumber);
    return { courseware: await this.block(room) };
  }

  /** Shows a document in the room and turns everyone to the document view (showState 'ppt'), wherever it was opened from. */
  async show(room: CoursewareRoomRow, doc: DocumentRow, by: string): Promise<RoomCourseware> {
    await this.state.setCourseware(room.id, {
      document_id: doc.id,
      ppt_current_page: 1,
      doc_scroll: 0,
      doc_video: '',
      show_state: 'ppt',
    });
    const courseware = await this.block({ ...room, document_id: doc.id, ppt_current_page: 1, doc_scroll: 0, doc_video: '' }, doc);
    this.bus.publish(roomMessage(room.room_number, 'courseware', { courseware, by }));
    this.bus.publish(roomMessage(room.room_number, 'customRoomEvent', { showState: 'ppt', by }));
    return courseware;
  }

  async hide(room: { id: string; room_number: string }, by: string): Promise<void> {
    await this.state.setCourseware(room.id, { document_id: null, ppt_current_page: 1, doc_scroll: 0, doc_video: '' });
    this.bus.publish(roomMessage(room.room_number, 'courseware', { courseware: noCourseware(this.resourceType), by }));
  }

  /** `/api/closeRoomDocument`: the creator closes the courseware (page 1 of 1, scroll 0, type 0). */
  async closeRoom(viewer: { userId: string }, roomNumber: string): Promise<null> {
    const room = await this.creatorRoom(viewer.userId, roomNumber);
    await this.hide(room, viewer.userId);
    return null;
  }

  /** Room channel: the creator turns the page (1..pages converted so far) and scrolls a portrait page (0..1.8, step 0.1). */
  async setPage(actor: CoursewareActor, page: number, scroll?: number | null): Promise<RoomCourseware> {
    let tenths: number | null = null;
    if (scroll !== undefined && scroll !== null) {
      tenths = Math.round(scroll * 10);
      if (Math.abs(tenths - scroll * 10) > 1e-6 || tenths < 0 || tenths > Math.round(SLIDE_SCROLL_MAX * 10))
        throw new DomainError('34010', 'scroll');
    }
    const room = await this.openRoom(actor.room);
    if (actor.role !== 'creator' || room.create_user !== actor.uid) throw notAllowed('only the creator turns pages');
    if (!room.document_id) throw new DomainError('34009');
    const doc = await this.repo.byId(room.document_id);
    if (!doc) throw new DomainError('34009');
    if (page < 1 || page > Math.max(doc.page_count, 1)) throw new DomainError('34010', `page ${page} of ${doc.page_count}`);
    // A slide change starts at the top of the page (docs/product/03-board-courseware-billing.md §4 Paging) unless a scroll comes with it.
    const docScroll = tenths ?? (page === room.ppt_current_page ? room.doc_scroll : 0);
    await this.state.setCourseware(room.id, { ppt_current_page: page, doc_scroll: docScroll });
    const courseware = await this.block({ ...room, ppt_current_page: page, doc_scroll: docScroll }, doc);
    this.bus.publish(roomMessage(room.room_number, 'courseware', { courseware, by: actor.uid }));
    return courseware;
  }

  /** Room channel: the creator's play, pause, seek or heartbeat, stamped with the server's time and kept for late joiners. */
  async videoControl(actor: CoursewareActor, type: VideoControl['type'], currentTime: number): Promise<VideoControl> {
    const room = await this.openRoom(actor.room);
    if (actor.role !== 'creator' || room.create_user !== actor.uid) throw notAllowed('only the creator controls the video');
    if (!room.document_id) throw new DomainError('34009');
    const doc = await this.repo.byId(room.document_id);
    if (!doc) throw new DomainError('34009');
    if (doc.document_type !== 3) throw new DomainError('34013');
    const previous = this.#video(room.doc_video);
    // A heartbeat reports the position; whether it plays stays as the last play or pause said.
    const kept: VideoControl['type'] = type === 'heartbeat' || type === 'seek' ? (previous?.type === 'play' ? 'play' : 'pause') : type;
    const control: VideoControl = { type, currentTime, at: this.clock.now().getTime() };
    await this.state.setCourseware(room.id, { doc_video: JSON.stringify({ ...control, type: kept }) });
    this.bus.publish(roomMessage(room.room_number, 'videoControl', { ...control, by: actor.uid }));
    return control;
  }
}
