/**
 * What the recorder's scene reads of the database (workers/record/scene.ts): only names. Everyone
 * who has sat in the room once when it opens (the room channel's member list holds only who is
 * online), and anyone else on first use (ADR 109). The room, the board and the courseware it hears
 * on the room and board channels.
 */
import type { Database } from '../platform/db/database.ts';

export class SceneRepository {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  /** Names of everyone who has sat in the open room of this number. */
  seatedNames(roomNumber: string) {
    return this.db
      .selectFrom('users')
      .select(['users.id', 'users.name'])
      .where('users.id', 'in', (eb) =>
        eb
          .selectFrom('room_members')
          .innerJoin('rooms', 'rooms.id', 'room_members.room_id')
          .select('room_members.user_id')
          .where('rooms.room_number', '=', roomNumber)
          .where('rooms.state', '=', 'open'),
      )
      .execute();
  }

  /** Names of the given users (people the room's member list did not tell the recorder). */
  names(userIds: readonly string[]) {
    if (userIds.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('users').select(['users.id', 'users.name']).where('users.id', 'in', userIds).execute();
  }
}
