import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import type { Kysely } from 'kysely';
import * as m0001 from './migrations/0001-initial.ts';
import * as m0002 from './migrations/0002-live-room.ts';
import * as m0003 from './migrations/0003-board.ts';
import * as m0004 from './migrations/0004-billing.ts';
import * as m0005 from './migrations/0005-media.ts';
import * as m0006 from './migrations/0006-courseware.ts';
import * as m0007 from './migrations/0007-points-exchange.ts';
import * as m0008 from './migrations/0008-recording.ts';
import * as m0009 from './migrations/0009-live.ts';
import * as m0010 from './migrations/0010-studio.ts';
import * as m0011 from './migrations/0011-room-list.ts';
import * as m0012 from './migrations/0012-demo.ts';
import * as m0013 from './migrations/0013-class-mode.ts';
import * as m0014 from './migrations/0014-client-log-lookup.ts';
import * as m0015 from './migrations/0015-stage.ts';
import * as m0016 from './migrations/0016-class-tools.ts';
import * as m0017 from './migrations/0017-groups.ts';

/** Migrations are listed here in order, so bundlers and type stripping both see them. */
const migrations: Record<string, Migration> = {
  '0001-initial': m0001,
  '0002-live-room': m0002,
  '0003-board': m0003,
  '0004-billing': m0004,
  '0005-media': m0005,
  '0006-courseware': m0006,
  '0007-points-exchange': m0007,
  '0008-recording': m0008,
  '0009-live': m0009,
  '0010-studio': m0010,
  '0011-room-list': m0011,
  '0012-demo': m0012,
  '0013-class-mode': m0013,
  '0014-client-log-lookup': m0014,
  '0015-stage': m0015,
  '0016-class-tools': m0016,
  '0017-groups': m0017,
};

const provider: MigrationProvider = { getMigrations: () => Promise.resolve(migrations) };

export async function migrateToLatest(db: Kysely<never>): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(`migration failed: ${JSON.stringify(error)}`);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
