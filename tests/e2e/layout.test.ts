/**
 * The layout suite (issue 16, ADR 087): every page, and the classroom in its video, board and
 * courseware views as teacher, student and phone student, at 1280x720 and 390x844 in Chinese and
 * English: no horizontal overflow, no control over another or over the board page or the slide,
 * the teacher's top bar on one row at 1280 wide, tiles beside the content at least 200x112, names
 * under 10 characters whole, and axe-core without serious or critical violations. One world and
 * one real class for the file (tests/e2e/tour.ts); each test lists every problem it found.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { open, startWorld, type World } from './helpers.ts';
import {
  axeProblems,
  layoutProblems,
  makeClass,
  PAGES,
  pageFor,
  setLang,
  slideReady,
  showView,
  VIEWPORTS,
  type Cast,
  type Lang,
  type Size,
  CONTACT,
  TOUR_ENV,
} from './tour.ts';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const LANGS: Lang[] = ['zh', 'en'];
const SIZES: Size[] = ['1280', '390'];
const SHOTS = process.env['SHOTS'] ?? '';

let world: World;
let cast: Cast;
let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'banshu-layout-'));
  world = await startWorld({ jobs: true, env: TOUR_ENV });
  cast = await makeClass(world, dir);
}, 240_000);
afterAll(async () => {
  await world?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/layout-${name}.png` });
}

describe('every page at 1280x720 and 390x844, in Chinese and English', () => {
  it.each(PAGES.map((p) => [p.name, p] as const))('%s', async (name, stop) => {
    const found: string[] = [];
    for (const size of SIZES) {
      const page = pageFor(cast, stop, size);
      for (const lang of LANGS) {
        await setLang(page.context(), world.server.url, lang);
        if (stop.static) await page.goto(stop.path(cast));
        else await open(page, stop.path(cast));
        if (stop.ready) await page.locator(stop.ready).first().waitFor({ timeout: 20_000 });
        await page.locator(`html[lang="${lang === 'zh' ? 'zh-CN' : 'en'}"]`).waitFor({ state: 'attached' });
        const problems = [...(await layoutProblems(page, { topBarOneRow: false, tilesBeside: false })), ...(await axeProblems(page, AXE))];
        for (const p of problems) found.push(`${name} ${size} ${lang}: ${p}`);
        await shot(page, `${lang}-${size}-${name}`);
      }
    }
    expect(found).toEqual([]);
  });
});

describe('the landing page with contact settings', () => {
  it('shows the contact details from the settings', async () => {
    await setLang(cast.visitor.context(), world.server.url, 'zh');
    await open(cast.visitor, '/home');
    const contact = cast.visitor.getByTestId('home-contact');
    await expect(contact.getByRole('link', { name: CONTACT.CONTACT_EMAIL }).getAttribute('href')).resolves.toBe(
      `mailto:${CONTACT.CONTACT_EMAIL}`,
    );
    await expect(contact.getByRole('link', { name: CONTACT.CONTACT_PHONE }).getAttribute('href')).resolves.toBe('tel:4008201234');
    await expect(contact.innerText()).resolves.toContain(CONTACT.CONTACT_WECHAT);
  });
});

describe('the classroom in each view, as teacher, student and phone', () => {
  it.each(LANGS)('in %s', async (lang) => {
    const found: string[] = [];
    const people = [
      { who: 'teacher', page: cast.teacher.page, size: '1280' as Size },
      { who: 'student', page: cast.student.page, size: '1280' as Size },
      { who: 'phone', page: cast.phone.page, size: '390' as Size },
    ];
    // The language of each person's classroom: the cookie, and the room opened again.
    for (const p of people) {
      await setLang(p.page.context(), world.server.url, lang);
      await p.page.reload();
      await p.page.getByTestId('view-area').waitFor({ timeout: 30_000 });
      await p.page.locator(`html[lang="${lang === 'zh' ? 'zh-CN' : 'en'}"]`).waitFor({ state: 'attached' });
    }
    for (const p of [cast.teacher.page, cast.student.page])
      await p.locator('[data-testid="media-tile"][data-has-video="true"]').nth(2).waitFor({ timeout: 30_000 });
    for (const view of ['video', 'wb', 'ppt'] as const) {
      await showView(cast, view);
      for (const p of people) {
        if (view === 'wb') await p.page.locator('[data-testid="board"][data-status="live"]').waitFor();
        if (view === 'ppt') await slideReady(p.page).waitFor();
        expect(p.page.viewportSize()).toEqual(VIEWPORTS[p.size]);
        const problems = [
          ...(await layoutProblems(p.page, { topBarOneRow: p.who === 'teacher' && p.size === '1280', tilesBeside: p.size === '1280' })),
          ...(await axeProblems(p.page, AXE)),
        ];
        for (const line of problems) found.push(`classroom ${view} ${p.who} ${p.size} ${lang}: ${line}`);
        await shot(p.page, `${lang}-${p.size}-class-${view}-${p.who}`);
      }
    }
    // Lecture mode (ADR 099): the mode badge and the students' closed microphone buttons.
    await showView(cast, 'video');
    await cast.teacher.page.getByTestId('mode-lecture').click();
    for (const p of people.slice(1)) {
      await p.page.locator('[data-testid="toggle-mic"][data-closed="true"]').waitFor();
      // The mode's toast is a passing message over the stage: closed before the page is measured.
      for (const close of await p.page.locator('.toast__close').all()) await close.click();
      await p.page.locator('[data-testid="toast"]').first().waitFor({ state: 'detached' });
      const problems = [
        ...(await layoutProblems(p.page, { topBarOneRow: false, tilesBeside: false })),
        ...(await axeProblems(p.page, AXE)),
      ];
      for (const line of problems) found.push(`classroom lecture ${p.who} ${p.size} ${lang}: ${line}`);
      await shot(p.page, `${lang}-${p.size}-class-lecture-${p.who}`);
    }
    await cast.teacher.page.getByTestId('mode-discuss').click();
    for (const p of people.slice(1)) await p.page.locator('[data-testid="toggle-mic"]:not([data-closed])').waitFor();
    expect(found).toEqual([]);
  });
});
