import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

// The board log (ADR 014): one sequence counter per room, operations with their effects as JSON
// text (never queried inside), one snapshot per layer; operations at or below a layer's snapshot
// are compacted away.
const ddl = `
    create table board_rooms (
      room_id bigint primary key references rooms(id) on delete cascade,
      seq bigint not null default 0
    );

    create table board_ops (
      room_id bigint not null references rooms(id) on delete cascade,
      seq bigint not null,
      page text not null,
      op_id text not null,
      user_id bigint not null,
      body text not null,
      primary key (room_id, seq)
    );
    create unique index board_ops_op_id on board_ops (room_id, op_id);
    create index board_ops_page on board_ops (room_id, page, seq);

    create table board_snapshots (
      room_id bigint not null references rooms(id) on delete cascade,
      page text not null,
      seq bigint not null,
      state text not null,
      primary key (room_id, page)
    )
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, ddl);
}
