import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/** Media nodes report here; a room is placed on one node and stays there while it is alive. */
const ddl = `
    create table media_nodes (
      id text primary key,
      url text not null,
      peers integer not null default 0,
      rooms integer not null default 0,
      capacity integer not null,
      seen_at timestamptz not null
    );
    create table media_placements (
      room_number text primary key,
      node_id text not null references media_nodes(id) on delete cascade,
      placed_at timestamptz not null
    );
    create index media_placements_node on media_placements (node_id, placed_at)
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, ddl);
}
