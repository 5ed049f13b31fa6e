/**
 * Database notifications (PostgreSQL's NOTIFY / LISTEN, which PGlite has too): how a process that
 * writes a task wakes the processes that work on such tasks, with nothing but the database between
 * them (ADR 109). A notification sent inside a transaction is delivered when it commits, to every
 * listener, on every process; one lost while a listener reconnects is made up for by the listener's
 * own slow sweep, never relied on alone.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import pg from 'pg';
import type { DB } from './schema.ts';
import type { DatabaseHandle } from './database.ts';

/** Recording and live-push tasks: `record:{room}` or `live:{room}` when one is asked for or asked to stop. */
export const RECORDER_TASKS_CHANNEL = 'banshu_recorder_tasks';

/** Sends `payload` on `channel` (at the commit, inside a transaction). */
export async function notify(q: Kysely<DB> | Transaction<DB>, channel: string, payload: string): Promise<void> {
  await sql`select pg_notify(${channel}, ${payload})`.execute(q);
}

export interface Listening {
  close(): Promise<void>;
}

/** How long a lost PostgreSQL listener waits before it connects again. */
const RELISTEN_MS = 2000;

/**
 * Calls `onNote` with each notification's payload on `channel`. On PostgreSQL it holds a connection
 * of its own (LISTEN needs one), connected again after a loss (`onError` is told); on PGlite it
 * listens on the embedded instance.
 */
export async function listen(
  handle: Pick<DatabaseHandle, 'pglite' | 'url'>,
  channel: string,
  onNote: (payload: string) => void,
  onError: (err: unknown) => void = () => undefined,
): Promise<Listening> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  if (handle.pglite) {
    const off = await handle.pglite.listen(channel, onNote);
    return { close: () => off() };
  }
  if (!handle.url) throw new Error('no database to listen on');
  const url = handle.url;
  let closed = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  const again = (err: unknown) => {
    onError(err);
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = null;
      if (!closed) connect().catch(again);
    }, RELISTEN_MS);
    retry.unref();
  };
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (n) => {
      if (n.channel === channel) onNote(n.payload ?? '');
    });
    const lost = (err: unknown) => {
      if (client !== c) return;
      client = null;
      void c.end().catch(() => undefined);
      again(err);
    };
    c.on('error', lost);
    c.on('end', () => lost(new Error('listener connection ended')));
    client = c;
    try {
      await c.connect();
      await c.query(`listen ${channel}`);
    } catch (err) {
      if (client === c) client = null;
      void c.end().catch(() => undefined);
      throw err;
    }
  };
  await connect();
  return {
    close: async () => {
      closed = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}
