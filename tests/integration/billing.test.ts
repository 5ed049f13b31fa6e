/**
 * Packages, orders and payments over HTTP on both engines: the shop, every order and payment code
 * of docs/product/03-board-courseware-billing.md §8 (and 21006), the sandbox gateway's real notify flow with what each package grants,
 * promo points, paymentSuccess on the buyer's user channel, and forged, wrong-amount and replayed
 * notifications that must change nothing.
 */
import { expect, it } from 'vitest';
import { SandboxGateway, type PaymentRequest } from '#core/platform/payments.ts';
import { call, signIn } from '#tests/support/api.ts';
import { eachEngine } from '#tests/support/engines-matrix.ts';
import { orderAndStartPaying, payOnSandbox, sendNotice, TEST_GATEWAY_SECRET } from '#tests/support/payments.ts';
import { connectUser, record, waitFor, type RoomSocket } from '#tests/support/room-client.ts';
import type { TestServer } from '#tests/support/server.ts';

const DAY = 86_400_000;
const env = { PAYMENT_GATEWAY_SECRET: TEST_GATEWAY_SECRET };

async function vip(server: TestServer, token: string) {
  return call(server.url, 'getUserVipInfo', {}, { token });
}

async function orderState(server: TestServer, orderId: string) {
  return server.banshu.platform.database.db.selectFrom('orders').selectAll().where('order_id', '=', orderId).executeTakeFirstOrThrow();
}

async function userRow(server: TestServer, userId: string) {
  return server.banshu.platform.database.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
}

async function ledger(server: TestServer, userId: string) {
  return server.banshu.platform.database.db.selectFrom('credit_ledger').select(['delta', 'reason']).where('user_id', '=', userId).execute();
}

const userSocket = (server: TestServer, token: string): Promise<RoomSocket> => connectUser(server.url, token);

eachEngine(
  'the shop and orders',
  (server) => {
    it('lists the packages of docs/product/03-board-courseware-billing.md §9 with prices in cents, 10 a page, paged by pageTime', async () => {
      const t = await signIn(server());
      const all = await call(server().url, 'getGoodsList', { pageTime: 0, pageSize: 10 }, { token: t.token, lang: 'en' });
      expect(all.code).toBe('0');
      const byId = Object.fromEntries(all.data.goodsList.map((g: { goodsId: string; goodsPrice: number }) => [g.goodsId, g]));
      expect(byId['GB00000001']).toMatchObject({ goodsType: 1, goodsPrice: 9990, goodsDuration: 30, goodsName: 'Monthly membership' });
      expect(byId['GB00000005']).toMatchObject({ goodsType: 2, goodsPrice: 3990, goodsQuantity: 5, goodsName: '5-use pack' });
      expect(byId['GB00000006']).toMatchObject({ goodsPrice: 6990, goodsQuantity: 10 });
      expect(byId['GB00000007']).toMatchObject({ goodsPrice: 11990, goodsQuantity: 20 });
      expect(byId['GB00000002']).toMatchObject({ goodsType: 3, goodsQuantity: 10, goodsDuration: 30 });
      expect(all.data.hasMore).toBe(false);
      const first = await call(server().url, 'getGoodsList', { pageSize: 3 }, { token: t.token });
      const second = await call(server().url, 'getGoodsList', { pageSize: 3, pageTime: first.data.nextPageTime }, { token: t.token });
      expect(first.data.goodsList).toHaveLength(3);
      expect(first.data.hasMore).toBe(true);
      expect(second.data.goodsList[0]!.goodsId).toBe(all.data.goodsList[3]!.goodsId);
      expect(first.data.goodsList[0]!.goodsName).toBe('月度会员');
      expect((await call(server().url, 'getGoodsList', {})).code).toBe('7');
    });

    it('21006 before anything was bought; buying the 5-use pack over the sandbox gateway grants 5 credits and tells the open pages', async () => {
      const t = await signIn(server());
      expect((await vip(server(), t.token)).code).toBe('21006');
      const page1 = await userSocket(server(), t.token);
      const page2 = await userSocket(server(), t.token);
      const stranger = await userSocket(server(), (await signIn(server())).token);
      const heard = record(stranger, 'paymentSuccess');
      const got = [page1, page2].map((s) => waitFor(s, 'paymentSuccess', () => true, 30_000));

      const { orderId, tn, order } = await orderAndStartPaying(server(), t.token, 'GB00000005');
      expect(order).toMatchObject({ goodsId: 'GB00000005', orderTotalMoney: 3990, orderState: '0', userPhone: t.mobile });
      expect(tn.startsWith(`${server().url}/sandbox-gateway/pay/`)).toBe(true);
      const paid = await payOnSandbox(tn);
      expect(paid.page).toContain('¥39.90');
      expect(paid.page).toContain(orderId);
      expect(paid.result).toContain('支付成功');
      expect(await Promise.all(got)).toEqual([{ orderId }, { orderId }]);
      expect(heard).toEqual([]);
      [page1, page2, stranger].forEach((s) => s.close());

      expect((await vip(server(), t.token)).data.vipUserInfo).toMatchObject({ vipRoomRemainingNumber: 5, vipRoomTime: 0 });
      expect(await ledger(server(), t.userId)).toEqual([{ delta: 5, reason: 'order' }]);
      const info = await call(server().url, 'getOrderInfo', { orderId }, { token: t.token });
      expect(info.data.orderInfo).toMatchObject({ orderState: '1' });
      expect(info.data.orderInfo.payTime).toBeGreaterThan(0);
      // Paying again: the order number is used.
      expect((await call(server().url, 'paymentOrder', { orderId }, { token: t.token })).code).toBe('25004');
      // The paid link, paid twice, is one payment (the gateway's second notice is another txn).
      await payOnSandbox(tn);
      expect((await vip(server(), t.token)).data.vipUserInfo.vipRoomRemainingNumber).toBe(5);
    });

    it('the user channel refuses a page without a session', async () => {
      await expect(userSocket(server(), 'f'.repeat(64))).rejects.toMatchObject({ code: '21001' });
      await expect(userSocket(server(), '')).rejects.toMatchObject({ code: '7' });
    });

    it('the monthly pack extends vipRoomTime by 30 days each time; big-class packages set size and expiry', async () => {
      const t = await signIn(server());
      const now = server().clock.now().getTime();
      await payOnSandbox((await orderAndStartPaying(server(), t.token, 'GB00000001')).tn);
      let info = (await vip(server(), t.token)).data.vipUserInfo;
      expect(info.vipRoomTime).toBe(now + 30 * DAY);
      await payOnSandbox((await orderAndStartPaying(server(), t.token, 'GB00000001')).tn);
      info = (await vip(server(), t.token)).data.vipUserInfo;
      expect(info.vipRoomTime).toBe(now + 60 * DAY);
      expect((await call(server().url, 'getConsumptionStatus', {}, { token: t.token })).data).toEqual({ status: 1, number: 0 });

      await payOnSandbox((await orderAndStartPaying(server(), t.token, 'GB00000003')).tn);
      info = (await vip(server(), t.token)).data.vipUserInfo;
      expect(info).toMatchObject({ vipBigRoomPeopleNumber: 20, vipBigRoomTime: now + 30 * DAY });
      // A smaller package while the bigger one runs: 25008.
      expect((await call(server().url, 'createOrder', { goodsId: 'GB00000002' }, { token: t.token })).code).toBe('25008');
      await payOnSandbox((await orderAndStartPaying(server(), t.token, 'GB00000004')).tn);
      info = (await vip(server(), t.token)).data.vipUserInfo;
      expect(info).toMatchObject({ vipBigRoomPeopleNumber: 30, vipBigRoomTime: now + 60 * DAY });
      // A large class now takes 30 people.
      const room = await call(server().url, 'createRoom', { roomType: 4 }, { token: t.token });
      expect(room.data.roomInfo.maxMember).toBe(30);
    });

    it('lists only the buyer’s orders, 7 a page, newest first; 25002 and 25003 for unknown and foreign orders', async () => {
      const a = await signIn(server());
      const b = await signIn(server());
      const ids: string[] = [];
      for (let i = 0; i < 9; i++) {
        server().clock.advance(1000);
        const r = await call(server().url, 'createOrder', { goodsId: 'GB00000005' }, { token: a.token });
        expect(r.code, `order ${i}`).toBe('0');
        ids.push(r.data.orderInfo.orderId);
      }
      const p1 = await call(server().url, 'getOrderList', {}, { token: a.token });
      expect(p1.data.orderList.map((o: { orderId: string }) => o.orderId)).toEqual(ids.slice(2).reverse());
      expect(p1.data.hasMore).toBe(true);
      const p2 = await call(server().url, 'getOrderList', { pageTime: p1.data.nextPageTime }, { token: a.token });
      expect(p2.data.orderList.map((o: { orderId: string }) => o.orderId)).toEqual(ids.slice(0, 2).reverse());
      expect(p2.data.hasMore).toBe(false);
      expect((await call(server().url, 'getOrderList', {}, { token: b.token })).data.orderList).toEqual([]);

      expect((await call(server().url, 'getOrderInfo', { orderId: ids[0] }, { token: b.token })).code).toBe('25003');
      expect((await call(server().url, 'paymentOrder', { orderId: ids[0] }, { token: b.token })).code).toBe('25003');
      expect((await call(server().url, 'getOrderInfo', { orderId: 'BS20990101000000123456' }, { token: a.token })).code).toBe('25002');
      expect((await call(server().url, 'paymentOrder', { orderId: 'BS20990101000000123456' }, { token: a.token })).code).toBe('25002');
      // An order past its payment time cannot be paid.
      server().clock.advance(31 * 60_000);
      expect((await call(server().url, 'paymentOrder', { orderId: ids[8] }, { token: a.token })).code).toBe('25002');
      expect((await orderState(server(), ids[0]!)).promo_code).toBeNull();
    });

    it('promo codes: 25011 unknown, 25012 one’s own; the promoter earns points when the order is paid', async () => {
      const buyer = await signIn(server());
      const promoter = await signIn(server());
      const own = (await call(server().url, 'queryUserInfoByToken', {}, { token: buyer.token })).data.userInfo.promoCode;
      const theirs = (await call(server().url, 'queryUserInfoByToken', {}, { token: promoter.token })).data.userInfo.promoCode;
      const order = await call(server().url, 'createOrder', { goodsId: 'GB00000006' }, { token: buyer.token });
      const orderId = order.data.orderInfo.orderId;
      expect((await call(server().url, 'paymentOrder', { orderId, promoCode: 'ZZZZZZ' }, { token: buyer.token })).code).toBe('25011');
      expect((await call(server().url, 'paymentOrder', { orderId, promoCode: own }, { token: buyer.token })).code).toBe('25012');
      expect((await call(server().url, 'paymentOrder', { orderId, promoCode: 'ABCDEFGHIJK' }, { token: buyer.token })).code).toBe('5');
      const pay = await call(server().url, 'paymentOrder', { orderId, promoCode: theirs.toLowerCase() }, { token: buyer.token });
      expect(pay.code).toBe('0');
      expect((await userRow(server(), promoter.userId)).promo_points).toBe(0);
      await payOnSandbox(pay.data.tn);
      expect((await userRow(server(), promoter.userId)).promo_points).toBe(10);
      expect((await userRow(server(), buyer.userId)).promo_points).toBe(0);
      const info = await call(server().url, 'queryUserInfoByToken', {}, { token: promoter.token });
      expect(info.data.userInfo.promoPoints).toBe(10);
    });

    it('25004: a create retried with the request id of a paid order; the same request id before payment is the same order', async () => {
      const t = await signIn(server());
      const first = await call(server().url, 'createOrder', { goodsId: 'GB00000005' }, { token: t.token, requestId: 'req-1' });
      const again = await call(server().url, 'createOrder', { goodsId: 'GB00000005' }, { token: t.token, requestId: 'req-1' });
      expect(again.data.orderInfo.orderId).toBe(first.data.orderInfo.orderId);
      const pay = await call(server().url, 'paymentOrder', { orderId: first.data.orderInfo.orderId }, { token: t.token });
      await payOnSandbox(pay.data.tn);
      expect((await call(server().url, 'createOrder', { goodsId: 'GB00000005' }, { token: t.token, requestId: 'req-1' })).code).toBe(
        '25004',
      );
      expect((await call(server().url, 'getOrderList', {}, { token: t.token })).data.orderList).toHaveLength(1);
    });

    it('visitors cannot buy', async () => {
      const t = await signIn(server());
      const room = await call(server().url, 'createRoom', { roomType: 2 }, { token: t.token });
      const tourist = await call(server().url, 'touristJoinRoom', { roomNumber: room.data.roomInfo.roomNumber, userName: 'Ann' });
      expect((await call(server().url, 'createOrder', { goodsId: 'GB00000005' }, { token: tourist.data.userInfo!.userToken })).code).toBe(
        '31004',
      );
    });

    it('a forged signature, a wrong amount, an unknown order and replays change nothing', async () => {
      const t = await signIn(server());
      const { orderId, order } = await orderAndStartPaying(server(), t.token, 'GB00000007');
      const notice = (over: Record<string, unknown> = {}) =>
        JSON.stringify({ orderId, txn: 'TXN0000000001', amount: order.orderTotalMoney, status: 'SUCCESS', paidAt: Date.now(), ...over });
      const unchanged = async () => {
        expect((await orderState(server(), orderId)).state).toBe('created');
        expect((await userRow(server(), t.userId)).vip_room_remaining_number).toBe(0);
        expect(await ledger(server(), t.userId)).toEqual([]);
      };
      expect(await sendNotice(server(), notice(), { secret: 'not-the-gateway-secret-at-all-0000000' })).toEqual({
        status: 400,
        text: 'fail',
      });
      expect(await sendNotice(server(), notice(), 'garbage')).toEqual({ status: 400, text: 'fail' });
      expect(await sendNotice(server(), notice(), '')).toEqual({ status: 400, text: 'fail' });
      // Signed, then altered in transit.
      const signedBody = notice({ amount: 1 });
      const { signNotice } = await import('#core/platform/payments.ts');
      const sig = signNotice(TEST_GATEWAY_SECRET, signedBody);
      expect((await sendNotice(server(), signedBody.replace('"amount":1', `"amount":${order.orderTotalMoney}`), sig)).status).toBe(400);
      await unchanged();
      // Correctly signed but the wrong amount, or an order we do not have.
      expect(await sendNotice(server(), notice({ amount: 1 }), { secret: TEST_GATEWAY_SECRET })).toEqual({ status: 400, text: 'fail' });
      expect((await sendNotice(server(), notice({ orderId: 'BS20990101000000000000' }), { secret: TEST_GATEWAY_SECRET })).status).toBe(400);
      expect((await sendNotice(server(), notice({ status: 'FAILED' }), { secret: TEST_GATEWAY_SECRET })).status).toBe(400);
      await unchanged();
      // The genuine notice, then replays of it, at once and later: granted once.
      const genuine = notice();
      const results = await Promise.all([1, 2, 3].map(() => sendNotice(server(), genuine, { secret: TEST_GATEWAY_SECRET })));
      expect(results.every((r) => r.text === 'success')).toBe(true);
      await sendNotice(server(), genuine, { secret: TEST_GATEWAY_SECRET });
      await sendNotice(server(), notice({ txn: 'TXN0000000002' }), { secret: TEST_GATEWAY_SECRET });
      expect((await userRow(server(), t.userId)).vip_room_remaining_number).toBe(20);
      expect(await ledger(server(), t.userId)).toEqual([{ delta: 20, reason: 'order' }]);
      expect((await orderState(server(), orderId)).gateway_txn).toBe('TXN0000000001');
      const outcomes = await server().banshu.platform.database.db.selectFrom('payment_notices').select('outcome').orderBy('id').execute();
      const seen = outcomes.map((o) => o.outcome);
      expect(seen.slice(0, 7)).toEqual([
        'bad-signature',
        'bad-signature',
        'bad-signature',
        'bad-signature',
        'wrong-amount',
        'unknown-order',
        'bad-signature',
      ]);
      // The three at once are recorded in the order they finished: one paid, two duplicates.
      expect(seen.slice(7, 10).sort()).toEqual(['duplicate', 'duplicate', 'paid']);
      expect(seen.slice(10)).toEqual(['duplicate', 'already-paid']);
      // A forged pay-page link is refused by the gateway itself.
      const forged = await fetch(`${server().url}/sandbox-gateway/pay/${'a'.repeat(40)}.${'b'.repeat(43)}`);
      expect(forged.status).toBe(404);
    });
  },
  { env },
);

eachEngine(
  'order limits',
  (server) => {
    it('25007 off the shelf or unknown; 25009 the day’s limit for one package; 25010 too many orders in a day', async () => {
      const t = await signIn(server());
      expect((await call(server().url, 'createOrder', { goodsId: 'GB00000007' }, { token: t.token })).code).toBe('25007');
      expect((await call(server().url, 'createOrder', { goodsId: 'GB00000099' }, { token: t.token })).code).toBe('25007');
      const goods = await call(server().url, 'getGoodsList', {}, { token: t.token });
      expect(goods.data.goodsList.map((g: { goodsId: string }) => g.goodsId)).not.toContain('GB00000007');
      expect(goods.data.goodsList.find((g: { goodsId: string }) => g.goodsId === 'GB00000005')!.goodsPrice).toBe(100);

      await payOnSandbox((await orderAndStartPaying(server(), t.token, 'GB00000005')).tn);
      expect((await call(server().url, 'createOrder', { goodsId: 'GB00000005' }, { token: t.token })).code).toBe('25009');
      expect((await call(server().url, 'createOrder', { goodsId: 'GB00000006' }, { token: t.token })).code).toBe('0');
      expect((await call(server().url, 'createOrder', { goodsId: 'GB00000001' }, { token: t.token })).code).toBe('0');
      expect((await call(server().url, 'createOrder', { goodsId: 'GB00000001' }, { token: t.token })).code).toBe('25010');
      // The next day in China (UTC+8) the counts start again.
      const now = server().clock.now().getTime();
      server().clock.set(Math.floor((now + 8 * 3600_000) / DAY) * DAY + DAY - 8 * 3600_000 + 1000);
      expect((await call(server().url, 'createOrder', { goodsId: 'GB00000005' }, { token: t.token })).code).toBe('0');
    });
  },
  { env: { ...env, GOODS_OFF_SHELF: 'GB00000007', GOODS_PRICES: 'GB00000005=100', ORDERS_PER_DAY: '3', PURCHASES_PER_GOODS_PER_DAY: '1' } },
);

class DownGateway extends SandboxGateway {
  override createPayment(_r: PaymentRequest): Promise<{ tn: string }> {
    return Promise.reject(new Error('gateway unreachable'));
  }
}

eachEngine(
  'a gateway that is down',
  (server) => {
    it('25006 when the gateway cannot make the QR code; the order stays payable', async () => {
      const t = await signIn(server());
      const order = await call(server().url, 'createOrder', { goodsId: 'GB00000005' }, { token: t.token });
      const pay = await call(server().url, 'paymentOrder', { orderId: order.data.orderInfo.orderId }, { token: t.token });
      expect(pay.code).toBe('25006');
      expect((await orderState(server(), order.data.orderInfo.orderId)).state).toBe('created');
    });
  },
  { env, overrides: { payments: new DownGateway(TEST_GATEWAY_SECRET, () => 'http://127.0.0.1:9') } },
);

eachEngine(
  'no gateway (PAYMENT_GATEWAY=off, the production default)',
  (server) => {
    it('lists packages but takes no payment: 25006, no sandbox pay page, every notice refused', async () => {
      const t = await signIn(server());
      expect((await call(server().url, 'getGoodsList', {}, { token: t.token })).data.goodsList.length).toBeGreaterThan(0);
      const order = await call(server().url, 'createOrder', { goodsId: 'GB00000005' }, { token: t.token });
      expect((await call(server().url, 'paymentOrder', { orderId: order.data.orderInfo.orderId }, { token: t.token })).code).toBe('25006');
      expect((await fetch(`${server().url}/sandbox-gateway/pay/${'a'.repeat(40)}.${'b'.repeat(43)}`)).status).toBe(404);
      const body = JSON.stringify({
        orderId: order.data.orderInfo.orderId,
        txn: 'TXN0000000001',
        amount: 3990,
        status: 'SUCCESS',
        paidAt: Date.now(),
      });
      expect((await sendNotice(server(), body, { secret: TEST_GATEWAY_SECRET })).status).toBe(400);
      expect((await orderState(server(), order.data.orderInfo.orderId)).state).toBe('created');
    });
  },
  { env: { ...env, PAYMENT_GATEWAY: 'off' } },
);

eachEngine(
  'promo points exchanged for packages (ADR 057)',
  (server) => {
    const grantPoints = (userId: string, points: number) =>
      server().banshu.platform.database.db.updateTable('users').set({ promo_points: points }).where('id', '=', userId).execute();

    it('prices each package in points; not enough points is 25013 and changes nothing', async () => {
      const t = await signIn(server());
      const goods = await call(server().url, 'getGoodsList', {}, { token: t.token });
      const byId = Object.fromEntries(
        goods.data.goodsList.map((g: { goodsId: string; goodsPoints: number }) => [g.goodsId, g.goodsPoints]),
      );
      // 100 cents a point, rounded up: ¥39.90 -> 40 points, ¥99.90 -> 100.
      expect(byId).toMatchObject({ GB00000005: 40, GB00000001: 100, GB00000006: 70 });
      await grantPoints(t.userId, 39);
      const short = await call(server().url, 'exchangePromoPoints', { goodsId: 'GB00000005' }, { token: t.token });
      expect(short.code).toBe('25013');
      expect((await userRow(server(), t.userId)).promo_points).toBe(39);
      expect((await call(server().url, 'getOrderList', {}, { token: t.token })).data.orderList).toEqual([]);
      expect((await vip(server(), t.token)).code).toBe('21006');
    });

    it('takes the points, records a paid order and grants the package in one go; a retried request takes nothing more', async () => {
      const t = await signIn(server());
      await grantPoints(t.userId, 100);
      const done = await call(server().url, 'exchangePromoPoints', { goodsId: 'GB00000005' }, { token: t.token, requestId: 'swap-1' });
      expect(done.code).toBe('0');
      expect(done.data.promoPoints).toBe(60);
      expect(done.data.orderInfo).toMatchObject({
        goodsId: 'GB00000005',
        orderState: '1',
        orderTotalMoney: 3990,
        pointsSpent: 40,
        orderDetail: '+5',
      });
      expect((await userRow(server(), t.userId)).promo_points).toBe(60);
      expect((await vip(server(), t.token)).data.vipUserInfo).toMatchObject({ vipRoomRemainingNumber: 5 });
      expect(await ledger(server(), t.userId)).toEqual([{ delta: 5, reason: 'order' }]);
      // The browser retries the same request (a lost answer): the same order, no second charge.
      const again = await call(server().url, 'exchangePromoPoints', { goodsId: 'GB00000005' }, { token: t.token, requestId: 'swap-1' });
      expect(again.code).toBe('0');
      expect(again.data.orderInfo.orderId).toBe(done.data.orderInfo.orderId);
      expect(again.data.promoPoints).toBe(60);
      const list = await call(server().url, 'getOrderList', {}, { token: t.token });
      expect(list.data.orderList).toHaveLength(1);
      expect(list.data.orderList[0]).toMatchObject({ orderState: '1', pointsSpent: 40 });
      // Nobody earns points from an exchange, and the order is not payable in money.
      const pay = await call(server().url, 'paymentOrder', { orderId: done.data.orderInfo.orderId }, { token: t.token });
      expect(pay.code).toBe('25004');
    });

    it('two exchanges at once with points for one: exactly one goes through', async () => {
      const t = await signIn(server());
      await grantPoints(t.userId, 70);
      const tries = await Promise.all([
        call(server().url, 'exchangePromoPoints', { goodsId: 'GB00000005' }, { token: t.token }),
        call(server().url, 'exchangePromoPoints', { goodsId: 'GB00000006' }, { token: t.token }),
      ]);
      expect(tries.map((r) => r.code).sort()).toEqual(['0', '25013']);
      const left = (await userRow(server(), t.userId)).promo_points;
      expect([30, 0]).toContain(left);
      expect((await call(server().url, 'getOrderList', {}, { token: t.token })).data.orderList).toHaveLength(1);
    });

    it('follows the shop’s rules: off the shelf 25007, a lower big class 25008, the day’s limit 25009; only teachers', async () => {
      const t = await signIn(server());
      await grantPoints(t.userId, 10_000);
      expect((await call(server().url, 'exchangePromoPoints', { goodsId: 'GB00000007' }, { token: t.token })).code).toBe('25007');
      expect((await call(server().url, 'exchangePromoPoints', { goodsId: 'GB00000099' }, { token: t.token })).code).toBe('25007');
      expect((await call(server().url, 'exchangePromoPoints', { goodsId: 'GB00000003' }, { token: t.token })).code).toBe('0');
      expect((await call(server().url, 'exchangePromoPoints', { goodsId: 'GB00000002' }, { token: t.token })).code).toBe('25008');
      expect((await call(server().url, 'exchangePromoPoints', { goodsId: 'GB00000005' }, { token: t.token })).code).toBe('0');
      expect((await call(server().url, 'exchangePromoPoints', { goodsId: 'GB00000005' }, { token: t.token })).code).toBe('25009');
      expect((await userRow(server(), t.userId)).promo_points).toBe(10_000 - 300 - 40);
      const tourist = await call(server().url, 'touristJoinRoom', { roomNumber: '000000', userName: 'Guest' });
      expect(tourist.code).not.toBe('0');
      expect((await call(server().url, 'exchangePromoPoints', { goodsId: 'GB00000005' })).code).toBe('7');
    });
  },
  { env: { ...env, GOODS_OFF_SHELF: 'GB00000007', PURCHASES_PER_GOODS_PER_DAY: '1' } },
);
