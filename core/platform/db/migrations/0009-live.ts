import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

// Live streaming (issue 14, ADR 085). A task is one push of a room to a video platform: recorders
// claim it with a lease like a recording task (ADR 071). `push_secret` is the push address (the
// platform's ingest address and the teacher's key) sealed with the server's secret (AES-256-GCM),
// read only by the recorder that pushes; `platform` is the name shown to the room. `kbps` and
// `reconnecting` are what the pushing recorder reports with each renewal.
const ddl = `
    create table live_tasks (
      id bigint generated always as identity primary key,
      room_id bigint not null references rooms(id) on delete cascade,
      room_number text not null,
      user_id bigint not null references users(id) on delete cascade,
      platform text not null,
      push_secret text not null,
      state text not null check (state in ('starting', 'live', 'reconnecting', 'done', 'failed')),
      owner text,
      lease_until timestamptz,
      created_at timestamptz not null,
      started_at timestamptz,
      finished_at timestamptz,
      failure text,
      kbps integer not null default 0
    );
    create index live_tasks_claim on live_tasks (state, lease_until, created_at) where state in ('starting', 'live', 'reconnecting');
    create unique index live_tasks_one_per_room on live_tasks (room_id) where state in ('starting', 'live', 'reconnecting');
    create index live_tasks_room on live_tasks (room_number, created_at desc)
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, ddl);
}
