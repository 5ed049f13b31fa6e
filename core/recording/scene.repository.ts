/**
 * What the recorder's scene reads of a room (workers/record/scene.ts, ADR 075): the room it
 * records, the room's row with its board counter and shown document in one statement, and the
 * names of the people seated in it. The board's operations come from the BoardRepository.
 */
import type { Database } from '../platform/db/database.ts';

/** What one poll of the recorder's scene reads: the rooms row, its board counter and the shown document, in one statement. */
export interface RoomRead {
  state: 'open' | 'closed';
  room_type: number;
  create_user: string;
  show_state: string;
  room_extend: string;
  document_id: string | null;
  ppt_current_page: number;
  doc_scroll: number;
  doc_video: string;
  board_seq: string | null;
  document_type: number | null;
  doc_status: number | null;
  page_count: number | null;
  pages_prefix: string | null;
}

export class SceneRepository {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  /** The newest room with this number (a number is reused once a room has closed). */
  latestRoom(roomNumber: string) {
    return this.db
      .selectFrom('rooms')
      .select(['id', 'create_user'])
      .where('room_number', '=', roomNumber)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  read(roomId: string): Promise<RoomRead | undefined> {
    return this.db
      .selectFrom('rooms as r')
      .leftJoin('board_rooms as b', 'b.room_id', 'r.id')
      .leftJoin('documents as d', 'd.id', 'r.document_id')
      .select([
        'r.state',
        'r.room_type',
        'r.create_user',
        'r.show_state',
        'r.room_extend',
        'r.document_id',
        'r.ppt_current_page',
        'r.doc_scroll',
        'r.doc_video',
        'b.seq as board_seq',
        'd.document_type',
        'd.status as doc_status',
        'd.page_count',
        'd.pages_prefix',
      ])
      .where('r.id', '=', roomId)
      .executeTakeFirst();
  }

  /** Names of the given users, or of everyone who has sat in the room. */
  names(roomId: string, userIds?: readonly string[]) {
    let q = this.db.selectFrom('users').select(['users.id', 'users.name']);
    q = userIds
      ? q.where('users.id', 'in', userIds)
      : q.where('users.id', 'in', (eb) =>
          eb.selectFrom('room_members').select('room_members.user_id').where('room_members.room_id', '=', roomId),
        );
    return q.execute();
  }
}
