import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

const ddl = `
    create table orders (
      id bigint generated always as identity primary key,
      order_id text not null unique,
      user_id bigint not null references users(id),
      request_key text,
      goods_id text not null,
      goods_name text not null,
      goods_kind text not null check (goods_kind in ('month', 'credits', 'bigclass')),
      goods_duration integer not null,
      goods_quantity integer not null,
      order_total_money integer not null check (order_total_money > 0),
      state text not null default 'created' check (state in ('created', 'paid')),
      promo_code text,
      promoter_id bigint references users(id),
      gateway text,
      gateway_txn text unique,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      paid_at timestamptz
    );
    create index orders_user on orders (user_id, created_at desc);
    create unique index orders_request on orders (user_id, request_key) where request_key is not null;

    create table payment_notices (
      id bigint generated always as identity primary key,
      gateway text not null,
      order_id text,
      txn text,
      outcome text not null,
      ip text not null,
      body text not null,
      created_at timestamptz not null
    );
    create index payment_notices_order on payment_notices (order_id, created_at desc);

    create table announcements (
      id bigint generated always as identity primary key,
      title text not null,
      content text not null,
      author text not null,
      created_at timestamptz not null
    );
    create index announcements_time on announcements (created_at desc, id desc);

    create table feedback (
      id bigint generated always as identity primary key,
      user_id bigint not null references users(id),
      content text not null,
      created_at timestamptz not null
    );
    create index feedback_time on feedback (created_at desc);

    create table feedback_captchas (
      user_id bigint primary key references users(id) on delete cascade,
      code_hash text not null,
      expires_at timestamptz not null,
      failed_attempts integer not null default 0
    );

    create table trial_applications (
      id bigint generated always as identity primary key,
      name text not null,
      mobile text not null,
      organisation text not null,
      message text not null,
      ip text not null,
      created_at timestamptz not null
    );
    create index trial_applications_time on trial_applications (created_at desc);

    create table client_logs (
      id bigint generated always as identity primary key,
      user_id bigint,
      socket_type text not null,
      room_number text not null,
      message text not null,
      ip text not null,
      created_at timestamptz not null
    );
    create index client_logs_time on client_logs (created_at desc)
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, ddl);
}
