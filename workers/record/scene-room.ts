/**
 * The room as the recorder heard it (ADR 109): what the scene shows follows from these fields, which
 * are the rooms row's as the scene once read them (ADR 075), now kept from the room channel's join
 * snapshot and its events: the view (`showState`), `roomExtend` (board page, colour, 'follow me'),
 * the room type and creator, and the courseware block (document, page, scroll, conversion, the
 * creator's last video control).
 */
import type { RoomCourseware, VideoControl } from '#core/contracts/courseware.ts';
import type { RoomSnapshot } from '#core/contracts/room-events.ts';

/** What the scene decides the picture from: the rooms row's fields it read (ADR 075), now heard. */
export interface RoomRead {
  room_type: number;
  create_user: string;
  show_state: string;
  room_extend: string;
  document_id: string | null;
  ppt_current_page: number;
  /** The portrait page's scroll in tenths (the row's unit). */
  doc_scroll: number;
  /** The creator's last control as the server keeps it (JSON; play or pause, where, when), '' for none. */
  doc_video: string;
  document_type: number | null;
  doc_status: number | null;
  page_count: number | null;
  /** The shown document's object prefix (its pages and video are under it); null while not known. */
  pages_prefix: string | null;
}

export class HeardRoom {
  roomType = 1;
  createUser = '';
  showState = '';
  roomExtend = '{}';
  courseware: RoomCourseware | null = null;
  /** The creator's last video control as the server keeps it (its play or pause kept across heartbeats and seeks). */
  docVideo = '';

  /** Everything again from a join's snapshot (the first join, and after a reconnect). */
  fromSnapshot(s: RoomSnapshot): void {
    const info = s.roomInfo;
    this.roomType = info.roomType;
    this.createUser = info.createUser;
    this.showState = info.showState;
    this.roomExtend = info.roomExtend;
    this.setCourseware(s.courseware ?? null);
  }

  /** A room info patch (customRoomEvent): the fields the picture depends on. */
  patch(p: {
    showState?: string | undefined;
    roomExtend?: string | undefined;
    roomType?: number | undefined;
    createUser?: string | undefined;
  }): boolean {
    let changed = false;
    if (p.showState !== undefined && p.showState !== this.showState) {
      this.showState = p.showState;
      changed = true;
    }
    if (p.roomExtend !== undefined && p.roomExtend !== this.roomExtend) {
      this.roomExtend = p.roomExtend;
      changed = true;
    }
    if (p.roomType !== undefined && p.roomType !== this.roomType) {
      this.roomType = p.roomType;
      changed = true;
    }
    if (p.createUser !== undefined && p.createUser !== this.createUser) {
      this.createUser = p.createUser;
      changed = true;
    }
    return changed;
  }

  /** The room's courseware block (a page turned, a document opened or closed, a conversion's progress). */
  setCourseware(block: RoomCourseware | null): void {
    this.courseware = block;
    this.docVideo = block?.video ? JSON.stringify(block.video) : '';
  }

  /** The creator's control, kept as the server keeps it: a heartbeat or a seek keeps the last play or pause. */
  videoControl(c: Pick<VideoControl, 'type' | 'currentTime' | 'at'>): void {
    let previous: { type?: unknown } = {};
    try {
      previous = this.docVideo ? (JSON.parse(this.docVideo) as typeof previous) : {};
    } catch {
      previous = {};
    }
    const kept = c.type === 'heartbeat' || c.type === 'seek' ? (previous.type === 'play' ? 'play' : 'pause') : c.type;
    this.docVideo = JSON.stringify({ type: kept, currentTime: c.currentTime, at: c.at });
  }

  /** The shown document's id ('' for none). */
  get documentId(): string {
    return this.courseware?.documentId ?? '';
  }

  /** The fields as the scene's rule reads them; `prefix` is the shown document's object prefix. */
  row(prefix: string | null): RoomRead {
    const cw = this.courseware;
    const doc = cw && cw.documentId ? cw : null;
    return {
      room_type: this.roomType,
      create_user: this.createUser,
      show_state: this.showState,
      room_extend: this.roomExtend,
      document_id: doc ? doc.documentId : null,
      ppt_current_page: doc ? doc.pptCurrentPage : 1,
      doc_scroll: doc ? Math.round((doc.scroll ?? 0) * 10) : 0,
      doc_video: this.docVideo,
      document_type: doc ? doc.documentType : null,
      doc_status: doc ? doc.status : null,
      // The block signs one link per converted page: their count is the row's page_count.
      page_count: doc ? doc.images.length : null,
      pages_prefix: doc ? prefix : null,
    };
  }
}
