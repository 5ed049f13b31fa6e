/**
 * The pre-join screen (ADR 089) on Chromium's fake camera and microphone: a visitor previews,
 * switches the camera off and mutes by keyboard, names themself and joins with Enter; the teacher
 * sees the camera off and the muted microphone; a reload remembers the switches; a refused device
 * is said and never blocks; a large class's audience opens no device; the screen in both
 * languages at 1280x720 and 390x844.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { createRoom, open, pathOf, signIn, startWorld, waitForPath, type World } from './helpers.ts';

let world: World;
let teacher: Page;
let mini = '';
const SHOTS = process.env['SHOTS'] ?? '';

async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/${name}.png` });
}

/** Counts getUserMedia calls in every page of the context (window.__gum). */
async function countCaptures(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const w = window as unknown as { __gum: number };
    w.__gum = 0;
    const md = navigator.mediaDevices;
    if (!md?.getUserMedia) return;
    const real = md.getUserMedia.bind(md);
    md.getUserMedia = (c?: MediaStreamConstraints) => {
      w.__gum += 1;
      return real(c);
    };
  });
}

const prejoinReady = (page: Page) => page.locator('[data-testid="prejoin"][data-ready="true"]');

beforeAll(async () => {
  world = await startWorld();
  teacher = (await world.person()).page;
  await signIn(teacher, world.server);
  const res = await teacher.request.post('/api/updateUserName', { data: { userName: '王老师' } });
  expect(((await res.json()) as { code: string }).code).toBe('0');
  // The teacher's own pre-join is passed by the suite's helper (remembered default: both on).
  mini = await createRoom(teacher, 'freeMini');
  await teacher.getByTestId('media-controls').and(teacher.locator('[data-status="live"]')).waitFor({ timeout: 20_000 });
});
afterAll(async () => {
  await world?.close();
});

describe('a visitor', () => {
  it('previews, turns the camera off and mutes by keyboard, names themself and joins with Enter; the teacher sees it', async () => {
    const { context, page } = await world.person({}, { preJoin: 'manual' });
    await countCaptures(context);
    await open(page, `/${mini}`);
    await waitForPath(page, `/userName/${mini}`);
    const prejoin = prejoinReady(page);
    await prejoin.waitFor();
    await expect(page.getByRole('heading', { name: '准备好上课了吗？' }).count()).resolves.toBe(1);
    // The mirrored camera preview plays, and the microphone level moves (the fake microphone beeps).
    const video = page.getByTestId('prejoin-video');
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.videoWidth), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await video.evaluate((v: HTMLVideoElement) => getComputedStyle(v).transform)).toContain('-1');
    await expect
      .poll(async () => Number(await page.getByTestId('prejoin-level').getAttribute('data-level')), { timeout: 10_000 })
      .toBeGreaterThan(0);
    expect(await page.getByTestId('pick-videoinput').locator('option').count()).toBeGreaterThan(1);
    await shot(page, 'prejoin-visitor-zh-1280');

    // Keyboard only: the name field has the focus; Tab reaches the switches, Space flips them.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('visitor-name');
    await page.getByTestId('prejoin-cam').focus();
    await page.keyboard.press('Space');
    await page.getByTestId('prejoin-mic').focus();
    await page.keyboard.press('Space');
    await expect.poll(() => page.getByTestId('prejoin-cam').getAttribute('data-on')).toBe('false');
    expect(await page.getByTestId('prejoin-mic').getAttribute('data-on')).toBe('false');
    expect(await page.getByTestId('prejoin-cam').getAttribute('aria-label')).toBe('开启摄像头');
    await expect.poll(() => video.isVisible()).toBe(false);
    await page.getByText('摄像头已关闭').waitFor();
    expect(Number(await page.getByTestId('prejoin-level').getAttribute('data-level'))).toBe(0);
    // Escape leaves nothing half-done: still here, choices kept.
    await page.keyboard.press('Escape');
    expect(pathOf(page)).toBe(`/userName/${mini}`);
    expect(JSON.parse((await page.evaluate(() => localStorage.getItem('device-configure')))!)).toMatchObject({
      camOn: false,
      micOn: false,
    });
    // Enter with no name: the name rule says so, and nothing is joined.
    await page.getByLabel('姓名').focus();
    await page.keyboard.press('Enter');
    await page.getByText('请输入姓名').first().waitFor();
    expect(pathOf(page)).toBe(`/userName/${mini}`);
    const joinCalls: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/userJoinAgoraRoom')) joinCalls.push(r.url());
    });
    await page.getByLabel('姓名').fill('小林');
    await page.keyboard.press('Enter');
    await waitForPath(page, `/${mini}`);
    await page.getByTestId('media-controls').and(page.locator('[data-status="live"]')).waitFor({ timeout: 20_000 });
    await expect.poll(() => page.getByTestId('toggle-cam').getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByTestId('toggle-mic').getAttribute('aria-pressed')).toBe('true');
    // The name step's answer was handed over: no second join call.
    expect(joinCalls).toEqual([]);

    // The teacher: the visitor's microphone arrives, paused (muted); no camera is sent at all.
    const tile = teacher.getByTestId('media-tile').filter({ hasText: '小林' });
    await tile.waitFor({ timeout: 15_000 });
    const visitorId = (await tile.getAttribute('data-user'))!;
    await expect
      .poll(
        async () =>
          (await teacher.evaluate(() => window.banshuMedia?.stats() ?? Promise.resolve([])))
            .filter((s) => s.userId === visitorId)
            .map((s) => s.source)
            .sort(),
        { timeout: 15_000 },
      )
      .toEqual(['mic']);
    expect(await tile.getAttribute('data-has-video')).toBe('false');
    expect(await tile.getByTestId('tile-mic').getAttribute('data-muted')).toBe('true');
    expect(await tile.locator('video').count()).toBe(0);
    await shot(teacher, 'prejoin-teacher-sees-visitor');

    // Unmuting in the room reaches the teacher: the state above was the choice, not a delay.
    await page.getByTestId('toggle-mic').click();
    await expect.poll(() => tile.getByTestId('tile-mic').getAttribute('data-muted'), { timeout: 10_000 }).toBe('false');

    // A reload: the pre-join again (no name this time), the choices remembered; Enter joins.
    const before = await page.evaluate(() => (window as unknown as { __gum: number }).__gum);
    expect(before).toBeGreaterThan(0);
    await page.reload();
    await prejoinReady(page).waitFor();
    expect(await page.getByLabel('姓名').count()).toBe(0);
    expect(await page.getByTestId('prejoin-cam').getAttribute('data-on')).toBe('false');
    expect(await page.getByTestId('prejoin-mic').getAttribute('data-on')).toBe('false');
    // Nothing was opened for a camera that is off and a microphone that is muted.
    expect(await page.evaluate(() => (window as unknown as { __gum: number }).__gum)).toBe(0);
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('prejoin-join');
    await page.keyboard.press('Enter');
    await page.getByTestId('media-controls').and(page.locator('[data-status="live"]')).waitFor({ timeout: 20_000 });
    expect(pathOf(page)).toBe(`/${mini}`);
    // The reload joined again, once, after its pre-join (the handed-over answer is used once).
    expect(joinCalls).toHaveLength(1);
  });

  it("goes back to the home page, never to the teacher's login", async () => {
    const { page } = await world.person({}, { preJoin: 'manual' });
    await open(page, `/userName/${mini}`);
    await prejoinReady(page).waitFor();
    await page.getByTestId('prejoin-back').click();
    await waitForPath(page, '/home');
  });
});

describe('devices refused', () => {
  it('says so with what to do, and joins without them (no permission screen in the room)', async () => {
    const { context, page } = await world.person({}, { preJoin: 'manual' });
    await context.addInitScript(() => {
      navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('denied', 'NotAllowedError'));
    });
    await signIn(page, world.server);
    const room = await createRoomManual(page);
    const problem = page.getByTestId('prejoin-problem');
    await problem.waitFor();
    expect(await problem.getAttribute('data-problem')).toBe('denied');
    expect(await problem.innerText()).toContain('允许');
    const join = page.getByTestId('prejoin-join');
    expect(await join.innerText()).toBe('不用设备，直接进入');
    await shot(page, 'prejoin-denied-zh-1280');
    await join.click();
    await page.getByTestId('room-number').waitFor();
    expect(await page.getByTestId('room-number').innerText()).toBe(room);
    await page.getByTestId('media-controls').and(page.locator('[data-status="live"]')).waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('permission-help').count()).toBe(0);
  });
});

/** Create a free mini class from the lobby with the pre-join left to the test; resolves with its number. */
async function createRoomManual(page: Page): Promise<string> {
  await open(page, '/');
  await page.getByTestId('open-picker').click();
  await page.getByTestId('room-type-picker').waitFor();
  await page.getByTestId('create-freeMini').click();
  await page.waitForURL((url) => /^\/\d{6}$/.test(url.pathname));
  await prejoinReady(page).waitFor();
  return new URL(page.url()).pathname.slice(1);
}

describe('a large class', () => {
  it("lets a student join as audience without opening any device; the teacher's pre-join has them", async () => {
    const t = await world.person({}, { preJoin: 'manual' });
    await countCaptures(t.context);
    await signIn(t.page, world.server);
    await open(t.page, '/');
    await t.page.getByTestId('open-picker').click();
    await t.page.getByTestId('create-large').click();
    await t.page.waitForURL((url) => /^\/live\/\d{6}$/.test(url.pathname));
    const large = new URL(t.page.url()).pathname.split('/')[2]!;
    await prejoinReady(t.page).waitFor();
    expect(await prejoinReady(t.page).getAttribute('data-audience')).toBe('false');
    await t.page.getByTestId('prejoin-video').waitFor();
    await t.page.getByTestId('prejoin-join').click();
    await t.page.getByTestId('top-bar').waitFor();

    const s = await world.person({}, { preJoin: 'manual' });
    await countCaptures(s.context);
    await signIn(s.page, world.server);
    await open(s.page, `/live/${large}`);
    const prejoin = prejoinReady(s.page);
    await prejoin.waitFor();
    expect(await prejoin.getAttribute('data-audience')).toBe('true');
    expect(await s.page.getByTestId('prejoin-video').count()).toBe(0);
    expect(await s.page.getByTestId('prejoin-cam').count()).toBe(0);
    expect(await s.page.getByTestId('pick-videoinput').count()).toBe(0);
    await shot(s.page, 'prejoin-audience-zh-1280');
    await s.page.getByTestId('prejoin-join').click();
    await s.page.getByTestId('room-role').waitFor();
    await s.page.getByTestId('view-area').waitFor();
    expect(await s.page.evaluate(() => (window as unknown as { __gum: number }).__gum)).toBe(0);
  });
});

describe('the screen in both languages and sizes', () => {
  for (const lang of ['zh', 'en'] as const) {
    for (const size of [
      { width: 1280, height: 720 },
      { width: 390, height: 844 },
    ]) {
      it(`${lang} ${String(size.width)}x${String(size.height)}: fits without horizontal overflow`, async () => {
        const { page } = await world.person(
          {
            viewport: size,
            ...(lang === 'en' ? { locale: 'en-US' } : {}),
            ...(size.width < 700 ? { hasTouch: true, isMobile: true } : {}),
          },
          { preJoin: 'manual' },
        );
        await open(page, `/userName/${mini}`);
        await prejoinReady(page).waitFor();
        await expect
          .poll(() => page.getByTestId('prejoin-video').evaluate((v: HTMLVideoElement) => v.videoWidth), { timeout: 10_000 })
          .toBeGreaterThan(0);
        await page.getByRole('heading', { name: lang === 'en' ? 'Ready to join?' : '准备好上课了吗？' }).waitFor();
        expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
        const join = await page.getByTestId('prejoin-join').boundingBox();
        expect(join!.x + join!.width).toBeLessThanOrEqual(size.width);
        await shot(page, `prejoin-${lang}-${String(size.width)}`);
      });
    }
  }
});
