import { sql } from 'kysely';
import type { Database } from '../platform/db/database.ts';

export class MediaNodeRepository {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  report(node: { id: string; url: string; peers: number; rooms: number; capacity: number; at: Date }) {
    const row = { id: node.id, url: node.url, peers: node.peers, rooms: node.rooms, capacity: node.capacity, seen_at: node.at };
    return this.db
      .insertInto('media_nodes')
      .values(row)
      .onConflict((oc) =>
        oc.column('id').doUpdateSet({ url: row.url, peers: row.peers, rooms: row.rooms, capacity: row.capacity, seen_at: row.seen_at }),
      )
      .execute();
  }

  /** Every registered node's public URL (the page policy allows them as media origins). */
  async urls(): Promise<string[]> {
    const rows = await this.db.selectFrom('media_nodes').select('url').execute();
    return rows.map((r) => r.url);
  }

  remove(id: string) {
    return this.db.deleteFrom('media_nodes').where('id', '=', id).execute();
  }

  /**
   * Takes a node that stopped answering out of the registry (ADR 097), unless it reported after
   * `seenAt` (it restarted meanwhile); a node that is in fact alive is back at its next report.
   */
  async forget(id: string, seenAt: Date): Promise<boolean> {
    const r = await this.db.deleteFrom('media_nodes').where('id', '=', id).where('seen_at', '<=', seenAt).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Nodes seen since `since`, with the rooms placed on them after their last report (not counted in it yet). */
  alive(since: Date) {
    return this.db
      .selectFrom('media_nodes')
      .select(['id', 'url', 'peers', 'rooms', 'capacity', 'seen_at'])
      .select((eb) =>
        eb
          .selectFrom('media_placements')
          .select((e) => e.fn.countAll<string>().as('n'))
          .whereRef('media_placements.node_id', '=', 'media_nodes.id')
          .whereRef('media_placements.placed_at', '>', 'media_nodes.seen_at')
          .as('fresh'),
      )
      .where('seen_at', '>=', since)
      .orderBy('id')
      .execute();
  }

  placement(roomNumber: string) {
    return this.db
      .selectFrom('media_placements')
      .innerJoin('media_nodes', 'media_nodes.id', 'media_placements.node_id')
      .select(['media_nodes.id', 'media_nodes.url', 'media_nodes.seen_at'])
      .where('media_placements.room_number', '=', roomNumber)
      .executeTakeFirst();
  }

  /**
   * Places the room on the node unless another web node placed it on a live node first; the
   * placement in force comes back either way.
   */
  async place(roomNumber: string, nodeId: string, at: Date, aliveSince: Date) {
    await this.db
      .insertInto('media_placements')
      .values({ room_number: roomNumber, node_id: nodeId, placed_at: at })
      .onConflict((oc) =>
        oc
          .column('room_number')
          .doUpdateSet({ node_id: nodeId, placed_at: at })
          // Only a placement on a node that stopped reporting is moved.
          .where(
            sql<boolean>`not exists (select 1 from media_nodes n where n.id = media_placements.node_id and n.seen_at >= ${aliveSince})`,
          ),
      )
      .execute();
    return this.placement(roomNumber);
  }
}
