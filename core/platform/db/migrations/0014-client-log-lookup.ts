import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

// The operators' client-log view (issue 27, ADR 102) reads one room's or one person's events,
// newest first: an index for each, so the view does not scan every event ever sent.
const ddl = `
    create index client_logs_room_time on client_logs (room_number, created_at desc);
    create index client_logs_user_time on client_logs (user_id, created_at desc) where user_id is not null
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, ddl);
}
