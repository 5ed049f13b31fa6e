import { sql, type Transaction } from 'kysely';
import type { Database } from '../platform/db/database.ts';
import type { DB } from '../platform/db/schema.ts';

export type Trx = Transaction<DB>;
type Q = Database | Trx;

const orderColumns = [
  'orders.order_id',
  'orders.user_id',
  'orders.request_key',
  'orders.goods_id',
  'orders.goods_name',
  'orders.goods_kind',
  'orders.goods_duration',
  'orders.goods_quantity',
  'orders.order_total_money',
  'orders.state',
  'orders.promo_code',
  'orders.promoter_id',
  'orders.gateway',
  'orders.gateway_txn',
  'orders.created_at',
  'orders.expires_at',
  'orders.paid_at',
  'orders.points_spent',
  'users.mobile',
] as const;

export class OrderRepository {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  transaction<T>(fn: (trx: Trx) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  lockKey(trx: Trx, key: string) {
    return sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(trx);
  }

  findOrder(orderId: string, q: Q = this.db) {
    return q
      .selectFrom('orders')
      .innerJoin('users', 'users.id', 'orders.user_id')
      .select(orderColumns)
      .where('orders.order_id', '=', orderId)
      .executeTakeFirst();
  }

  /** Locks the order for a payment decision (notify and pay). */
  lockOrder(trx: Trx, orderId: string) {
    return trx
      .selectFrom('orders')
      .innerJoin('users', 'users.id', 'orders.user_id')
      .select(orderColumns)
      .where('orders.order_id', '=', orderId)
      .forUpdate('orders')
      .executeTakeFirst();
  }

  findByRequest(trx: Trx, userId: string, requestKey: string) {
    return trx
      .selectFrom('orders')
      .innerJoin('users', 'users.id', 'orders.user_id')
      .select(orderColumns)
      .where('orders.user_id', '=', userId)
      .where('orders.request_key', '=', requestKey)
      .executeTakeFirst();
  }

  /** The buyer's big-class membership (a smaller one may not be bought while it runs: 25008). */
  bigRoomMembership(trx: Trx, userId: string) {
    return trx
      .selectFrom('users')
      .select(['vip_big_room_people_number', 'vip_big_room_time'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
  }

  /** Orders created since `since`, and paid orders of one goods since then, in one read. */
  async dayCounts(trx: Trx, userId: string, goodsId: string, since: Date) {
    const r = await sql<{ created: string; paid_goods: string }>`
      select count(*) as created,
             count(*) filter (where goods_id = ${goodsId} and state = 'paid') as paid_goods
      from orders where user_id = ${userId} and created_at >= ${since}`.execute(trx);
    return { created: Number(r.rows[0]?.created ?? 0), paidGoods: Number(r.rows[0]?.paid_goods ?? 0) };
  }

  insertOrder(
    trx: Trx,
    v: {
      order_id: string;
      user_id: string;
      request_key: string | null;
      goods_id: string;
      goods_name: string;
      goods_kind: 'month' | 'credits' | 'bigclass';
      goods_duration: number;
      goods_quantity: number;
      order_total_money: number;
      created_at: Date;
      expires_at: Date;
    },
  ) {
    return trx
      .insertInto('orders')
      .values({ ...v, promo_code: null, promoter_id: null, gateway: null, gateway_txn: null, paid_at: null })
      .onConflict((oc) => oc.doNothing())
      .returning('order_id')
      .executeTakeFirst();
  }

  setPaymentStart(orderId: string, v: { promo_code: string | null; promoter_id: string | null; gateway: string }) {
    return this.db.updateTable('orders').set(v).where('order_id', '=', orderId).where('state', '=', 'created').execute();
  }

  listOrders(userId: string, before: Date | null, limit: number) {
    let q = this.db
      .selectFrom('orders')
      .innerJoin('users', 'users.id', 'orders.user_id')
      .select(orderColumns)
      .where('orders.user_id', '=', userId);
    if (before) q = q.where('orders.created_at', '<', before);
    return q.orderBy('orders.created_at', 'desc').orderBy('orders.id', 'desc').limit(limit).execute();
  }

  findUserByPromoCode(code: string) {
    return this.db.selectFrom('users').select(['id', 'kind']).where('promo_code', '=', code).executeTakeFirst();
  }

  async markPaid(trx: Trx, orderId: string, txn: string, now: Date): Promise<boolean> {
    const r = await trx
      .updateTable('orders')
      .set({ state: 'paid', gateway_txn: txn, paid_at: now })
      .where('order_id', '=', orderId)
      .where('state', '=', 'created')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** The monthly membership: from its current end (or now) on, `days` more. */
  extendVip(trx: Trx, userId: string, days: number, now: Date) {
    return trx
      .updateTable('users')
      .set({ vip_room_time: sql<Date>`greatest(coalesce(vip_room_time, ${now}), ${now}) + make_interval(days => ${days})` })
      .where('id', '=', userId)
      .execute();
  }

  async addCredits(trx: Trx, userId: string, n: number, now: Date) {
    await trx
      .updateTable('users')
      .set((eb) => ({ vip_room_remaining_number: eb('vip_room_remaining_number', '+', n) }))
      .where('id', '=', userId)
      .execute();
    await trx.insertInto('credit_ledger').values({ user_id: userId, delta: n, reason: 'order', room_id: null, created_at: now }).execute();
  }

  /** A big-class package: its size, and from its current end (or now) on, `days` more. */
  setBigClass(trx: Trx, userId: string, people: number, days: number, now: Date) {
    return trx
      .updateTable('users')
      .set({
        vip_big_room_people_number: people,
        vip_big_room_time: sql<Date>`greatest(coalesce(vip_big_room_time, ${now}), ${now}) + make_interval(days => ${days})`,
      })
      .where('id', '=', userId)
      .execute();
  }

  /** Takes `points` from the user's promo points if there are that many; false otherwise. */
  async spendPromoPoints(trx: Trx, userId: string, points: number): Promise<number | null> {
    const r = await trx
      .updateTable('users')
      .set((eb) => ({ promo_points: eb('promo_points', '-', points) }))
      .where('id', '=', userId)
      .where('promo_points', '>=', points)
      .returning('promo_points')
      .executeTakeFirst();
    return r ? r.promo_points : null;
  }

  /** Records an exchange as an order paid in points at `now`. */
  markPaidInPoints(trx: Trx, orderId: string, points: number, now: Date) {
    return trx
      .updateTable('orders')
      .set({ state: 'paid', gateway: 'points', gateway_txn: `points:${orderId}`, paid_at: now, points_spent: points })
      .where('order_id', '=', orderId)
      .where('state', '=', 'created')
      .execute();
  }

  promoPointsOf(userId: string) {
    return this.db.selectFrom('users').select('promo_points').where('id', '=', userId).executeTakeFirstOrThrow();
  }

  addPromoPoints(trx: Trx, userId: string, points: number) {
    return trx
      .updateTable('users')
      .set((eb) => ({ promo_points: eb('promo_points', '+', points) }))
      .where('id', '=', userId)
      .execute();
  }

  recordNotice(v: {
    gateway: string;
    order_id: string | null;
    txn: string | null;
    outcome: string;
    ip: string;
    body: string;
    created_at: Date;
  }) {
    return this.db.insertInto('payment_notices').values(v).execute();
  }
}

export type OrderRow = NonNullable<Awaited<ReturnType<OrderRepository['findOrder']>>>;
