import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

// The recording studio (issue 15, ADR 086). `studio_uploads` is one take's multipart upload: the
// browser names it by `token` (random, unguessable, and only ever answered to its owner), the
// store knows it by `store_upload_id`; 'open' until the teacher saves it ('saving' while the parts
// are joined, then 'saved' with its record) or drops it ('aborted', also past `expires_at`).
// A saved take is a `records` row of type 1 whose `source_key` is the upload until the worker has
// made the fast-start MP4 (`object_key`) and its `poster_key`; `failure` when it could not.
const ddl = `
    create table studio_uploads (
      id bigint generated always as identity primary key,
      token text not null unique,
      user_id bigint not null references users(id) on delete cascade,
      object_key text not null,
      store_upload_id text not null,
      media_type text not null,
      state text not null check (state in ('open', 'saving', 'saved', 'aborted')),
      created_at timestamptz not null,
      expires_at timestamptz not null,
      record_id bigint
    );
    create index studio_uploads_user on studio_uploads (user_id, created_at);
    create index studio_uploads_expiry on studio_uploads (expires_at) where state in ('open', 'saving');
    alter table records add column source_key text;
    alter table records add column poster_key text;
    alter table records add column failure text;
    create index records_unmade on records (created_at) where type = 1 and object_key is null and failure is null and deleted_at is null
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, ddl);
}
