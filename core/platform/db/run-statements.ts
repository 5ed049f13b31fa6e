import { sql, type Kysely } from 'kysely';

/** PGlite's query path takes one statement at a time; DDL scripts are split on `;` at line ends. */
export async function runStatements(db: Kysely<unknown>, script: string): Promise<void> {
  const statements = script
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter(Boolean);
  for (const statement of statements) await sql.raw(statement).execute(db);
}
