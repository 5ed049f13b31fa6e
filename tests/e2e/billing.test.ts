/**
 * Buying a package end to end (order -> QR -> the pay URL on a second device -> pay -> success on
 * the first page within 2 s -> countdown -> order list), then spending the credit on a paid mini
 * class; the personal centre, message centre, feedback, the admin page, the landing page's trial
 * form and the site notice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page, Response } from 'playwright-core';
import { expectToast, newMobile, open, openPicker, signIn, startWorld, waitForPath, type World } from './helpers.ts';

const ADMIN = newMobile();
let world: World;
let teacher: Page;

beforeAll(async () => {
  world = await startWorld({
    env: {
      ADMIN_MOBILES: ADMIN,
      SITE_NOTICE_ZH: '本站将于周六凌晨维护一小时',
      SITE_NOTICE_EN: 'Maintenance on Saturday night',
      SITE_NOTICE_DATE: '2026-11-20',
    },
  });
  teacher = (await world.person()).page;
  await signIn(teacher, world.server);
});
afterAll(async () => {
  await world?.close();
});

describe('buying the 5-use pack', () => {
  it('orders, shows the QR code, and turns to success within 2 s of paying on a second device, then to the order list', async () => {
    await open(teacher, '/profile/payment');
    await teacher.getByText('只有老师需要付费，学生免费使用。').waitFor();
    const card = teacher.locator('[data-goods="GB00000005"]');
    await expect(card.locator('.goods__price').innerText()).resolves.toBe('¥39.90');
    await card.getByRole('button', { name: /购买/ }).click();
    await teacher.getByRole('heading', { name: '确认订单' }).waitFor();
    const orderId = (await teacher.getByTestId('pay-order-id').innerText()).trim();
    await teacher.getByLabel('推广码（选填）').fill('NOSUCH');
    await teacher.getByRole('button', { name: '去支付' }).click();
    await expectToast(teacher, '推广码不正确，请重新输入');
    await teacher.getByLabel('推广码（选填）').fill('');
    await teacher.getByRole('button', { name: '去支付' }).click();
    const qr = teacher.getByTestId('pay-qr');
    await qr.waitFor();
    const tn = (await qr.getAttribute('data-tn'))!;
    expect(tn).toContain('/sandbox-gateway/pay/');
    expect(await teacher.getByTestId('pay-link').getAttribute('href')).toBe(tn);

    // The payer's phone opens what the QR code encodes.
    const phone = (await world.person({ viewport: { width: 390, height: 844 }, isMobile: true })).page;
    await phone.goto(tn);
    await expect(phone.getByTestId('sandbox-amount').innerText()).resolves.toBe('¥39.90');
    await expect(phone.getByTestId('sandbox-order').innerText()).resolves.toBe(orderId);
    const paidAt = Date.now();
    await phone.getByRole('button', { name: /确认支付/ }).click();
    await teacher.getByTestId('pay-success').waitFor({ timeout: 2000 });
    expect(Date.now() - paidAt).toBeLessThan(2000);
    await phone.getByTestId('sandbox-done').waitFor();
    await teacher.getByText(/5 秒后跳转到订单列表|4 秒后跳转到订单列表/).waitFor();

    // The countdown leads to the order list with the paid order, and membership reloads.
    const row = teacher.locator(`[data-order="${orderId}"]`);
    await row.waitFor({ timeout: 8000 });
    await expect(row.innerText()).resolves.toContain('已支付');
    await expect(teacher.getByTestId('pay-membership').innerText()).resolves.toContain('剩余课时：5');
  });

  it('shows 5 credits, the promo code and its explanation in the personal centre', async () => {
    await open(teacher, '/profile/personal');
    await expect(teacher.getByTestId('personal-credits').innerText()).resolves.toBe('剩余课时：5');
    await expect(teacher.getByTestId('promo-code').innerText()).resolves.toMatch(/^[A-Z0-9]{6}$/);
    await expect(teacher.getByTestId('promo-points').innerText()).resolves.toBe('0');
    await teacher.getByRole('button', { name: '什么是推广码？' }).click();
    const dialog = teacher.getByRole('dialog', { name: '什么是推广码？' });
    await dialog
      .getByText(/推广积分/)
      .first()
      .waitFor();
    await teacher.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('asks before spending a credit on a paid mini class, spends one, and none again within 3 hours', async () => {
    await open(teacher, '/');
    await openPicker(teacher);
    await teacher.getByTestId('create-paidMini').click();
    const dialog = teacher.getByRole('dialog', { name: '创建付费小班课' });
    await dialog.getByText('剩余课时：5').waitFor();
    await dialog.getByRole('button', { name: '创建付费版（课时 -1）' }).click();
    await teacher.waitForURL((url) => /^\/\d{6}$/.test(url.pathname));
    await expect(teacher.getByTestId('room-type').innerText()).resolves.toContain('会员教室');

    await open(teacher, '/');
    await openPicker(teacher);
    await teacher.getByTestId('create-paidMini').click();
    await teacher.waitForURL((url) => /^\/\d{6}$/.test(url.pathname));
    await teacher.getByTestId('room-number').waitFor();

    await open(teacher, '/profile/personal');
    await expect(teacher.getByTestId('personal-credits').innerText()).resolves.toBe('剩余课时：4');
  });
});

describe('promo points', () => {
  it('exchanges points for a package: only what the points reach, a confirm, then the package and the order at once', async () => {
    const { page } = await world.person();
    const mobile = await signIn(page, world.server);
    await world.server.banshu.platform.database.db.updateTable('users').set({ promo_points: 50 }).where('mobile', '=', mobile).execute();
    await open(page, '/profile/personal');
    await expect(page.getByTestId('promo-points').innerText()).resolves.toBe('50');
    await page.getByTestId('exchange-open').click();
    const dialog = page.getByRole('dialog', { name: '推广积分兑换' });
    const pack = dialog.locator('[data-goods="GB00000005"]');
    const month = dialog.locator('[data-goods="GB00000001"]');
    await expect(pack.innerText()).resolves.toContain('40 积分');
    expect(await month.getByTestId('exchange-do').isDisabled()).toBe(true);
    await expect(month.getByTestId('exchange-do').innerText()).resolves.toBe('还差 50 积分');
    await pack.getByTestId('exchange-do').click();
    await page.getByRole('dialog', { name: '确定兑换吗？' }).getByRole('button', { name: '兑换' }).click();
    await expectToast(page, '已兑换5 次课时包');
    await expect(dialog.getByTestId('exchange-balance').innerText()).resolves.toBe('10');
    expect(await pack.getByTestId('exchange-do').isDisabled()).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('promo-points').innerText()).toBe('10');
    await expect(page.getByTestId('personal-credits').innerText()).resolves.toBe('剩余课时：5');
    await open(page, '/profile/payment');
    await page.getByRole('tab', { name: '我的订单' }).click();
    const row = page.getByTestId('order-list').locator('tbody tr').first();
    await expect(row.innerText()).resolves.toContain('40 积分');
    await expect(row.innerText()).resolves.toContain('已支付');
  });
});

describe('messages, feedback and operators', () => {
  it('refuses the admin page to a teacher who is not an operator', async () => {
    const res = await teacher.goto('/admin');
    expect(res?.status()).toBe(404);
  });

  it('an operator publishes an announcement; a teacher reads it in the message centre and goes back', async () => {
    const { page: admin } = await world.person();
    await signIn(admin, world.server, ADMIN);
    await open(admin, '/admin');
    await admin.getByLabel('标题').fill('寒假课程安排');
    await admin.getByLabel('内容').fill('一月十日起暂停排课。\n二月恢复。');
    await admin.getByRole('button', { name: '发布' }).click();
    await expectToast(admin, '已发布');

    await open(teacher, '/profile/message');
    await teacher.getByRole('button', { name: /寒假课程安排/ }).click();
    await teacher.getByRole('heading', { name: '寒假课程安排' }).waitFor();
    await expect(teacher.getByTestId('message-content').innerText()).resolves.toBe('一月十日起暂停排课。\n二月恢复。');
    await teacher.getByRole('button', { name: '返回' }).click();
    await teacher.getByRole('heading', { name: '消息中心' }).waitFor();
  });

  it('sends feedback with the captcha, refreshed by a click', async () => {
    // Every captcha image the page loads, by its address: a wrong code also draws a new image, so
    // the code to type is the one of the image shown now, not of the last response seen.
    const images = new Map<string, Promise<string>>();
    const onResponse = (r: Response) => {
      if (r.url().includes('/feedback/captcha')) images.set(new URL(r.url()).search, r.text());
    };
    teacher.on('response', onResponse);
    const shownCode = async () => {
      const src = (await teacher.getByTestId('captcha').getAttribute('src')) ?? '';
      const search = new URL(src, world.server.url).search;
      await expect.poll(() => images.has(search)).toBe(true);
      return [...(await images.get(search)!).matchAll(/>(\d)<\/text>/g)].map((m) => m[1]).join('');
    };
    try {
      await open(teacher, '/profile/feedback');
      const submit = teacher.getByRole('button', { name: '提交' });
      expect(await submit.isDisabled()).toBe(true);
      await teacher.getByLabel('反馈内容').fill('白板很好用');
      // Clicking the image draws a new code; read it from the image the server sent.
      const before = await teacher.getByTestId('captcha').getAttribute('src');
      await teacher.getByRole('button', { name: /看不清|验证码图片/ }).click();
      await expect.poll(() => teacher.getByTestId('captcha').getAttribute('src')).not.toBe(before);
      const code = await shownCode();
      expect(code).toMatch(/^\d{4}$/);
      await teacher.getByLabel('验证码', { exact: true }).fill(code === '0000' ? '9999' : '0000');
      await submit.click();
      await expectToast(teacher, '验证码错误，请重新输入');
      const afterWrong = await teacher.getByTestId('captcha').getAttribute('src');
      await teacher.getByRole('button', { name: /看不清|验证码图片/ }).click();
      await expect.poll(() => teacher.getByTestId('captcha').getAttribute('src')).not.toBe(afterWrong);
      const good = await shownCode();
      await teacher.getByLabel('验证码', { exact: true }).fill(good);
      await submit.click();
      await teacher.getByRole('dialog', { name: '提交成功' }).waitFor();
    } finally {
      teacher.off('response', onResponse);
    }
  });
});

describe('public pages', () => {
  it('takes a trial application on the landing page and shows the dated site notice', async () => {
    const { page } = await world.person();
    await open(page, '/home');
    await expect(page.getByTestId('site-notice').innerText()).resolves.toContain('本站将于周六凌晨维护一小时');
    await expect(page.getByTestId('site-notice').innerText()).resolves.toContain('2026-11-20');
    await page.getByLabel('姓名').fill('王老师');
    await page.getByLabel('手机号').fill('13800138000');
    await page.getByLabel('学校或机构（选填）').fill('实验小学');
    await page.getByRole('button', { name: '提交申请' }).click();
    await expect(page.getByTestId('trial-result').innerText()).resolves.toBe('申请已提交，我们会尽快联系你。');
    const rows = await world.server.banshu.platform.services.site.latestTrials();
    expect(rows.map((r) => [r.name, r.mobile, r.organisation])).toEqual([['王老师', '13800138000', '实验小学']]);
    await page.getByRole('button', { name: '关闭通知' }).click();
    await page.reload();
    await page.locator('html[data-hydrated="true"]').waitFor({ state: 'attached' });
    expect(await page.getByTestId('site-notice').count()).toBe(0);
  });

  it('serves help pages in both languages and store links from the settings', async () => {
    const { page } = await world.person();
    await open(page, '/help/camera');
    await page.getByRole('heading', { name: '摄像头' }).waitFor();
    await page.getByRole('link', { name: '麦克风' }).click();
    await waitForPath(page, '/help/microphone');
    expect((await page.goto('/help/nothing'))?.status()).toBe(404);
    await open(page, '/h5down');
    // No store set: no store button at all, and the way on is the phone's browser (ADR 103).
    await expect(page.getByTestId('download-phone-browser').innerText()).resolves.toContain('Safari');
    await expect(page.getByTestId('store-list').count()).resolves.toBe(0);
  });
});
