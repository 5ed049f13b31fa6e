import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

// Demo rooms (issue 17, ADR 092): a real room of its own, marked so its end (`ends_at`, set at
// creation to DEMO_ROOM_HOURS later) refuses with the demo's own code and the sample deck is
// shown without a conversion. The sample deck's pages are shared by every demo's documents row.
const ddl = `
    alter table rooms add column is_demo boolean not null default false;
    create index rooms_demo_open on rooms (ends_at) where is_demo and state = 'open'
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, ddl);
}
