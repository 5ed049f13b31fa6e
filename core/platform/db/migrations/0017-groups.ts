import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

// Breakout groups (issue 31, ADR 116): held per class (rooms.id), so a reload, a reconnect or a
// web node's death finds them as they were, and the room's next class starts with none.
// - breakout_sessions: one row per class: the status, the round, where the teacher is, the
//   settings, the deadlines (settled lazily, ended once by a conditional update), the background
//   and the last session's boards. A change locks this row.
// - breakout_groups: the groups of the running round (number, name, leader, whiteboard page, help).
// - breakout_places: where each student is this round (0: the main room); a student with no row
//   is new to the round (a late joiner). `id` keeps the order they were placed in.
// - chat_messages gains the group and round of a group's line (null: the main room).
const ddl = `
    create table breakout_sessions (
      room_id bigint primary key references rooms(id) on delete cascade,
      status text not null default 'off' check (status in ('off', 'running', 'closing')),
      round integer not null default 0,
      teacher_in smallint not null default 0,
      allow_choose boolean not null default false,
      late_joiners text not null default 'auto' check (late_joiners in ('auto', 'teacher')),
      started_at timestamptz,
      ends_at timestamptz,
      closing_at timestamptz,
      background jsonb,
      last_boards jsonb not null default '[]'
    );

    create table breakout_groups (
      room_id bigint not null references rooms(id) on delete cascade,
      no smallint not null check (no between 1 and 12),
      name text not null,
      leader bigint references users(id) on delete set null,
      page smallint not null,
      help_at timestamptz,
      primary key (room_id, no)
    );

    create table breakout_places (
      id bigserial primary key,
      room_id bigint not null references rooms(id) on delete cascade,
      user_id bigint not null references users(id) on delete cascade,
      group_no smallint not null check (group_no between 0 and 12),
      unique (room_id, user_id)
    );
    create index breakout_places_group on breakout_places (room_id, group_no);

    alter table chat_messages add column group_no smallint;
    alter table chat_messages add column group_round integer
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, ddl);
}
