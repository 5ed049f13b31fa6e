import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

// Stage and hands (issue 30, ADR 112): the room's one microphone slot becomes a stage of seats.
// `room_stage` is one row per room that used the stage: the carousel's period, next turn and
// cursor, and the row a stage change locks so that two web nodes never overfill the seats.
// `room_stage_seats` holds who is on stage ('on') or invited to it ('inviting', until `deadline`);
// `room_hands` the raised hands in the order they went up. The rooms row's mic columns go.
const ddl = `
    create table room_stage (
      room_id bigint primary key references rooms(id) on delete cascade,
      carousel_seconds integer not null default 0 check (carousel_seconds >= 0),
      carousel_next_at timestamptz,
      carousel_cursor bigint
    );
    create table room_stage_seats (
      room_id bigint not null references rooms(id) on delete cascade,
      user_id bigint not null references users(id) on delete cascade,
      phase text not null check (phase in ('inviting', 'on')),
      since timestamptz not null,
      deadline timestamptz,
      primary key (room_id, user_id)
    );
    create table room_hands (
      room_id bigint not null references rooms(id) on delete cascade,
      user_id bigint not null references users(id) on delete cascade,
      raised_at timestamptz not null,
      primary key (room_id, user_id)
    );
    create index room_hands_order on room_hands (room_id, raised_at);
    alter table rooms drop column mic_phase;
    alter table rooms drop column mic_user_id;
    alter table rooms drop column mic_since;
    alter table rooms drop column mic_deadline
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, ddl);
}
