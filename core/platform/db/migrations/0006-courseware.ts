import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

// Courseware (ADR 040): one row per document in a user's library. Status 0 is a signed upload not
// registered yet; pages live under `pages_prefix` (shared by rows that reuse a conversion of the
// same bytes, ADR 041). A room shows at most one document: its id, the page (ppt_current_page,
// already there), the portrait scroll in tenths, and the last video control as JSON text.
const ddl = `
    create table documents (
      id bigint generated always as identity primary key,
      user_id bigint not null references users(id) on delete cascade,
      name text not null,
      source_key text not null,
      pages_prefix text not null,
      file_hash text not null,
      task_id text not null unique,
      document_type smallint not null check (document_type in (1, 3)),
      status smallint not null check (status between 0 and 4),
      size bigint not null check (size >= 0),
      page_count integer not null default 0,
      page_sizes text not null default '[]',
      fail_reason text not null default '',
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index documents_user on documents (user_id, created_at desc, id desc);
    create index documents_hash on documents (file_hash);
    create index documents_pages on documents (pages_prefix);
    create index documents_source on documents (source_key);

    alter table rooms add column document_id bigint references documents(id) on delete set null;
    alter table rooms add column doc_scroll smallint not null default 0;
    alter table rooms add column doc_video text not null default '';
    create index rooms_document on rooms (document_id) where document_id is not null
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, ddl);
}
