/**
 * The video-first stage (issue 16, ADR 088) at 1280x720: a paid mini class of a teacher and two
 * students on Chromium's fake camera and microphone. The video view's 16:9 tiles fill the stage
 * (grid, and the speaker layout with the pinned person largest); the board keeps its controls off
 * the page and shows the tiles in a filmstrip of at least 200x112 with whole names; the
 * active-speaker outline follows the one microphone left on. Screenshots go to $SHOTS when set.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { open, signIn, startWorld, type World } from './helpers.ts';

let world: World;
let room = '';
interface Person {
  page: Page;
  id: string;
  name: string;
}
let teacher: Person;
let ann: Person;
let ben: Person;
const SHOTS = process.env['SHOTS'];

// Ten characters each: names this long are never cut.
const NAMES = { teacher: '王老师的数学课一二三', ann: '李小明同学四五六七八', ben: 'Benjamin K' };

async function shot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

async function me(page: Page): Promise<string> {
  const res = await page.request.post('/api/queryUserInfoByToken', { data: {} });
  return ((await res.json()) as { data: { userInfo: { userId: string } } }).data.userInfo.userId;
}

async function person(name: string, lang: 'zh' | 'en'): Promise<Person> {
  const { page, context } = await world.person(lang === 'en' ? { locale: 'en-US' } : {});
  await context.addCookies([{ name: 'lang', value: lang, url: world.server.url }]);
  await signIn(page, world.server);
  await page.request.post('/api/updateUserName', { data: { userName: name } });
  return { page, id: await me(page), name };
}

interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

const tile = (p: Page, userId: string) => p.locator(`[data-testid="media-tile"][data-user="${userId}"]`);

async function rectOf(p: Page, selector: string): Promise<Rect> {
  return p
    .locator(selector)
    .first()
    .evaluate((el) => {
      const r = el.getBoundingClientRect();
      return { x: r.x, y: r.y, w: r.width, h: r.height };
    });
}

async function tileRects(p: Page): Promise<Array<Rect & { user: string }>> {
  return p.locator('[data-testid="media-tile"]').evaluateAll((els) =>
    els.map((el) => {
      const r = el.getBoundingClientRect();
      return { user: el.getAttribute('data-user') ?? '', x: r.x, y: r.y, w: r.width, h: r.height };
    }),
  );
}

async function setView(key: 'video' | 'wb' | 'ppt'): Promise<void> {
  await teacher.page.getByTestId(`view-${key}`).click();
  for (const p of [teacher, ann, ben]) await p.page.locator(`[data-testid="view-area"][data-view="${key}"]`).waitFor();
}

/**
 * The board page's rectangle on screen (the renderer's origin and scale in the surface), and every
 * visible interactive control that intersects it or another control (not its own ancestor).
 */
async function boardOverlaps(p: Page): Promise<{ page: Rect; onPage: string[]; overlapping: string[] }> {
  return p.evaluate(() => {
    const hook = (window as unknown as { __banshuBoard?: { renderer: () => { origin: { x: number; y: number }; scale: number } | null } })
      .__banshuBoard;
    const r = hook?.renderer();
    const surface = document.querySelector('[data-testid="board-overlay"]')!.getBoundingClientRect();
    if (!r) throw new Error('no board renderer');
    const page = { x: surface.x + r.origin.x, y: surface.y + r.origin.y, w: 1024 * r.scale, h: 768 * r.scale };
    const cut = (a: DOMRect | { x: number; y: number; w: number; h: number }, b: { x: number; y: number; w: number; h: number }) => {
      const aw = 'w' in a ? a.w : a.width;
      const ah = 'h' in a ? a.h : a.height;
      return Math.min(a.x + aw, b.x + b.w) - Math.max(a.x, b.x) > 1 && Math.min(a.y + ah, b.y + b.h) - Math.max(a.y, b.y) > 1;
    };
    const controls = [
      ...document.querySelectorAll<HTMLElement>(
        'button, a[href], input, select, textarea, [role="button"], [tabindex]:not([tabindex="-1"])',
      ),
    ].filter((el) => {
      if (el.closest('.board__surface') || el.closest('[hidden]')) return false;
      const box = el.getBoundingClientRect();
      return box.width > 0 && box.height > 0 && getComputedStyle(el).visibility !== 'hidden';
    });
    const label = (el: HTMLElement) =>
      el.getAttribute('data-testid') ?? el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 20) ?? el.tagName;
    const onPage = controls.filter((el) => cut(el.getBoundingClientRect(), page)).map(label);
    const overlapping: string[] = [];
    const onStage = controls.filter((el) => el.closest('[data-testid="view-area"]'));
    onStage.forEach((a, i) => {
      for (const b of onStage.slice(i + 1)) {
        if (a.contains(b) || b.contains(a)) continue;
        const rb = b.getBoundingClientRect();
        if (cut(a.getBoundingClientRect(), { x: rb.x, y: rb.y, w: rb.width, h: rb.height })) overlapping.push(`${label(a)} / ${label(b)}`);
      }
    });
    return { page, onPage, overlapping };
  });
}

/** Each tile at least 200x112 and 16:9, and every name of 10 characters shown whole. */
async function expectFilmstrip(p: Page): Promise<void> {
  const rects = await tileRects(p);
  expect(rects).toHaveLength(3);
  for (const r of rects) {
    expect(r.w).toBeGreaterThanOrEqual(200);
    expect(r.h).toBeGreaterThanOrEqual(112);
    expect(Math.abs(r.w / r.h - 16 / 9)).toBeLessThan(0.03);
  }
  const strip = await rectOf(p, '[data-testid="filmstrip"]');
  const content = await rectOf(p, '[data-testid="view-area"] > .view');
  // Beside the content, not over it.
  expect(strip.x).toBeGreaterThanOrEqual(content.x + content.w - 1);
  const names = await p
    .locator('[data-testid="filmstrip"] [data-testid="tile-name"]')
    .evaluateAll((els) => els.map((el) => ({ text: el.textContent ?? '', cut: el.scrollWidth > el.clientWidth })));
  for (const n of names) if ([...n.text].length <= 10) expect(n, `${n.text} is cut`).toMatchObject({ cut: false });
  expect(names.filter((n) => [...n.text].length <= 10).length).toBeGreaterThanOrEqual(2);
}

beforeAll(async () => {
  world = await startWorld();
  teacher = await person(NAMES.teacher, 'zh');
  await world.server.banshu.platform.services.billingRepo.grant(teacher.id, { vip_room_time: new Date(Date.now() + 86400_000) });
  const created = await teacher.page.request.post('/api/createAgoraRoom', { data: { roomType: 1, consumption: 'on' } });
  room = ((await created.json()) as { data: { roomInfo: { roomNumber: string } } }).data.roomInfo.roomNumber;
  ann = await person(NAMES.ann, 'zh');
  ben = await person(NAMES.ben, 'en');
  for (const p of [teacher, ann, ben]) await open(p.page, `/${room}`);
  // Everyone sees everyone's camera.
  for (const p of [teacher, ann, ben])
    await p.page.locator('[data-testid="media-tile"][data-has-video="true"]').nth(2).waitFor({ timeout: 30_000 });
}, 120_000);

afterAll(async () => {
  await world?.close();
});

describe('the video-first stage at 1280x720', () => {
  it('fills the video view with 16:9 tiles in the grid layout', async () => {
    await setView('video');
    for (const p of [teacher, ben]) {
      await p.page.locator('[data-testid="view-area"][data-layout="grid"]').waitFor();
      const fit = await rectOf(p.page, '[data-testid="stage-fit"]');
      const stage = await rectOf(p.page, '[data-testid="view-area"]');
      await expect
        .poll(async () => {
          const rects = await tileRects(p.page);
          return rects.every((r) => Math.abs(r.w / r.h - 16 / 9) < 0.03) && rects.length === 3;
        })
        .toBe(true);
      const rects = await tileRects(p.page);
      const area = rects.reduce((sum, r) => sum + r.w * r.h, 0);
      // Most of the stage's tile area, and the greater part of the whole stage with its heading.
      expect(area / (fit.w * fit.h)).toBeGreaterThanOrEqual(0.6);
      expect(area / (stage.w * stage.h)).toBeGreaterThanOrEqual(0.5);
      for (const r of rects) {
        expect(r.x).toBeGreaterThanOrEqual(fit.x - 1);
        expect(r.x + r.w).toBeLessThanOrEqual(fit.x + fit.w + 1);
        expect(r.y + r.h).toBeLessThanOrEqual(fit.y + fit.h + 1);
      }
    }
    await shot(teacher.page, 'stage-video-grid-zh-1280');
    await shot(ben.page, 'stage-video-grid-en-1280');
  });

  it('puts the pinned person largest in the speaker layout, and remembers the layout', async () => {
    const p = teacher.page;
    await p.getByTestId('layout-speaker').click();
    await p.locator('[data-testid="view-area"][data-layout="speaker"]').waitFor();
    await tile(p, ann.id).hover();
    await tile(p, ann.id).getByTestId('tile-pin').click();
    await tile(p, ann.id).and(p.locator('[data-pinned="true"]')).waitFor();
    await p.locator(`[data-testid="stage-fit"][data-main="${ann.id}"]`).waitFor();
    const rects = await tileRects(p);
    const annRect = rects.find((r) => r.user === ann.id)!;
    for (const r of rects.filter((x) => x.user !== ann.id)) {
      expect(annRect.w * annRect.h).toBeGreaterThan(4 * r.w * r.h);
      expect(r.w).toBeGreaterThanOrEqual(200);
    }
    expect(Math.abs(annRect.w / annRect.h - 16 / 9)).toBeLessThan(0.03);
    expect(await p.evaluate(() => localStorage.getItem('banshu.stageLayout'))).toBe('speaker');
    await shot(p, 'stage-video-speaker-zh-1280');
    // Unpinned: back to the active speaker or the teacher; then the grid again.
    await tile(p, ann.id).hover();
    await tile(p, ann.id).getByTestId('tile-pin').click();
    await tile(p, ann.id).and(p.locator('[data-pinned="false"]')).waitFor();
    await p.getByTestId('layout-grid').click();
    await p.locator('[data-testid="view-area"][data-layout="grid"]').waitFor();
  });

  it('outlines the person whose microphone sounds as the active speaker', async () => {
    // Chromium's fake microphone beeps in every browser: with the teacher and Ann muted, only Ben sounds.
    for (const p of [teacher, ann]) {
      await p.page.getByTestId('toggle-mic').click();
      await p.page.locator(`[data-testid="media-tile"][data-user="${p.id}"] [data-testid="tile-mic"][data-muted="true"]`).waitFor();
    }
    for (const viewer of [teacher, ann]) {
      await tile(viewer.page, ben.id).and(viewer.page.locator('[data-speaking="true"]')).waitFor({ timeout: 15_000 });
    }
    // The outline leaves the muted ones (after its hold) and stays off: sampled over two seconds on the teacher's screen.
    for (const muted of [teacher, ann]) await tile(teacher.page, muted.id).and(teacher.page.locator('[data-speaking="false"]')).waitFor();
    const seen = new Set<string>();
    for (let i = 0; i < 10; i++) {
      const on = await teacher.page
        .locator('[data-testid="media-tile"][data-speaking="true"]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-user')));
      for (const id of on) seen.add(id ?? '');
      await teacher.page.waitForTimeout(200);
    }
    expect([...seen]).toEqual([ben.id]);
    // The speaker layout follows the active speaker when nobody is pinned.
    await teacher.page.getByTestId('layout-speaker').click();
    await teacher.page.locator(`[data-testid="stage-fit"][data-main="${ben.id}"]`).waitFor({ timeout: 15_000 });
    await shot(teacher.page, 'stage-active-speaker-zh-1280');
    await teacher.page.getByTestId('layout-grid').click();
    for (const p of [teacher, ann]) await p.page.getByTestId('toggle-mic').click();
  });

  it('keeps every control off the board page, with a filmstrip of whole names beside it', async () => {
    await setView('wb');
    for (const p of [teacher, ann, ben]) {
      await p.page.locator('[data-testid="board"][data-status="live"]').waitFor();
      await expectFilmstrip(p.page);
      const { page, onPage, overlapping } = await boardOverlaps(p.page);
      expect(page.w).toBeGreaterThan(400);
      expect(onPage, 'controls on the board page').toEqual([]);
      expect(overlapping, 'controls over each other').toEqual([]);
    }
    // The teacher's toolbar shows the page number; the head does not repeat it.
    expect(await teacher.page.getByTestId('page-label').count()).toBe(1);
    expect(await teacher.page.getByTestId('board-page-badge').count()).toBe(0);
    // Students who may not draw see a small badge, not a banner over the page.
    const badge = await rectOf(ann.page, '[data-testid="board-mask"]');
    expect(badge.h).toBeLessThan(40);
    expect(badge.w).toBeLessThan(300);
    await shot(teacher.page, 'stage-board-zh-1280');
    await shot(ann.page, 'stage-board-student-zh-1280');
    await shot(ben.page, 'stage-board-student-en-1280');
  });

  it('keeps a phone-sized window without horizontal overflow in the board and video views', async () => {
    await ann.page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const key of ['wb', 'video'] as const) {
        await setView(key);
        await ann.page.locator('[data-testid="media-tile"]').first().waitFor();
        await expect.poll(() => ann.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        await shot(ann.page, `stage-${key}-student-zh-390`);
      }
    } finally {
      await ann.page.setViewportSize({ width: 1280, height: 720 });
    }
  });

  it('shows the filmstrip beside the document view too', async () => {
    await setView('ppt');
    for (const p of [teacher, ben]) await expectFilmstrip(p.page);
    await shot(teacher.page, 'stage-document-zh-1280');
    await shot(ben.page, 'stage-document-en-1280');
  });
});
