/**
 * A phone in the browser (ADR 091): an iPhone (390x844, touch) opens a free mini class's link as a
 * visitor, is not sent to a download page, passes the name step and the pre-join, and in the phone
 * layout sees the teacher's video playing and the PDF slide the teacher shows, fitting the width
 * and uncovered; chat works both ways; portrait and landscape have no horizontal overflow and the
 * phone's controls are at least 44x44 px. One world for the file; tests run in order.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { simplePdf, writeFixture } from '#tests/fixtures/courseware.ts';
import { createRoom, open, pathOf, signIn, startWorld, UA, waitForPath, type World } from './helpers.ts';

const SHOTS = process.env['SHOTS'] ?? '';
let world: World;
let teacher: Page;
let phone: Page;
let room = '';
let dir = '';

async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/phone-${name}.png` });
}

/** The pre-join when it shows (ADR 089), else straight on: condition-based, no sleeps. */
async function passPreJoin(page: Page): Promise<void> {
  const join = page.getByTestId('prejoin-join');
  await join.or(page.getByTestId('classroom')).first().waitFor({ timeout: 20_000 });
  if (await join.isVisible()) await join.click();
  await page.getByTestId('classroom').waitFor({ timeout: 20_000 });
}

const slide = (page: Page) => page.locator('[data-testid="courseware-loaded"][data-slide-ready="1"]');

/** What the phone shows: overflow, the slide's box, the controls over it, small touch targets. */
async function measure(page: Page) {
  return page.evaluate(() => {
    const box = (el: Element) => el.getBoundingClientRect();
    const img =
      document.querySelector('[data-testid="courseware-loaded"] img') ?? document.querySelector('[data-testid="courseware-loaded"]');
    const s = img ? box(img) : null;
    const visible = (el: Element) => {
      const r = box(el);
      const cs = getComputedStyle(el);
      return r.width > 0 && r.height > 0 && cs.visibility !== 'hidden' && cs.display !== 'none';
    };
    const controls = [
      ...document.querySelectorAll('.room button, .room a[href], .room input, .room select, .room [role="button"], .room [role="tab"]'),
    ].filter(visible);
    const slideArea = document.querySelector('[data-testid="courseware-loaded"]');
    const over = s
      ? controls
          .filter((el) => !slideArea?.contains(el))
          .map((el) => ({ el, r: box(el) }))
          .filter(({ r }) => r.left < s.right - 1 && r.right > s.left + 1 && r.top < s.bottom - 1 && r.bottom > s.top + 1)
          .map(({ el }) => el.getAttribute('data-testid') ?? el.getAttribute('aria-label') ?? el.textContent)
      : [];
    const small = controls
      .filter((el) => el.closest('.room--h5') && !el.closest('.board-toolbar, [data-testid="courseware"] .cw-bar'))
      .map((el) => ({ name: el.getAttribute('data-testid') ?? el.getAttribute('aria-label') ?? el.textContent?.trim(), r: box(el) }))
      .filter(({ r }) => r.width < 44 || r.height < 44)
      .map(({ name, r }) => `${String(name)} ${Math.round(r.width)}x${Math.round(r.height)}`);
    return {
      scrollWidth: document.documentElement.scrollWidth,
      // The page's client width: a phone browser widens innerWidth to content that overflows.
      viewWidth: Math.min(window.innerWidth, document.documentElement.clientWidth),
      slide: s ? { left: s.left, right: s.right, top: s.top, width: s.width, height: s.height } : null,
      over,
      small,
    };
  });
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'banshu-phone-e2e-'));
  const pdf = await writeFixture(dir, 'lesson.pdf', simplePdf(2));
  // A store link is configured: the phone gets the dismissible app hint (ADR 091).
  world = await startWorld({ jobs: true, env: { STORE_IPHONE_URL: 'https://apps.example.com/banshu-iphone' } });
  teacher = (await world.person()).page;
  await signIn(teacher, world.server);
  room = await createRoom(teacher, 'freeMini');
  await teacher.getByTestId('top-bar').waitFor();
  // The teacher shows a converted PDF before the phone arrives.
  await teacher.getByTestId('view-ppt').click();
  await teacher.getByTestId('courseware-file').setInputFiles(pdf);
  await teacher.locator('[data-testid="courseware-loaded"][data-total="2"][data-slide-ready="1"]').waitFor({ timeout: 90_000 });
  phone = (
    await world.person({ userAgent: UA.iphone, viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, locale: 'zh-CN' })
  ).page;
}, 180_000);
afterAll(async () => {
  await world?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a phone in a free mini class', () => {
  it('opens the link in the browser: the name step, then the pre-join, never a download page', async () => {
    await open(phone, `/${room}`);
    expect(pathOf(phone)).toBe(`/userName/${room}`);
    await phone.getByLabel('姓名').fill('小明同学');
    await phone.getByLabel('姓名').press('Enter');
    await waitForPath(phone, `/${room}`);
    await shot(phone, 'prejoin-390');
    await passPreJoin(phone);
    expect(pathOf(phone)).toBe(`/${room}`);
    await phone.locator('.room.room--h5').waitFor();
  });

  it('offers the app in a dismissible hint above the class, remembered once closed; computers never see it', async () => {
    const banner = phone.getByTestId('app-banner');
    await banner.waitFor();
    await expect(banner.getByRole('link').getAttribute('href')).resolves.toBe('https://apps.example.com/banshu-iphone');
    // In the flow above the class: it covers nothing of the room.
    const [b, r] = await Promise.all([banner.boundingBox(), phone.locator('.room').boundingBox()]);
    expect(b!.y + b!.height).toBeLessThanOrEqual(r!.y + 1);
    await shot(phone, 'banner-390');
    await banner.getByRole('button', { name: '关闭下载提示' }).click();
    await banner.waitFor({ state: 'detached' });
    await phone.reload();
    await passPreJoin(phone);
    await phone.locator('html[data-hydrated="true"]').waitFor({ state: 'attached' });
    expect(await phone.getByTestId('app-banner').count()).toBe(0);
    expect(await teacher.getByTestId('app-banner').count()).toBe(0);
  });

  it("sees the teacher's video playing and the slide, fitting the width, nothing over it", async () => {
    const teacherTile = phone.locator('[data-testid="media-tile"].tile--teacher[data-has-video="true"] video');
    await teacherTile.waitFor({ timeout: 20_000 });
    await expect
      .poll(() => teacherTile.evaluate((v: HTMLVideoElement) => v.videoWidth > 0 && !v.paused && v.readyState >= 2), { timeout: 20_000 })
      .toBe(true);
    await slide(phone).waitFor({ timeout: 20_000 });
    await expect(phone.getByTestId('cw-counter').innerText()).resolves.toBe('1/2');
    const m = await measure(phone);
    await shot(phone, 'slide-390');
    expect(m.scrollWidth).toBeLessThanOrEqual(m.viewWidth);
    expect(m.slide).not.toBeNull();
    // The slide uses the width of the phone (less the page's margins) and stays inside it.
    expect(m.slide!.left).toBeGreaterThanOrEqual(0);
    expect(m.slide!.right).toBeLessThanOrEqual(m.viewWidth);
    expect(m.slide!.width).toBeGreaterThanOrEqual(m.viewWidth * 0.85);
    expect(m.over, 'controls over the slide').toEqual([]);
    expect(m.small, 'touch targets under 44x44 px').toEqual([]);
  });

  it('chats both ways', async () => {
    await phone.getByRole('tab', { name: '聊天' }).click();
    const input = phone.getByTestId('chat-input');
    await input.scrollIntoViewIfNeeded();
    await input.fill('老师好，我在手机上');
    await input.press('Enter');
    await teacher.getByTestId('chat-line').filter({ hasText: '老师好，我在手机上' }).waitFor();
    const teacherInput = teacher.getByTestId('chat-input');
    if (!(await teacherInput.isVisible())) await teacher.getByRole('tab', { name: '聊天' }).click();
    await teacherInput.fill('欢迎小明');
    await teacherInput.press('Enter');
    await phone.getByTestId('chat-line').filter({ hasText: '欢迎小明' }).waitFor();
    await shot(phone, 'chat-390');
  });

  it('turns to landscape without horizontal overflow, the slide and the teacher still in view', async () => {
    await phone.setViewportSize({ width: 844, height: 390 });
    await phone.locator('.room.room--h5').waitFor();
    await slide(phone).waitFor();
    const m = await measure(phone);
    await shot(phone, 'slide-844');
    expect(m.scrollWidth).toBeLessThanOrEqual(m.viewWidth);
    expect(m.slide!.right).toBeLessThanOrEqual(m.viewWidth);
    expect(m.slide!.top).toBeLessThan(390);
    expect(m.over, 'controls over the slide').toEqual([]);
    expect(m.small, 'touch targets under 44x44 px').toEqual([]);
    await expect(phone.locator('[data-testid="media-tile"].tile--teacher').isVisible()).resolves.toBe(true);
    await phone.setViewportSize({ width: 390, height: 844 });
  });

  it('shows the video view and the board as wide as the phone, in both orientations', async () => {
    await teacher.getByTestId('view-video').click();
    await phone.locator('[data-testid="view-area"][data-view="video"]').waitFor();
    for (const [w, h] of [
      [390, 844],
      [844, 390],
    ] as const) {
      await phone.setViewportSize({ width: w, height: h });
      const tile = await phone.locator('[data-testid="media-tile"].tile--teacher').boundingBox();
      expect(tile!.width).toBeGreaterThanOrEqual(160);
      expect(tile!.x + tile!.width).toBeLessThanOrEqual(w);
      const m = await measure(phone);
      expect(m.scrollWidth).toBeLessThanOrEqual(w);
      expect(m.small, 'touch targets under 44x44 px').toEqual([]);
      await shot(phone, `video-${String(w)}`);
    }
    await phone.setViewportSize({ width: 390, height: 844 });
    await teacher.getByTestId('view-wb').click();
    await phone.locator('[data-testid="view-area"][data-view="wb"]').waitFor();
    const area = await phone.locator('.board__area').boundingBox();
    expect(area!.width).toBeGreaterThanOrEqual(390 * 0.85);
    expect((await measure(phone)).small, 'touch targets under 44x44 px').toEqual([]);
    await shot(phone, 'board-390');

    // Allowed to draw, the phone draws with a finger; the toolbar stays off the page.
    await teacher.getByTestId('tool-power').click();
    await teacher.getByTestId('power-allow').check();
    await teacher.getByTestId('power-ok').click();
    await phone.getByTestId('board-mask').waitFor({ state: 'detached' });
    await phone.getByTestId('board-toolbar').waitFor();
    await phone.getByTestId('tool-brush').tap();
    const items = () =>
      teacher.evaluate(() => {
        const h = (window as unknown as { __banshuBoard?: { store: { snapshot(p: string): { items: unknown[] } }; page(): string } })
          .__banshuBoard!;
        return h.store.snapshot(h.page()).items.length;
      });
    const before = await items();
    const box = (await phone.getByTestId('board-overlay').boundingBox())!;
    const cdp = await phone.context().newCDPSession(phone);
    const point = (i: number) => ({ x: box.x + box.width * (0.3 + i * 0.04), y: box.y + box.height * (0.5 + (i % 2) * 0.05) });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [point(0)] });
    for (let i = 1; i <= 8; i++) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [point(i)] });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await expect.poll(items, { timeout: 5000 }).toBe(before + 1);
    const m = await measure(phone);
    expect(m.scrollWidth).toBeLessThanOrEqual(390);
    const [bar, page] = await Promise.all([phone.getByTestId('board-toolbar').boundingBox(), phone.locator('.board__area').boundingBox()]);
    expect(bar!.y >= page!.y + page!.height - 1 || bar!.y + bar!.height <= page!.y + 1, 'the toolbar is off the page').toBe(true);
    expect(bar!.x + bar!.width).toBeLessThanOrEqual(390);
    await shot(phone, 'board-draw-390');
    await teacher.getByTestId('view-ppt').click();
    await slide(phone).waitFor();
  });

  it('speaks English, in portrait too', async () => {
    await phone.getByTestId('lang-switch').first().click();
    await phone.getByRole('tab', { name: 'Chat' }).waitFor();
    const m = await measure(phone);
    expect(m.scrollWidth).toBeLessThanOrEqual(m.viewWidth);
    await shot(phone, 'slide-390-en');
    await phone.setViewportSize({ width: 844, height: 390 });
    await shot(phone, 'slide-844-en');
    expect((await measure(phone)).scrollWidth).toBeLessThanOrEqual(844);
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.getByTestId('lang-switch').first().click();
    await phone.getByRole('tab', { name: '聊天' }).waitFor();
  });
});
