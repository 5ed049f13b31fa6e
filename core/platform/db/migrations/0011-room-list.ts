import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

// "My classrooms" (issue 16, ADR 087): a creator removes a finished class from the list. The room
// row stays (its board, recordings and bills refer to it); `hidden_at` only takes it off the list.
// The list pages by offset and filters by type, so it reads the creator's listed rooms newest first.
const ddl = `
    alter table rooms add column hidden_at timestamptz;
    create index rooms_creator_listed on rooms (create_user, created_at desc) where hidden_at is null
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, ddl);
}
