/**
 * The slide view (`/ppt/{id}`, `/ppt/{id}/{uid}`, ADR 093) end to end: a teacher in a free mini
 * class shows a converted PDF; a phone (390 x 844, touch, an iPhone's UA) watching `/ppt/{id}`
 * follows the teacher's page turns within 1 s (measured in the pages); a non-creator's drawing
 * gesture, and even a write forced through its board store, change nothing anywhere; the creator at
 * `/ppt/{id}/{ownId}` draws and turns pages, and the classroom sees both.
 * Tests run in order and share the room.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { simplePdf, writeFixture } from '#tests/fixtures/courseware.ts';
import { createRoom, open, signIn, startWorld, UA, type World } from './helpers.ts';

const SLIDES = 3;
/** Set to a directory to keep screenshots of the views (a person's check of the layout). */
const SHOTS = process.env['SHOTS'];

async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/slide-view-${name}.png` });
}

type HookWindow = Window & {
  __banshuBoard?: {
    store: {
      snapshot(page: string): { items: unknown[]; pending: number };
      status: string;
      create(page: string, btype: string, data: unknown): unknown;
      on(event: 'refused', listener: (ack: { code: string }) => void): () => void;
    };
    page(): string;
  };
  __shownAt?: Promise<number>;
  __pressedAt?: Promise<number>;
  __refused?: string[];
};

/** When the teacher's next press reaches the page (the start of a page turn as the teacher makes it). */
async function armPress(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as HookWindow;
    w.__pressedAt = new Promise<number>((resolve) => {
      const at = () => {
        resolve(performance.timeOrigin + performance.now());
        document.removeEventListener('pointerdown', at, true);
      };
      document.addEventListener('pointerdown', at, true);
    });
  });
}

/** Resolves in the page with the wall-clock time at which the slide view shows `slide` with its image. */
async function watchSlide(page: Page, slide: number): Promise<void> {
  await page.evaluate((want) => {
    const w = window as HookWindow;
    w.__shownAt = new Promise<number>((resolve) => {
      const sel = `[data-testid="slide-view"][data-page="${want}"][data-slide-ready="1"]`;
      const check = () => {
        if (!document.querySelector(sel)) return false;
        resolve(performance.timeOrigin + performance.now());
        return true;
      };
      if (check()) return;
      const observer = new MutationObserver(() => {
        if (check()) observer.disconnect();
      });
      observer.observe(document.body, { subtree: true, childList: true, attributes: true });
    });
  }, slide);
}

const viewShows = (page: Page, slide: number) =>
  page.locator(`[data-testid="slide-view"][data-page="${slide}"][data-slide-ready="1"][data-status="live"]`).waitFor();

/** Items on a layer as the page's board store holds them, once nothing is pending. */
async function layerItems(page: Page, layer: string): Promise<number> {
  await page.waitForFunction((l) => {
    const hook = (window as HookWindow).__banshuBoard;
    return hook?.store.status === 'live' && hook.store.snapshot(l).pending === 0;
  }, layer);
  return page.evaluate((l) => (window as HookWindow).__banshuBoard!.store.snapshot(l).items.length, layer);
}

/** A drag across the board's overlay (a finger or the mouse: the board reads pointer events). */
async function drawOn(page: Page): Promise<void> {
  const box = (await page.getByTestId('board-overlay').boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.4);
  await page.mouse.down();
  for (let i = 1; i <= 8; i++) await page.mouse.move(box.x + box.width * (0.3 + i * 0.04), box.y + box.height * (0.4 + (i % 2) * 0.05));
  await page.mouse.up();
}

/** A one-finger drag across the board's overlay, as touch events (a phone's finger). */
async function fingerDraw(page: Page): Promise<void> {
  const box = (await page.getByTestId('board-overlay').boundingBox())!;
  const cdp = await page.context().newCDPSession(page);
  const at = (i: number) => ({ x: box.x + box.width * (0.2 + i * 0.05), y: box.y + box.height * (0.6 + (i % 2) * 0.05) });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [at(0)] });
  for (let i = 1; i <= 8; i++) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [at(i)] });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

async function me(page: Page): Promise<string> {
  const res = await page.request.post('/api/queryUserInfoByToken', { data: {} });
  return ((await res.json()) as { data: { userInfo: { userId: string } } }).data.userInfo.userId;
}

async function setLang(page: Page, lang: 'zh' | 'en'): Promise<void> {
  const want = lang === 'zh' ? 'zh-CN' : 'en';
  if ((await page.locator('html').getAttribute('lang')) === want) return;
  await page.getByTestId('lang-switch').first().click();
  await page.locator(`html[lang="${want}"]`).waitFor({ state: 'attached' });
}

describe('slide view', () => {
  let world: World;
  let dir = '';
  let teacher: Page;
  let phone: Page;
  let room = '';
  let documentId = '';

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'banshu-slide-e2e-'));
    const pdf = await writeFixture(dir, 'slides.pdf', simplePdf(SLIDES));
    world = await startWorld({ jobs: true });
    teacher = (await world.person()).page;
    phone = (
      await world.person({
        viewport: { width: 390, height: 844 },
        isMobile: true,
        hasTouch: true,
        userAgent: UA.iphone,
        deviceScaleFactor: 2,
      })
    ).page;
    await Promise.all([signIn(teacher, world.server), signIn(phone, world.server)]);
    room = await createRoom(teacher, 'freeMini');
    await teacher.getByTestId('view-ppt').click();
    await teacher.getByTestId('courseware-file').setInputFiles(pdf);
    await teacher.locator(`[data-testid="courseware-loaded"][data-total="${SLIDES}"][data-page="1"][data-slide-ready="1"]`).waitFor({
      timeout: 60_000,
    });
    documentId = (await teacher.evaluate(() => (window as HookWindow).__banshuBoard!.page())).split(':')[1]!;
  }, 120_000);
  afterAll(async () => {
    await world?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('shows the shown slide on a phone, read-only, with page, connection and a view-only badge', async () => {
    await open(phone, `/ppt/${room}`);
    await viewShows(phone, 1);
    const view = phone.getByTestId('slide-view');
    expect(await view.getAttribute('data-can-draw')).toBe('0');
    expect(await view.getAttribute('data-layer')).toBe(`doc:${documentId}:1`);
    expect(await phone.getByTestId('slide-page').innerText()).toBe(`第 1 / ${SLIDES} 页`);
    expect(await phone.getByTestId('view-only').innerText()).toContain('仅观看');
    expect(await phone.getByTestId('slide-conn').innerText()).toContain('已连接');
    expect(await phone.getByTestId('slide-tools').count()).toBe(0);
    // The slide goes across the phone's width, and the page does not scroll sideways.
    const stage = (await phone.getByTestId('board').boundingBox())!;
    expect(stage.width).toBeGreaterThanOrEqual(388);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // No seat: the teacher's room lists nobody new.
    expect(await teacher.getByTestId('filmstrip').locator('li').count()).toBe(1);
    await shot(phone, 'phone-zh');
    await setLang(phone, 'en');
    await phone.getByTestId('view-only').filter({ hasText: 'View only' }).waitFor();
    expect(await phone.getByTestId('slide-page').innerText()).toBe(`Page 1 of ${SLIDES}`);
    await shot(phone, 'phone-en');
    await setLang(phone, 'zh');
  });

  it("follows the teacher's page turns within 1 s", async () => {
    // Three turns: the middle one within 1 s, none over 2 s (two browsers and the server share two
    // cores here; one turn may catch the machine busy), as the classroom's own test measures.
    const turns: number[] = [];
    for (const [target, button] of [
      [2, 'cw-next'],
      [3, 'cw-next'],
      [2, 'cw-prev'],
    ] as const) {
      await watchSlide(phone, target);
      await armPress(teacher);
      await teacher.getByTestId(button).click();
      const pressedAt = await teacher.evaluate(() => (window as HookWindow).__pressedAt!);
      const seenAt = await phone.evaluate(() => (window as HookWindow).__shownAt!);
      turns.push(seenAt - pressedAt);
    }
    console.info(`page turns, teacher's press to the phone's picture (ms): ${turns.map((t) => t.toFixed(0)).join(', ')}`);
    expect([...turns].sort((a, b) => a - b)[1]).toBeLessThan(1000);
    for (const t of turns) expect(t).toBeLessThan(2000);
    expect(await phone.getByTestId('slide-page').innerText()).toBe(`第 2 / ${SLIDES} 页`);
    expect(await phone.getByTestId('slide-view').getAttribute('data-layer')).toBe(`doc:${documentId}:2`);
  });

  it("refuses a non-creator's drawing: the gesture and a forced write change nothing", async () => {
    const layer = `doc:${documentId}:2`;
    await viewShows(phone, 2);
    await drawOn(phone);
    // Forced through the page's own board store: the server refuses it.
    await phone.evaluate((l) => {
      const w = window as HookWindow;
      w.__refused = [];
      w.__banshuBoard!.store.on('refused', (ack) => w.__refused!.push(ack.code));
      w.__banshuBoard!.store.create(l, 'brush', { kind: 'stroke', points: [100, 100, 200, 200], color: 'red', width: 4 });
    }, layer);
    await phone.waitForFunction(() => ((window as HookWindow).__refused ?? []).length === 1);
    expect(await phone.evaluate(() => (window as HookWindow).__refused)).toEqual(['31004']);
    expect(await layerItems(phone, layer)).toBe(0);
    // The classroom (and the server's stored board) hold nothing on that slide.
    expect(await layerItems(teacher, layer)).toBe(0);
    const stored = await world.server.banshu.platform.database.db
      .selectFrom('board_ops')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('page', '=', layer)
      .executeTakeFirstOrThrow();
    expect(Number(stored.n)).toBe(0);
  });

  it('lets the creator draw and turn pages from /ppt/{id}/{ownId}; the classroom and the phone see it', async () => {
    const teacherId = await me(teacher);
    const own = await teacher.context().newPage();
    await open(own, `/ppt/${room}/${teacherId}`);
    await viewShows(own, 2);
    expect(await own.getByTestId('slide-view').getAttribute('data-can-draw')).toBe('1');
    expect(await own.getByTestId('view-only').count()).toBe(0);
    await own.getByTestId('slide-tools').waitFor();
    await shot(own, 'creator-desktop');
    // The slide is centred and fits the 1280 x 720 window.
    const stage = (await own.getByTestId('board').boundingBox())!;
    expect(stage.y + stage.height).toBeLessThanOrEqual(720);
    expect(Math.abs(stage.x + stage.width / 2 - 640)).toBeLessThan(2);
    const tools = (await own.getByTestId('slide-tools').boundingBox())!;
    expect(tools.y + tools.height).toBeLessThanOrEqual(720);

    const layer = `doc:${documentId}:2`;
    await drawOn(own);
    expect(await layerItems(own, layer)).toBe(1);
    await teacher.bringToFront();
    await teacher.waitForFunction((l) => (window as HookWindow).__banshuBoard?.store.snapshot(l).items.length === 1, layer);
    await phone.waitForFunction((l) => (window as HookWindow).__banshuBoard?.store.snapshot(l).items.length === 1, layer);

    // The same creator on a phone: the tools are touch-sized, and a finger draws.
    const pocket = await world.person({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      userAgent: UA.iphone,
      deviceScaleFactor: 2,
    });
    await pocket.context.addCookies(await teacher.context().cookies());
    await open(pocket.page, `/ppt/${room}/${teacherId}`);
    await viewShows(pocket.page, 2);
    for (const tool of ['slide-pen', 'slide-eraser', 'slide-prev', 'slide-next']) {
      const b = (await pocket.page.getByTestId(tool).boundingBox())!;
      expect(Math.min(b.width, b.height), tool).toBeGreaterThanOrEqual(44);
    }
    await fingerDraw(pocket.page);
    expect(await layerItems(pocket.page, layer)).toBe(2);
    await teacher.waitForFunction((l) => (window as HookWindow).__banshuBoard?.store.snapshot(l).items.length === 2, layer);
    await shot(pocket.page, 'creator-phone');
    await pocket.context.close();

    // The creator turns the page here: the classroom and the phone follow.
    await own.getByTestId('slide-next').click();
    await viewShows(own, 3);
    await teacher.locator('[data-testid="courseware-loaded"][data-page="3"]').waitFor();
    expect(await teacher.getByTestId('cw-counter').innerText()).toBe(`3/${SLIDES}`);
    await viewShows(phone, 3);
    expect(await own.getByTestId('slide-next').isDisabled()).toBe(true);
    await own.close();
  });

  it('fits a desktop window for a watcher, and shows the end of the class', async () => {
    const desk = (await world.person()).page;
    await signIn(desk, world.server);
    await setLang(desk, 'en');
    await open(desk, `/ppt/${room}`);
    await viewShows(desk, 3);
    // The 4:3 page centred under the bar, as large as the 1280 x 720 window allows.
    const stage = (await desk.getByTestId('board').boundingBox())!;
    expect(stage.y + stage.height).toBeLessThanOrEqual(720);
    expect(stage.height).toBeGreaterThan(450);
    expect(Math.abs(stage.x + stage.width / 2 - 640)).toBeLessThan(2);
    expect(await desk.getByTestId('view-only').innerText()).toContain('View only');
    await shot(desk, 'watcher-desktop-en');
    // The teacher ends the class: the views say so.
    await teacher.getByTestId('exit').click();
    await teacher.getByTestId('leave-end-all').click();
    await Promise.all([phone.getByTestId('slide-closed').waitFor(), desk.getByTestId('slide-closed').waitFor()]);
    await shot(phone, 'phone-closed');
  });
});
