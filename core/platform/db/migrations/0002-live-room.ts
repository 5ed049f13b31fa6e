import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

const ddl = `
    create table chat_messages (
      id bigint generated always as identity primary key,
      room_id bigint not null references rooms(id) on delete cascade,
      user_id bigint not null references users(id) on delete cascade,
      name text not null,
      text text not null,
      created_at timestamptz not null
    );
    create index chat_messages_room on chat_messages (room_id, id desc);

    alter table rooms add column mic_phase text not null default 'idle' check (mic_phase in ('idle', 'inviting', 'connected'));
    alter table rooms add column mic_user_id bigint references users(id);
    alter table rooms add column mic_since timestamptz;
    alter table rooms add column mic_deadline timestamptz;
    alter table rooms add column last_active_at timestamptz;
    create index rooms_open_activity on rooms (last_active_at) where state = 'open';
    create index rooms_open_ends on rooms (ends_at) where state = 'open'
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, ddl);
}
