import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/** Packages taken for promo points (ADR 057): the points an order cost; 0 for an order paid in money. */
const ddl = `
    alter table orders add column points_spent integer not null default 0
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, ddl);
}
