/**
 * A new person's way in and out, with no dead end (ADR 098): a student without an account finds the
 * landing page, joins by number (a wrong number is said beside the box), names themself, passes the
 * pre-join, is in class, leaves to the 'you left' page and rejoins the same room under the same
 * name; the creator's Leave goes to My classrooms. The new views pass the layout rules and axe at
 * 1280x720 and 390x844 in both languages, and are photographed (SHOTS=dir).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createRoom, open, passPreJoin, pathOf, signIn, startWorld, waitForPath, type World } from './helpers.ts';
import { axeProblems, layoutProblems, setLang, VIEWPORTS, type Lang, type Size } from './tour.ts';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = process.env['SHOTS'] ?? '';

let world: World;
let teacher: Page;
let student: Page;
let room = '';
const NAME = '小红';

beforeAll(async () => {
  world = await startWorld();
  teacher = (await world.person()).page;
  await signIn(teacher, world.server);
  room = await createRoom(teacher, 'freeMini');
  await teacher.getByTestId('top-bar').waitFor({ timeout: 20_000 });
  student = (await world.person({}, { preJoin: 'manual' })).page;
}, 120_000);
afterAll(async () => {
  await world?.close();
});

async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/journeys-${name}.png` });
}

/** The teacher's members list (rendered under its tab even while chat shows): the row of this name. */
const rowOf = (name: string) => teacher.locator('[data-testid="member-row"]').filter({ hasText: name });

describe('a student without an account', () => {
  let firstId = '';

  it('finds the landing page from / and /login', async () => {
    await open(student, '/');
    await student.getByTestId('front-door').waitFor();
    await student.getByTestId('front-about').click();
    await waitForPath(student, '/home');
    await open(student, '/login');
    await student.getByTestId('login-about').click();
    await waitForPath(student, '/home');
  });

  it('joins by number from /home: a wrong number is told beside the box, the right one asks for a name', async () => {
    await open(student, '/home');
    const box = student.getByTestId('home-room');
    await box.fill('12a');
    await box.press('Enter');
    await expect(student.getByTestId('home-error').innerText()).resolves.toBe('请输入正确的教室号');
    // Only letters and digits stay, at most 10.
    await box.fill('9-9 9.9/9 9');
    await expect(box.inputValue()).resolves.toBe('999999');
    await box.press('Enter');
    await expect(student.getByTestId('home-error').innerText()).resolves.toBe('教室号码不正确，请重新输入');
    expect(pathOf(student)).toBe('/home');
    await shot(student, 'home-box-wrong-1280-zh');
    await box.fill(room);
    expect(await student.getByTestId('home-error').count()).toBe(0);
    await shot(student, 'home-box-1280-zh');
    await student.getByTestId('home-join').click();
    await waitForPath(student, `/userName/${room}`);
  });

  it('names themself on the pre-join and is in class', async () => {
    const prejoin = student.locator('[data-testid="prejoin"][data-ready="true"]');
    await prejoin.waitFor({ timeout: 20_000 });
    await student.getByLabel('姓名').fill(NAME);
    await prejoin.getByTestId('prejoin-join').click();
    await student.getByTestId('classroom').waitFor({ timeout: 20_000 });
    await student.getByTestId('view-area').waitFor();
    await rowOf(NAME).waitFor({ state: 'attached', timeout: 20_000 });
    firstId = (await rowOf(NAME).getAttribute('data-user')) ?? '';
    expect(firstId).not.toBe('');
  });

  it('leaves to the left page, not the teacher sign-in', async () => {
    await student.getByTestId('exit').click();
    const ask = student.getByRole('dialog', { name: '退出教室' });
    await ask.getByRole('button', { name: '退出' }).click();
    await waitForPath(student, `/left/${room}`);
    const card = student.getByTestId('left-page');
    await card.getByRole('heading', { level: 1, name: '你已离开课堂' }).waitFor();
    await card.getByText(`教室号 ${room}`).waitFor();
    await rowOf(NAME).waitFor({ state: 'detached', timeout: 20_000 });
    await shot(student, 'left-1280-zh');
  });

  it('rejoins the same room under the same name, through the pre-join', async () => {
    await student.getByTestId('left-rejoin').click();
    // The room's pre-join without the name field: the name given for this room is kept.
    const prejoin = student.locator('[data-testid="prejoin"][data-ready="true"]');
    await prejoin.waitFor({ timeout: 20_000 });
    expect(await student.locator('#visitor-name').count()).toBe(0);
    await passPreJoin(student);
    await student.getByTestId('classroom').waitFor({ timeout: 20_000 });
    await student.getByTestId('view-area').waitFor();
    await rowOf(NAME).waitFor({ state: 'attached', timeout: 20_000 });
    await expect(rowOf(NAME).getAttribute('data-user')).resolves.toBe(firstId);
    expect(await rowOf(NAME).count()).toBe(1);
  });

  it('goes home from the left page to the landing page', async () => {
    await open(student, `/left/${room}`);
    await student.getByTestId('left-home').click();
    await waitForPath(student, '/home');
  });
});

describe('the creator', () => {
  it('leaves to My classrooms', async () => {
    await teacher.getByTestId('exit').click();
    await teacher.getByTestId('leave-only').click();
    await teacher.waitForURL((url) => url.pathname.startsWith('/profile'));
  });
});

describe('the new views at 1280x720 and 390x844, in Chinese and English', () => {
  const stops = [
    { name: 'front-door', path: () => '/', ready: '[data-testid="front-room"]' },
    { name: 'home-box', path: () => '/home', ready: '[data-testid="home-room"]' },
    { name: 'login-box', path: () => '/login', ready: '[data-testid="login-room"]' },
    { name: 'left', path: () => `/left/${room}`, ready: '[data-testid="left-page"]' },
  ];
  it.each(stops.map((s) => [s.name, s] as const))('%s', async (name, stop) => {
    const { page } = await world.person({}, { preJoin: 'manual' });
    const found: string[] = [];
    for (const size of ['1280', '390'] as Size[]) {
      await page.setViewportSize(VIEWPORTS[size]);
      for (const lang of ['zh', 'en'] as Lang[]) {
        await setLang(page.context(), world.server.url, lang);
        await open(page, stop.path());
        await page.locator(stop.ready).waitFor();
        await page.locator(`html[lang="${lang === 'zh' ? 'zh-CN' : 'en'}"]`).waitFor({ state: 'attached' });
        // The box is in sight without scrolling where it is the page's point.
        if (name !== 'left') {
          const box = (await page.locator(stop.ready).boundingBox())!;
          expect(box.y + box.height, `${name} ${size} ${lang}: the number box in the first screen`).toBeLessThanOrEqual(
            VIEWPORTS[size].height,
          );
        }
        const problems = [...(await layoutProblems(page, { topBarOneRow: false, tilesBeside: false })), ...(await axeProblems(page, AXE))];
        for (const p of problems) found.push(`${name} ${size} ${lang}: ${p}`);
        await shot(page, `${name}-${size}-${lang}`);
      }
    }
    expect(found).toEqual([]);
  });
});
