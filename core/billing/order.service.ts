/**
 * Packages, orders and payments: the shop (docs/product/03-board-courseware-billing.md §9), the order rules and codes of §8, and the
 * payment notification that grants what was bought, once, in one transaction.
 */
import { randomInt } from 'node:crypto';
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { DomainError, notAllowed, type Lang } from '../platform/errors.ts';
import type { EventBus } from '../platform/events.ts';
import type { Logger } from '../platform/logger.ts';
import type { PaymentGateway } from '../platform/payments.ts';
import type { GoodsInfo, OrderInfo } from '../contracts/api.ts';
import type { Viewer } from '../account/account.service.ts';
import { catalogue, goodsDesc, goodsName, type Goods } from './goods.ts';
import type { OrderRepository, OrderRow, Trx } from './order.repository.ts';

type OrderConfig = Pick<
  Config,
  | 'GOODS_PRICES'
  | 'GOODS_OFF_SHELF'
  | 'ORDER_TTL_MINUTES'
  | 'ORDERS_PER_DAY'
  | 'PURCHASES_PER_GOODS_PER_DAY'
  | 'PROMO_POINTS_PER_ORDER'
  | 'PROMO_POINT_VALUE_CENTS'
  | 'CREDIT_WINDOW_HOURS'
>;

export const GOODS_PAGE_SIZE = 10;
export const ORDER_PAGE_SIZE = 7;
const DAY = 86_400_000;
/** Daily limits count in China's day (UTC+8), the day the buyer sees. */
const CHINA_OFFSET = 8 * 3_600_000;
export const startOfChinaDay = (t: Date) => new Date(Math.floor((t.getTime() + CHINA_OFFSET) / DAY) * DAY - CHINA_OFFSET);

export type NoticeOutcome = 'paid' | 'duplicate' | 'bad-signature' | 'unknown-order' | 'wrong-amount' | 'already-paid';

const ms = (d: Date | null) => (d ? d.getTime() : 0);

function newOrderId(now: Date): string {
  const d = new Date(now.getTime() + CHINA_OFFSET).toISOString().replace(/\D/g, '').slice(0, 14);
  return `BS${d}${String(randomInt(0, 1_000_000)).padStart(6, '0')}`;
}

export class OrderService {
  private readonly repo: OrderRepository;
  private readonly gateway: PaymentGateway;
  private readonly events: EventBus;
  private readonly clock: Clock;
  private readonly config: OrderConfig;
  private readonly logger: Logger;
  constructor(repo: OrderRepository, gateway: PaymentGateway, events: EventBus, clock: Clock, config: OrderConfig, logger: Logger) {
    this.repo = repo;
    this.gateway = gateway;
    this.events = events;
    this.clock = clock;
    this.config = config;
    this.logger = logger;
  }

  /**
   * Whether this site takes payments: false without a gateway (PAYMENT_GATEWAY=off, the production
   * default), so no page offers to buy or upgrade (ADR 103).
   */
  get takesPayments(): boolean {
    return this.gateway.name !== 'off';
  }

  /** Points a promoter earns for each order paid with their code (the personal page explains it). */
  get promoPointsPerOrder(): number {
    return this.config.PROMO_POINTS_PER_ORDER;
  }

  #goods(): Goods[] {
    return catalogue(this.config);
  }

  #goodsInfo(g: Goods, lang: Lang): GoodsInfo {
    return {
      goodsId: g.goodsId,
      goodsType: g.goodsType,
      goodsName: goodsName(g, lang),
      goodsDesc: goodsDesc(g, lang, this.config.CREDIT_WINDOW_HOURS),
      goodsPrice: g.price,
      goodsDuration: g.duration,
      goodsQuantity: g.quantity,
      goodsPoints: this.pointsPrice(g),
    };
  }

  /** What a package costs in promo points: its price at PROMO_POINT_VALUE_CENTS a point, rounded up. */
  pointsPrice(g: Pick<Goods, 'price'>): number {
    return Math.max(1, Math.ceil(g.price / this.config.PROMO_POINT_VALUE_CENTS));
  }

  static orderInfo(o: OrderRow): OrderInfo {
    return {
      orderId: o.order_id,
      userPhone: o.mobile ?? '',
      goodsId: o.goods_id,
      goodsName: o.goods_name,
      goodsDuration: o.goods_duration,
      orderTotalMoney: o.order_total_money,
      orderState: o.state === 'paid' ? '1' : '0',
      createTime: ms(o.created_at),
      payTime: ms(o.paid_at),
      expireTime: ms(o.expires_at),
      orderDetail:
        o.goods_kind === 'credits'
          ? `+${o.goods_quantity}`
          : `${o.goods_duration}d${o.goods_kind === 'bigclass' ? `/${o.goods_quantity}p` : ''}`,
      promoCode: o.promo_code ?? '',
      pointsSpent: o.points_spent,
    };
  }

  /** Only teachers pay (docs/product/03-board-courseware-billing.md §2.6); visitors have no orders. */
  #buyer(viewer: Viewer): string {
    if (viewer.type !== '1') throw notAllowed('only teachers buy');
    return viewer.userId;
  }

  getGoodsList(input: { pageTime?: number | undefined; pageSize?: number | undefined }, lang: Lang) {
    const size = Math.min(input.pageSize ?? GOODS_PAGE_SIZE, GOODS_PAGE_SIZE);
    const from = input.pageTime ?? 0;
    const shelf = this.#goods().filter((g) => g.onShelf);
    const page = shelf.slice(from, from + size);
    return { goodsList: page.map((g) => this.#goodsInfo(g, lang)), hasMore: from + size < shelf.length, nextPageTime: from + page.length };
  }

  async createOrder(viewer: Viewer, input: { goodsId: string; requestId?: string | undefined }, lang: Lang): Promise<OrderInfo> {
    const userId = this.#buyer(viewer);
    const goods = this.#goods().find((g) => g.goodsId === input.goodsId);
    if (!goods?.onShelf) throw new DomainError('25007', input.goodsId);
    const now = this.clock.now();
    const requestKey = input.requestId && input.requestId.length <= 64 ? input.requestId : null;
    const orderId = await this.repo.transaction(async (trx) => {
      await this.repo.lockKey(trx, `order:${userId}`);
      if (requestKey) {
        // One client request, one order: a retry gets the same order while it can still be paid.
        const prior = await this.repo.findByRequest(trx, userId, requestKey);
        if (prior) {
          if (prior.state === 'paid' || prior.expires_at.getTime() <= now.getTime()) throw new DomainError('25004');
          return prior.order_id;
        }
      }
      await this.#mayBuy(trx, userId, goods, now);
      return this.#insert(trx, userId, requestKey, goods, lang, now, goods.price);
    });
    return this.getOrderInfo(viewer, orderId);
  }

  /** The rules every purchase follows, in money or in points: 25008, 25009, 25010. */
  async #mayBuy(trx: Trx, userId: string, goods: Goods, now: Date): Promise<void> {
    const u = await this.repo.bigRoomMembership(trx, userId);
    if (goods.kind === 'bigclass' && ms(u.vip_big_room_time) > now.getTime() && u.vip_big_room_people_number > goods.quantity) {
      throw new DomainError('25008');
    }
    const counts = await this.repo.dayCounts(trx, userId, goods.goodsId, startOfChinaDay(now));
    if (counts.paidGoods >= this.config.PURCHASES_PER_GOODS_PER_DAY) throw new DomainError('25009');
    if (counts.created >= this.config.ORDERS_PER_DAY) throw new DomainError('25010');
  }

  async #insert(trx: Trx, userId: string, requestKey: string | null, goods: Goods, lang: Lang, now: Date, price: number): Promise<string> {
    for (let i = 0; i < 5; i++) {
      const id = newOrderId(now);
      const row = await this.repo.insertOrder(trx, {
        order_id: id,
        user_id: userId,
        request_key: requestKey,
        goods_id: goods.goodsId,
        goods_name: goodsName(goods, lang),
        goods_kind: goods.kind,
        goods_duration: goods.duration,
        goods_quantity: goods.quantity,
        order_total_money: price,
        created_at: now,
        expires_at: new Date(now.getTime() + this.config.ORDER_TTL_MINUTES * 60_000),
      });
      if (row) return row.order_id;
    }
    throw new DomainError('9', 'could not allocate an order id');
  }

  /** Grants what an order bought (inside the paying transaction). */
  async #grant(trx: Trx, o: Pick<OrderRow, 'user_id' | 'goods_kind' | 'goods_duration' | 'goods_quantity'>, now: Date): Promise<void> {
    switch (o.goods_kind) {
      case 'month':
        await this.repo.extendVip(trx, o.user_id, o.goods_duration, now);
        break;
      case 'credits':
        await this.repo.addCredits(trx, o.user_id, o.goods_quantity, now);
        break;
      case 'bigclass':
        await this.repo.setBigClass(trx, o.user_id, o.goods_quantity, o.goods_duration, now);
        break;
    }
  }

  /**
   * Takes a package for promo points (ADR 057): the same rules as an order (on the shelf, no
   * lower big class, daily limits), the points taken only if there are enough (25013), the order
   * recorded as paid and the package granted, all in one transaction. A retried request (same
   * request id) answers with the order it already made and takes nothing more.
   */
  async exchangePoints(
    viewer: Viewer,
    input: { goodsId: string; requestId?: string | undefined },
    lang: Lang,
  ): Promise<{ orderInfo: OrderInfo; promoPoints: number }> {
    const userId = this.#buyer(viewer);
    const goods = this.#goods().find((g) => g.goodsId === input.goodsId);
    if (!goods?.onShelf) throw new DomainError('25007', input.goodsId);
    const cost = this.pointsPrice(goods);
    const now = this.clock.now();
    const requestKey = input.requestId && input.requestId.length <= 64 ? `points:${input.requestId}` : null;
    const orderId = await this.repo.transaction(async (trx) => {
      await this.repo.lockKey(trx, `order:${userId}`);
      if (requestKey) {
        const prior = await this.repo.findByRequest(trx, userId, requestKey);
        if (prior) return prior.order_id;
      }
      await this.#mayBuy(trx, userId, goods, now);
      if ((await this.repo.spendPromoPoints(trx, userId, cost)) === null) throw new DomainError('25013', `${String(cost)} points`);
      // The order keeps the package's price (what it is worth); points_spent says how it was paid.
      const id = await this.#insert(trx, userId, requestKey, goods, lang, now, goods.price);
      await this.repo.markPaidInPoints(trx, id, cost, now);
      await this.#grant(
        trx,
        { user_id: userId, goods_kind: goods.kind, goods_duration: goods.duration, goods_quantity: goods.quantity },
        now,
      );
      return id;
    });
    const [orderInfo, points] = await Promise.all([this.getOrderInfo(viewer, orderId), this.repo.promoPointsOf(userId)]);
    return { orderInfo, promoPoints: points.promo_points };
  }

  /** 25002 for no such order, 25003 for someone else's. */
  async getOrderInfo(viewer: Viewer, orderId: string): Promise<OrderInfo> {
    const o = await this.repo.findOrder(orderId);
    if (!o) throw new DomainError('25002');
    if (o.user_id !== viewer.userId) throw new DomainError('25003');
    return OrderService.orderInfo(o);
  }

  async getOrderList(viewer: Viewer, input: { pageTime?: number | undefined; pageSize?: number | undefined }) {
    const userId = this.#buyer(viewer);
    const size = Math.min(input.pageSize ?? ORDER_PAGE_SIZE, ORDER_PAGE_SIZE);
    const rows = await this.repo.listOrders(userId, input.pageTime ? new Date(input.pageTime) : null, size + 1);
    const page = rows.slice(0, size);
    return {
      orderList: page.map((o) => OrderService.orderInfo(o)),
      hasMore: rows.length > size,
      nextPageTime: page.length ? ms(page[page.length - 1]!.created_at) : 0,
    };
  }

  /** Starts paying: checks the order and the promo code, then asks the gateway for the QR content. */
  async paymentOrder(
    viewer: Viewer,
    input: { orderId: string; promoCode?: string | undefined },
  ): Promise<{ tn: string; orderInfo: OrderInfo }> {
    this.#buyer(viewer);
    const o = await this.repo.findOrder(input.orderId);
    if (!o) throw new DomainError('25002');
    if (o.user_id !== viewer.userId) throw new DomainError('25003');
    if (o.state === 'paid') throw new DomainError('25004');
    if (o.expires_at.getTime() <= this.clock.now().getTime()) throw new DomainError('25002', 'expired');
    const code = (input.promoCode ?? '').trim().toUpperCase();
    let promoterId: string | null = null;
    if (code) {
      const promoter = await this.repo.findUserByPromoCode(code);
      if (!promoter || promoter.kind !== 'teacher') throw new DomainError('25011');
      if (promoter.id === viewer.userId) throw new DomainError('25012');
      promoterId = promoter.id;
    }
    let tn: string;
    try {
      ({ tn } = await this.gateway.createPayment({
        orderId: o.order_id,
        amount: o.order_total_money,
        subject: o.goods_name,
        expiresAt: o.expires_at,
      }));
    } catch (err) {
      this.logger.warn({ err, orderId: o.order_id }, 'payment gateway refused the order');
      throw new DomainError('25006', (err as Error).message);
    }
    await this.repo.setPaymentStart(o.order_id, { promo_code: code || null, promoter_id: promoterId, gateway: this.gateway.name });
    return { tn, orderInfo: OrderService.orderInfo({ ...o, promo_code: code || null }) };
  }

  /**
   * A notification from the gateway. Only a correctly signed notice for a known order with the
   * order's exact amount changes anything; a repeat of a processed notice changes nothing. The
   * grant, the order state and the promoter's points commit together or not at all.
   */
  async handleNotice(
    gatewayName: string,
    rawBody: string,
    headers: Record<string, string | string[] | undefined>,
    ip: string,
  ): Promise<NoticeOutcome> {
    const now = this.clock.now();
    const notice = gatewayName === this.gateway.name ? this.gateway.parseNotice(rawBody, headers) : null;
    let outcome: NoticeOutcome;
    let buyer: string | null = null;
    if (!notice) {
      outcome = 'bad-signature';
    } else {
      outcome = await this.repo.transaction(async (trx): Promise<NoticeOutcome> => {
        const o = await this.repo.lockOrder(trx, notice.orderId);
        if (!o) return 'unknown-order';
        if (o.order_total_money !== notice.amount) return 'wrong-amount';
        if (o.state === 'paid') return o.gateway_txn === notice.txn ? 'duplicate' : 'already-paid';
        if (!(await this.repo.markPaid(trx, o.order_id, notice.txn, now))) return 'already-paid';
        await this.#grant(trx, o, now);
        if (o.promoter_id && this.config.PROMO_POINTS_PER_ORDER > 0)
          await this.repo.addPromoPoints(trx, o.promoter_id, this.config.PROMO_POINTS_PER_ORDER);
        buyer = o.user_id;
        return 'paid';
      });
    }
    await this.repo.recordNotice({
      gateway: gatewayName.slice(0, 32),
      order_id: notice?.orderId ?? null,
      txn: notice?.txn ?? null,
      outcome,
      ip,
      body: rawBody.slice(0, 4096),
      created_at: now,
    });
    if (outcome === 'paid' && buyer && notice) {
      this.events.publish({ target: { user: buyer }, event: 'paymentSuccess', payload: { orderId: notice.orderId } });
    } else if (outcome !== 'duplicate') {
      this.logger.warn({ outcome, gateway: gatewayName, orderId: notice?.orderId, ip }, 'payment notice refused');
    }
    return outcome;
  }
}
