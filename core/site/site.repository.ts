import type { Database } from '../platform/db/database.ts';

/** What the public pages keep: trial applications and client event logs. */
export class SiteRepository {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  insertTrial(v: { name: string; mobile: string; organisation: string; message: string; ip: string; created_at: Date }) {
    return this.db.insertInto('trial_applications').values(v).execute();
  }

  latestTrials(limit: number) {
    return this.db.selectFrom('trial_applications').selectAll().orderBy('created_at', 'desc').limit(limit).execute();
  }

  /** One statement: a batch is stored whole or not at all. */
  insertLogs(rows: { user_id: string | null; socket_type: string; room_number: string; message: string; ip: string; created_at: Date }[]) {
    return this.db.insertInto('client_logs').values(rows).execute();
  }

  /** Newest first; the person's name beside their id (users kept, a deleted one reads as null). */
  logs(f: { roomNumber: string | undefined; userId: string | undefined; offset: number; limit: number }) {
    let q = this.db
      .selectFrom('client_logs as l')
      .leftJoin('users as u', 'u.id', 'l.user_id')
      .select(['l.id', 'l.created_at', 'l.room_number', 'l.user_id', 'l.socket_type', 'l.message', 'l.ip', 'u.name']);
    if (f.roomNumber !== undefined) q = q.where('l.room_number', '=', f.roomNumber);
    if (f.userId !== undefined) q = q.where('l.user_id', '=', f.userId);
    return q.orderBy('l.created_at', 'desc').orderBy('l.id', 'desc').offset(f.offset).limit(f.limit).execute();
  }
}
