import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

// The class mode (issue 27, ADR 099): 'discuss' (everyone seated may speak within the room type's
// rights) or 'lecture' (students' microphones closed unless invited). Room state, written only
// through RoomState (ADR 062); a new class starts in discuss.
const ddl = `
    alter table rooms add column class_mode text not null default 'discuss';
    alter table rooms add constraint rooms_class_mode check (class_mode in ('discuss', 'lecture'))
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, ddl);
}
