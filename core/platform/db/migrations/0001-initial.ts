import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

const ddl = `
    create table users (
      id bigint generated always as identity primary key,
      mobile text unique,
      name text not null,
      kind text not null check (kind in ('teacher', 'tourist')),
      promo_code text unique,
      promo_points integer not null default 0,
      vip_room_time timestamptz,
      vip_room_remaining_number integer not null default 0 check (vip_room_remaining_number >= 0),
      vip_big_room_people_number integer not null default 0,
      vip_big_room_time timestamptz,
      record_room_time timestamptz,
      credit_window_until timestamptz,
      created_at timestamptz not null default now(),
      check (kind = 'tourist' or mobile is not null)
    );

    create table sessions (
      token_hash text primary key,
      user_id bigint not null references users(id) on delete cascade,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      revoked_at timestamptz,
      ip text not null default ''
    );
    create index sessions_user on sessions (user_id);
    create index sessions_expiry on sessions (expires_at);

    create table sms_codes (
      id bigint generated always as identity primary key,
      mobile text not null,
      purpose text not null,
      code_hash text not null,
      ip text not null,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      used_at timestamptz,
      failed_attempts integer not null default 0
    );
    create index sms_codes_mobile on sms_codes (mobile, created_at desc);
    create index sms_codes_ip on sms_codes (ip, created_at desc);

    create table rooms (
      id bigint generated always as identity primary key,
      room_number text not null,
      room_type smallint not null check (room_type between 1 and 4),
      create_user bigint not null references users(id),
      consumption text not null check (consumption in ('on', 'off')),
      is_vip text not null check (is_vip in ('0', '1')),
      max_member integer not null check (max_member > 0),
      state text not null check (state in ('open', 'closed')),
      show_state text not null default '',
      wb_power text not null default '0' check (wb_power in ('0', '1')),
      room_extend text not null default '{}',
      ppt_id text not null default '',
      ppt_current_page integer not null default 0,
      is_record_status text not null default '0',
      record_state text not null default '0',
      live_state text not null default '0',
      trial_started_at timestamptz,
      ends_at timestamptz,
      created_at timestamptz not null,
      closed_at timestamptz
    );
    create unique index rooms_open_number on rooms (room_number) where state = 'open';
    create index rooms_number on rooms (room_number, created_at desc);
    create index rooms_creator on rooms (create_user, created_at desc);

    create table room_members (
      room_id bigint not null references rooms(id) on delete cascade,
      user_id bigint not null references users(id) on delete cascade,
      role text not null,
      user_type text not null,
      joined_at timestamptz not null,
      left_at timestamptz,
      kicked_at timestamptz,
      primary key (room_id, user_id)
    );
    create index room_members_user on room_members (user_id);

    create table idempotency_keys (
      user_id bigint not null references users(id) on delete cascade,
      scope text not null,
      key text not null,
      response jsonb,
      created_at timestamptz not null,
      primary key (user_id, scope, key)
    );

    create table credit_ledger (
      id bigint generated always as identity primary key,
      user_id bigint not null references users(id),
      delta integer not null,
      reason text not null,
      room_id bigint references rooms(id),
      created_at timestamptz not null
    );
    create index credit_ledger_user on credit_ledger (user_id, created_at desc);

    create table rate_hits (
      key text not null,
      at timestamptz not null
    );
    create index rate_hits_key on rate_hits (key, at);
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, ddl);
}
