/**
 * The download pages and the classroom's links out (issue 27, ADR 103): QR codes of the operator's
 * store links on a computer, direct links and the iPad app on a phone, the 'open in browser' guide
 * inside WeChat, `/download` without a type; the creator's upgrade and online-service links, and
 * the call to upgrade when a free room is full. A second site with no stores, no service link and
 * no payment gateway shows none of them, and no button that 'is not available yet'.
 * Screenshots go to $SHOTS when it is set.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import QRCode from 'qrcode';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_QR_OPTIONS } from '#app/site/stores.ts';
import { newMobile, open, pathOf, signIn, startWorld, UA, waitForPath, type World } from './helpers.ts';
import { axeProblems, layoutProblems, PHONE, setLang, VIEWPORTS, type Lang, type Size } from './tour.ts';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = process.env['SHOTS'] ?? '';
const STORES = {
  iphone: 'https://apps.apple.com/app/banshu/id1234567890',
  ipad: 'https://apps.apple.com/app/banshu-hd/id1234567891',
  android: 'https://downloads.banshu.example/banshu-android.apk',
};
const SERVICE_URL = 'https://help.banshu.example/chat';
const WECHAT_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.47(0x18002f2c) NetType/WIFI Language/zh_CN';
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
const NOT_YET = /暂未上架|not available yet/i;

async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/download-links-${name}.png`, fullPage: true });
}

/** Layout rules and axe on the page showing now; every problem as a line. */
async function checkPage(page: Page, label: string): Promise<string[]> {
  const problems = [...(await layoutProblems(page, { topBarOneRow: false, tilesBeside: false })), ...(await axeProblems(page, AXE))];
  return problems.map((p) => `${label}: ${p}`);
}

async function signedInTeacher(world: World): Promise<{ context: BrowserContext; page: Page }> {
  const person = await world.person();
  await signIn(person.page, world.server, newMobile());
  return person;
}

/** A free mini class (2 seats, the teacher's included), opened by its creator. */
async function freeMiniClass(page: Page): Promise<string> {
  const made = await page.request.post('/api/createAgoraRoom', { data: { roomType: 1, consumption: 'off' } });
  const info = ((await made.json()) as { data: { roomInfo: { roomNumber: string; maxMember: number; isVIP: string } } }).data.roomInfo;
  expect(info).toMatchObject({ maxMember: 2, isVIP: '0' });
  await open(page, `/${info.roomNumber}`);
  await page.getByTestId('top-bar').waitFor({ timeout: 30_000 });
  return info.roomNumber;
}

describe('with store links, a service link and payments on', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({
      env: { STORE_IPHONE_URL: STORES.iphone, STORE_IPAD_URL: STORES.ipad, STORE_ANDROID_URL: STORES.android, SERVICE_URL },
    });
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  it('on a computer: a QR code of each store link, Chrome for Windows and Mac; the header restyles after 20 px', async () => {
    const { page } = await world.person();
    await open(page, '/download/pc');
    for (const [key, url] of Object.entries(STORES)) {
      const qr = page.getByTestId(`store-qr-${key}`);
      // The picture is the QR code of exactly this store's address.
      await expect(qr.getAttribute('src')).resolves.toBe(await QRCode.toDataURL(url, { ...STORE_QR_OPTIONS }));
      await expect(qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).resolves.toBe(STORE_QR_OPTIONS.width);
      await expect(page.getByTestId(`store-link-${key}`).getAttribute('href')).resolves.toBe(url);
    }
    await expect(page.getByTestId('chrome-windows').getAttribute('href')).resolves.toMatch(/^https:\/\/www\.google\.com\/chrome/);
    await expect(page.getByTestId('chrome-mac').getAttribute('href')).resolves.toMatch(/^https:\/\/www\.google\.com\/chrome/);
    await expect(page.locator('body').innerText()).resolves.not.toMatch(NOT_YET);
    await expect(page.getByTestId('wechat-guide').count()).resolves.toBe(0);
    const header = page.locator('.download__header');
    await expect(header.getAttribute('data-scrolled')).resolves.toBe('false');
    await page.mouse.wheel(0, 60);
    await expect.poll(() => header.getAttribute('data-scrolled')).toBe('true');
    await page.mouse.wheel(0, -200);
    await expect.poll(() => header.getAttribute('data-scrolled')).toBe('false');
  });

  it('on a phone: direct links, this phone’s store first, and the iPad app; no QR codes', async () => {
    const { page } = await world.person(PHONE);
    await open(page, '/download/ios');
    await expect(page.locator('[data-testid^="store-qr-"]').count()).resolves.toBe(0);
    const links = page.locator('[data-testid="store-list"] a');
    await expect(links.evaluateAll((as) => as.map((a) => a.getAttribute('href')))).resolves.toEqual([
      STORES.iphone,
      STORES.ipad,
      STORES.android,
    ]);
    await expect(page.getByTestId('store-link-ipad').innerText()).resolves.toMatch(/iPad/);
    await expect(page.getByTestId('store-link-iphone').getAttribute('class')).resolves.toContain('btn--primary');
    // The phone's section comes before the computer's on the iPhone page.
    const order = await page
      .locator('[data-testid="download-phone"], [data-testid="download-computer"]')
      .evaluateAll((s) => s.map((e) => e.getAttribute('data-testid')));
    expect(order).toEqual(['download-phone', 'download-computer']);
    // Android's own store first on an Android phone.
    const android = await world.person({ ...PHONE, userAgent: ANDROID });
    await open(android.page, '/download/android');
    await expect(android.page.locator('[data-testid="store-list"] a').first().getAttribute('href')).resolves.toBe(STORES.android);
    // The mobile download page: the same links with the system each needs.
    await open(page, '/h5down');
    await expect(page.getByTestId('store-link-ipad').getAttribute('href')).resolves.toBe(STORES.ipad);
    await expect(page.getByTestId('store-ipad').innerText()).resolves.toMatch(/iOS 10\.10/);
    await expect(page.getByTestId('store-android').innerText()).resolves.toMatch(/Android 6\.0/);
  });

  it('inside WeChat: the guide to open the page in the browser', async () => {
    const { page } = await world.person({ ...PHONE, userAgent: WECHAT_IPHONE });
    await open(page, '/download/ios');
    const guide = page.getByTestId('wechat-guide');
    await guide.waitFor();
    await expect(guide.innerText()).resolves.toMatch(/···/);
    await expect(guide.innerText()).resolves.toMatch(/在浏览器打开/);
    await expect(guide.getByRole('img').getAttribute('aria-label')).resolves.toMatch(/在浏览器打开/);
    // At the top of the page, before the title.
    const [g, h1] = await Promise.all([guide.boundingBox(), page.locator('h1').boundingBox()]);
    expect(g!.y).toBeLessThan(h1!.y);
  });

  it('/download opens the download page of the visitor’s system', async () => {
    const desk = await world.person();
    await open(desk.page, '/download');
    expect(pathOf(desk.page)).toBe('/download/pc');
    const phone = await world.person(PHONE);
    await open(phone.page, '/download');
    expect(pathOf(phone.page)).toBe('/download/ios');
    const android = await world.person({ ...PHONE, userAgent: ANDROID });
    await open(android.page, '/download');
    expect(pathOf(android.page)).toBe('/download/android');
    const unknown = await desk.page.request.get('/download/windows', { maxRedirects: 0 });
    expect(unknown.status()).toBe(404);
  });

  it('every variant passes the layout rules and axe at 1280x720 and 390x844 in both languages', async () => {
    const found: string[] = [];
    const variants: Array<{ name: string; path: string; userAgent?: string }> = [
      { name: 'pc', path: '/download/pc' },
      { name: 'ios', path: '/download/ios', userAgent: UA.iphone },
      { name: 'wechat', path: '/download/ios', userAgent: WECHAT_IPHONE },
      { name: 'h5down', path: '/h5down', userAgent: UA.iphone },
      { name: 'h5down-pc', path: '/h5down' },
    ];
    for (const v of variants) {
      for (const size of ['1280', '390'] as Size[]) {
        const { context, page } = await world.person({ viewport: VIEWPORTS[size], ...(v.userAgent ? { userAgent: v.userAgent } : {}) });
        for (const lang of ['zh', 'en'] as Lang[]) {
          await setLang(context, world.server.url, lang);
          await open(page, v.path);
          await page.locator(`html[lang="${lang === 'zh' ? 'zh-CN' : 'en'}"]`).waitFor({ state: 'attached' });
          found.push(...(await checkPage(page, `${v.name} ${size} ${lang}`)));
          await shot(page, `${lang}-${size}-${v.name}`);
        }
        await context.close();
      }
    }
    expect(found).toEqual([]);
  });

  it('the creator’s upgrade and online-service links go where they say; a full free room calls to upgrade', async () => {
    const teacher = await signedInTeacher(world);
    // The operator's service page is outside the product: answered here.
    await teacher.context.route(`${SERVICE_URL}**`, (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>Service</title><h1>Service</h1>' }),
    );
    const room = await freeMiniClass(teacher.page);
    await expect(teacher.page.getByTestId('upgrade-call').count()).resolves.toBe(0);

    await teacher.page.getByTestId('more-button').click();
    const upgrade = teacher.page.getByTestId('more-upgrade');
    await expect(upgrade.getAttribute('target')).resolves.toBe('_blank');
    const [payment] = await Promise.all([teacher.context.waitForEvent('page'), upgrade.click()]);
    await waitForPath(payment, '/profile/payment');
    await payment.close();
    expect(pathOf(teacher.page)).toBe(`/${room}`);

    await teacher.page.getByTestId('more-button').click();
    const service = teacher.page.getByTestId('more-service');
    await expect(service.getAttribute('href')).resolves.toBe(SERVICE_URL);
    const [help] = await Promise.all([teacher.context.waitForEvent('page'), service.click()]);
    await help.waitForURL(SERVICE_URL);
    await help.close();
    await expect(teacher.page.getByTestId('more-menu').count()).resolves.toBe(0);

    // A student takes the second and last seat: the creator is told, with the way to more seats.
    const student = await signedInTeacher(world);
    await open(student.page, `/${room}`);
    await student.page.getByTestId('view-area').waitFor({ timeout: 30_000 });
    const call = teacher.page.getByTestId('upgrade-call');
    await call.waitFor();
    await expect(call.innerText()).resolves.toMatch(/2/);
    await expect(student.page.getByTestId('upgrade-call').count()).resolves.toBe(0);
    const [paymentAgain] = await Promise.all([teacher.context.waitForEvent('page'), call.getByTestId('upgrade-call-link').click()]);
    await waitForPath(paymentAgain, '/profile/payment');
    await paymentAgain.close();
    expect(pathOf(teacher.page)).toBe(`/${room}`);
    // Both languages, at both sizes: nothing over anything, axe clean; the menu with its two links.
    const found: string[] = [];
    for (const lang of ['zh', 'en'] as Lang[]) {
      await setLang(teacher.context, world.server.url, lang);
      for (const size of ['1280', '390'] as Size[]) {
        await teacher.page.setViewportSize(VIEWPORTS[size]);
        await teacher.page.reload();
        await teacher.page.locator(`html[lang="${lang === 'zh' ? 'zh-CN' : 'en'}"]`).waitFor({ state: 'attached' });
        await call.waitFor({ timeout: 30_000 });
        const label = `class ${size} ${lang}`;
        // The tiles settle after the reload (the stage measures itself, then lays out): the rules hold once they have.
        const rules = () => layoutProblems(teacher.page, { topBarOneRow: size === '1280', tilesBeside: false });
        await expect
          .poll(rules, { timeout: 10_000 })
          .toEqual([])
          .catch(() => undefined);
        found.push(...(await rules()).map((p) => `${label}: ${p}`));
        found.push(...(await axeProblems(teacher.page, AXE)).map((p) => `${label}: ${p}`));
        await shot(teacher.page, `${lang}-${size}-class-full`);
        await teacher.page.getByTestId('more-button').click();
        await teacher.page.getByTestId('more-service').waitFor();
        found.push(...(await axeProblems(teacher.page, AXE)).map((p) => `${label} menu: ${p}`));
        await shot(teacher.page, `${lang}-${size}-class-more`);
        await teacher.page.keyboard.press('Escape');
      }
    }
    expect(found).toEqual([]);
    await teacher.page.setViewportSize(VIEWPORTS['1280']);
    // Closed, it stays away while the room stays full.
    await call.getByTestId('upgrade-call-close').click();
    await expect(teacher.page.getByTestId('upgrade-call').count()).resolves.toBe(0);
  });
});

describe('with no store links, no service link and payments off', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ env: { PAYMENT_GATEWAY: 'off' } });
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  it('the download pages say the classroom works in the phone’s browser; no store button, none "not available yet"', async () => {
    for (const [options, path] of [
      [{}, '/download/pc'],
      [PHONE, '/download/ios'],
      [PHONE, '/h5down'],
    ] as const) {
      const { page } = await world.person(options);
      await open(page, path);
      await expect(page.getByTestId('download-phone-browser').innerText()).resolves.toMatch(/Safari/);
      await expect(page.getByTestId('store-list').count()).resolves.toBe(0);
      await expect(page.locator('body').innerText()).resolves.not.toMatch(NOT_YET);
      await shot(page, `zh-${options === PHONE ? '390' : '1280'}-unset-${path.replaceAll('/', '_')}`);
    }
  });

  it('the classroom offers no upgrade and no service link, and a full free room no call to upgrade', async () => {
    const teacher = await signedInTeacher(world);
    const room = await freeMiniClass(teacher.page);
    await teacher.page.getByTestId('more-button').click();
    await teacher.page.getByTestId('more-menu').waitFor();
    await expect(teacher.page.getByTestId('more-upgrade').count()).resolves.toBe(0);
    await expect(teacher.page.getByTestId('more-service').count()).resolves.toBe(0);
    await teacher.page.keyboard.press('Escape');
    const student = await signedInTeacher(world);
    await open(student.page, `/${room}`);
    await student.page.getByTestId('view-area').waitFor({ timeout: 30_000 });
    // Both seats taken (the server counts 2 of 2) and still no call.
    const rooms = world.server.banshu.platform.services.rooms;
    await expect.poll(async () => (await rooms.getRoomInfo(room)).participants, { timeout: 15_000 }).toBe(2);
    await expect(teacher.page.getByTestId('upgrade-call').count()).resolves.toBe(0);
    // A person refused as full is asked to find another classroom, not to have it upgraded.
    const late = await world.person({});
    await open(late.page, `/refused/full?room=${room}`);
    await expect(late.page.locator('.refusal__next').innerText()).resolves.toBe('请稍后再试；或请老师换一间座位更多的教室。');
  });
});
