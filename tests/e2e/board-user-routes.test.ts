/**
 * The routes of ADR 094 in a real browser: `/wb/{id}/{uid}` with the creator's own id is the board
 * classroom and draws; with another id it is a read-only view whose writes the server refuses and
 * which changes nothing on the teacher's board; `/imwb/{id}/{uid}` shows the phone upload QR code;
 * `/room/{id}?userType=1` opens the classroom and a stray key the refusal page; `/#download` lands
 * on the landing page's download section for anyone. One server, one browser, one whiteboard class.
 */
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createRoom, open, signIn, startWorld, waitForPath, type World } from './helpers.ts';

const SHOTS = process.env['SHOTS'] ?? '';
if (SHOTS) mkdirSync(SHOTS, { recursive: true });
async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/board-user-${name}.png` });
}

let world: World;
let teacher: Page;
let other: Page;
let room = '';
let teacherId = '';

type HookWindow = Window & {
  __banshuBoard?: {
    store: {
      snapshot(page: string): { items: unknown[]; pending: number };
      status: string;
      on(e: 'refused', l: (ack: unknown) => void): () => void;
      create(page: string, btype: string, data: unknown): unknown;
    };
    page(): string;
  };
};

async function me(page: Page): Promise<string> {
  const res = await page.request.post('/api/queryUserInfoByToken', { data: {} });
  return ((await res.json()) as { data: { userInfo: { userId: string } } }).data.userInfo.userId;
}

/** The classroom board (or the room view's) is connected and loaded. */
async function boardReady(page: Page): Promise<void> {
  await page.locator('[data-testid="board"][data-status="live"], [data-testid="slide-view"][data-status="live"]').first().waitFor();
  await page.waitForFunction(() => (window as HookWindow).__banshuBoard?.store.status === 'live');
}

/** Items on the teacher's current board page, once nothing is pending. */
async function boardItems(page: Page): Promise<number> {
  await page.waitForFunction(() => {
    const h = (window as HookWindow).__banshuBoard!;
    return h.store.snapshot(h.page()).pending === 0;
  });
  return page.evaluate(() => {
    const h = (window as HookWindow).__banshuBoard!;
    return h.store.snapshot(h.page()).items.length;
  });
}

async function drag(page: Page, testId: string, from: [number, number], to: [number, number]): Promise<void> {
  const box = (await page.getByTestId(testId).first().boundingBox())!;
  await page.mouse.move(box.x + box.width * from[0], box.y + box.height * from[1]);
  await page.mouse.down();
  for (let i = 1; i <= 8; i++)
    await page.mouse.move(
      box.x + box.width * (from[0] + ((to[0] - from[0]) * i) / 8),
      box.y + box.height * (from[1] + ((to[1] - from[1]) * i) / 8),
    );
  await page.mouse.up();
}

/** The element's top edge is inside the window (it was scrolled to). */
async function inViewport(page: Page, selector: string): Promise<void> {
  await page.waitForFunction((sel) => {
    const el = document.querySelector(sel);
    if (!el) return false;
    const r = el.getBoundingClientRect();
    return r.top >= -1 && r.top < window.innerHeight * 0.5 && window.scrollY > 0;
  }, selector);
}

beforeAll(async () => {
  world = await startWorld();
  ({ page: teacher } = await world.person());
  ({ page: other } = await world.person());
  await Promise.all([signIn(teacher, world.server), signIn(other, world.server)]);
  room = await createRoom(teacher, 'whiteboard');
  teacherId = await me(teacher);
  await boardReady(teacher);
}, 60_000);
afterAll(async () => {
  await world?.close();
});

describe('/wb/{id}/{uid} and /imwb/{id}/{uid}', () => {
  it("opens the creator's own board classroom under their own id, and it draws", async () => {
    await open(teacher, `/wb/${room}/${teacherId}`);
    await boardReady(teacher);
    expect(new URL(teacher.url()).pathname).toBe(`/wb/${room}/${teacherId}`);
    await teacher.getByTestId('board-toolbar').waitFor();
    const before = await boardItems(teacher);
    await teacher.getByTestId('tool-brush').click();
    await drag(teacher, 'board-overlay', [0.2, 0.3], [0.5, 0.4]);
    await teacher.waitForFunction((n) => {
      const h = (window as HookWindow).__banshuBoard!;
      const s = h.store.snapshot(h.page());
      return s.items.length === n + 1 && s.pending === 0;
    }, before);
    await shot(teacher, 'own-1280');
  });

  it('shows the phone upload QR code and link on /imwb with the own id', async () => {
    await open(teacher, `/imwb/${room}/${teacherId}`);
    await boardReady(teacher);
    await teacher.getByTestId('phone-entry').waitFor();
    await teacher.getByTestId('phone-entry-show').click();
    const qr = teacher.getByTestId('phone-entry-qr');
    await qr.waitFor();
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    const link = await teacher.getByTestId('phone-entry-link').getAttribute('href');
    expect(link).toContain(`/upload/${teacherId}/${room}?t=`);
    await shot(teacher, 'imwb-qr-1280');
    // The link is the working phone upload page.
    const { page: phone } = await world.person({ viewport: { width: 390, height: 844 } });
    await open(phone, new URL(link!).pathname + new URL(link!).search);
    await phone.getByRole('heading', { level: 1 }).waitFor();
    expect(await phone.getByRole('alert').count()).toBe(0);
    await phone.context().close();
    await teacher.keyboard.press('Escape');
    await teacher.setViewportSize({ width: 390, height: 844 });
    await teacher.getByTestId('phone-entry').waitFor();
    const overflow = await teacher.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(teacher, 'imwb-390');
    await teacher.setViewportSize({ width: 1280, height: 720 });
  });
});

describe("someone else's /wb/{id}/{uid}", () => {
  it('shows the board read-only; a drag draws nothing and the server refuses its writes', async () => {
    const onTeacher = await boardItems(teacher);
    expect(onTeacher).toBeGreaterThan(0);
    await open(other, `/wb/${room}/${teacherId}`);
    await other.getByTestId('read-only-owner').waitFor();
    await boardReady(other);
    // The teacher's board as it stands, without a toolbar.
    await other.waitForFunction((n) => {
      const h = (window as HookWindow).__banshuBoard!;
      return h.store.snapshot(h.page()).items.length === n;
    }, onTeacher);
    expect(await other.getByTestId('board-toolbar').count()).toBe(0);
    expect(await other.getByTestId('slide-tools').count()).toBe(0);
    await other.getByTestId('view-only').waitFor();
    expect(await other.getByTestId('slide-view').getAttribute('data-can-draw')).toBe('0');
    await shot(other, 'read-only-1280');
    await drag(other, 'board-overlay', [0.3, 0.5], [0.7, 0.6]);
    // A write made with the view's own token, straight to the server: refused.
    const code = await other.evaluate(
      () =>
        new Promise<string>((resolve) => {
          const hook = (window as HookWindow).__banshuBoard!;
          const off = hook.store.on('refused', (ack) => {
            off();
            resolve((ack as { code: string }).code);
          });
          hook.store.create(hook.page(), 'brush', {
            kind: 'stroke',
            points: [10, 10, 60, 60],
            color: 'red',
            width: 4,
          });
        }),
    );
    expect(code).not.toBe('0');
    // Nothing changed on the teacher's board, nor on the view (the refused item is rolled back).
    expect(await boardItems(teacher)).toBe(onTeacher);
    expect(await boardItems(other)).toBe(onTeacher);
    // The view follows the board: a stroke the teacher draws arrives.
    await drag(teacher, 'board-overlay', [0.2, 0.6], [0.4, 0.7]);
    await other.waitForFunction((n) => {
      const h = (window as HookWindow).__banshuBoard!;
      return h.store.snapshot(h.page()).items.length === n;
    }, onTeacher + 1);
    // On a phone (opened afresh there: the drag above panned the view).
    await other.setViewportSize({ width: 390, height: 844 });
    await open(other, `/wb/${room}/${teacherId}`);
    await boardReady(other);
    await other.getByTestId('read-only-owner').waitFor();
    const overflow = await other.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(other, 'read-only-390');
    await other.setViewportSize({ width: 1280, height: 720 });
  });
});

describe('/room/{id}', () => {
  it('opens the classroom with userType=1', async () => {
    await open(other, `/room/${room}?userType=1&role=2`);
    await waitForPath(other, `/bb/${room}?userType=1`);
    await boardReady(other);
    await shot(other, 'room-classroom');
    await open(other, '/');
  });

  it('refuses any other query key on the refusal page', async () => {
    await open(other, `/room/${room}?foo=1`);
    await waitForPath(other, `/refused/no-permission?room=${room}`);
    await other
      .getByTestId('refusal')
      .or(other.getByRole('heading', { level: 1 }))
      .first()
      .waitFor();
    await shot(other, 'room-refused');
  });
});

describe('/#download', () => {
  it('lands on the download section without a session, and signed in', async () => {
    const { page: visitor } = await world.person();
    await visitor.goto('/#download');
    await visitor.waitForURL((url) => url.pathname === '/home' && url.hash === '#download');
    await inViewport(visitor, '#download');
    await shot(visitor, 'download-visitor');
    await teacher.goto('/#download');
    await teacher.waitForURL((url) => url.pathname === '/home' && url.hash === '#download');
    await inViewport(teacher, '#download');
    // The landing page's own address, on a phone.
    const { page: phone } = await world.person({ viewport: { width: 390, height: 844 } });
    await phone.goto('/home#download');
    await phone.locator('html[data-hydrated="true"]').waitFor({ state: 'attached' });
    await inViewport(phone, '#download');
    await shot(phone, 'download-390');
    await visitor.context().close();
    await phone.context().close();
  });
});
