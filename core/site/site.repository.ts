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

  insertLog(v: { user_id: string | null; socket_type: string; room_number: string; message: string; ip: string; created_at: Date }) {
    return this.db.insertInto('client_logs').values(v).execute();
  }
}
