import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

// Cloud recording (issue 13, ADR 071). A task is one recording of a room: recorders poll and claim
// it with a lease (`owner`, `lease_until`) instead of a queue job, so a dead recorder's task is
// taken over when its lease runs out. Each closed segment of the composed stream is a row of
// record_segments (the join at the end reads them in seq order). `records` is the library: a class
// recording gets its row at stop (file_size null while the MP4 is being made); `allowed_until` is
// when the creator's package stops the recording (ADR 072).
const ddl = `
    create table record_tasks (
      id bigint generated always as identity primary key,
      room_id bigint not null references rooms(id) on delete cascade,
      room_number text not null,
      user_id bigint not null references users(id) on delete cascade,
      state text not null check (state in ('starting', 'recording', 'stopping', 'done', 'failed')),
      owner text,
      lease_until timestamptz,
      created_at timestamptz not null,
      started_at timestamptz,
      stop_requested_at timestamptz,
      finished_at timestamptz,
      failure text,
      record_id bigint,
      allowed_until timestamptz
    );
    create index record_tasks_claim on record_tasks (state, lease_until, created_at) where state in ('starting', 'recording', 'stopping');
    create unique index record_tasks_one_per_room on record_tasks (room_id) where state in ('starting', 'recording');
    create index record_tasks_room on record_tasks (room_number, created_at desc);

    create table record_segments (
      task_id bigint not null references record_tasks(id) on delete cascade,
      seq integer not null check (seq >= 0),
      object_key text not null,
      duration_ms integer not null check (duration_ms >= 0),
      bytes bigint not null check (bytes >= 0),
      created_at timestamptz not null,
      primary key (task_id, seq)
    );

    create table records (
      id bigint generated always as identity primary key,
      user_id bigint not null references users(id) on delete cascade,
      type smallint not null check (type in (1, 2)),
      task_id bigint references record_tasks(id) on delete set null,
      room_number text,
      file_name text not null,
      object_key text,
      file_size bigint check (file_size >= 0),
      duration_ms integer check (duration_ms >= 0),
      created_at timestamptz not null,
      deleted_at timestamptz
    );
    create index records_owner on records (user_id, type, created_at desc, id desc) where deleted_at is null;
    create unique index records_task on records (task_id) where task_id is not null
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, ddl);
}
