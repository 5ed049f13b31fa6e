/**
 * One page for every refusal (ADR 091): a visitor removed by the teacher sees the removal page at
 * once and again on every reopen of the link; a full room, an unknown number, an ended class and
 * a link with a stray query each open their page, in both languages and at both sizes; nobody is
 * sent to the teacher sign-in page. One world for the file; tests run in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createRoom, open, pathOf, signIn, startWorld, waitForPath, type World } from './helpers.ts';

const SHOTS = process.env['SHOTS'] ?? '';
let world: World;
let teacher: Page;
let visitor: Page;
let student: Page;
let board = '';
/** Every path a refused person was on: none may be the sign-in page. */
const seen: string[] = [];

async function shots(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  const size = page.viewportSize()!;
  for (const lang of ['zh', 'en'] as const) {
    if (lang === 'en') {
      await page.getByTestId('lang-switch').first().click();
      await page.locator('html[lang="en"]').waitFor({ state: 'attached' });
    }
    for (const [w, h] of [
      [1280, 720],
      [390, 844],
    ] as const) {
      await page.setViewportSize({ width: w, height: h });
      await page.screenshot({ path: `${SHOTS}/refusal-${name}-${lang}-${w}.png`, fullPage: true });
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
        `${name} ${lang} ${w}: no overflow`,
      ).toBe(true);
    }
  }
  await page.getByTestId('lang-switch').first().click();
  await page.locator('html[lang="zh-CN"]').waitFor({ state: 'attached' });
  await page.setViewportSize(size);
}

/** A visitor's way in: the name on the pre-join of /userName (ADR 089), then join. */
async function visitorJoin(page: Page, path: string, name: string): Promise<void> {
  await open(page, path);
  await page.getByLabel('姓名').fill(name);
  await page.getByTestId('prejoin-join').click();
}

/** The pre-join when it shows (ADR 089), else straight on. */
async function passPreJoin(page: Page): Promise<void> {
  const join = page.getByTestId('prejoin-join');
  await join.or(page.getByTestId('classroom')).first().waitFor({ timeout: 20_000 });
  if (await join.isVisible()) await join.click();
  await page.getByTestId('classroom').waitFor({ timeout: 20_000 });
}

async function refusal(page: Page, kind: string, room: string | null, heading: string): Promise<void> {
  await waitForPath(page, room ? `/refused/${kind}?room=${room}` : new RegExp(`^/refused/${kind}`));
  seen.push(pathOf(page));
  const card = page.locator(`[data-testid="refusal"][data-kind="${kind}"]`);
  await card.getByRole('heading', { level: 1, name: heading }).waitFor();
  if (room) await card.getByText(`教室号 ${room}`).waitFor();
}

beforeAll(async () => {
  world = await startWorld();
  teacher = (await world.person()).page;
  visitor = (await world.person()).page;
  student = (await world.person()).page;
  await Promise.all([signIn(teacher, world.server), signIn(student, world.server)]);
  board = await createRoom(teacher, 'whiteboard');
  await teacher.getByTestId('top-bar').waitFor();
});
afterAll(async () => {
  for (const p of seen) expect(p.startsWith('/login'), `${p} is not the sign-in page`).toBe(false);
  await world?.close();
});

describe('removed', () => {
  it('a visitor removed by the teacher sees the removal page at once', async () => {
    await visitorJoin(visitor, `/bb/${board}`, '张小三');
    await visitor.getByTestId('classroom').waitFor({ timeout: 20_000 });
    await teacher.getByRole('tab', { name: /^成员（\d+）$/ }).click();
    await teacher.getByTestId('member-row').filter({ hasText: '张小三' }).getByTestId('member-kick').click();
    await teacher.getByRole('dialog').getByTestId('confirm-ok').click();
    await refusal(visitor, 'removed', board, '你已被老师移出本教室');
    await visitor.getByText('请老师发给你新的教室链接').waitFor();
    // No way back in from here: no 'try again' for the same room.
    expect(await visitor.getByTestId('refusal-retry').count()).toBe(0);
    await shots(visitor, 'removed');
  });

  it('sees it again on every reopen of the link (the server remembers)', async () => {
    for (let i = 0; i < 2; i++) {
      await open(visitor, `/bb/${board}`);
      await refusal(visitor, 'removed', board, '你已被老师移出本教室');
      expect(await visitor.getByTestId('prejoin').count()).toBe(0);
    }
    // The removal page in English says the same.
    await visitor.getByTestId('lang-switch').first().click();
    await visitor.getByRole('heading', { level: 1, name: 'The teacher removed you from this class' }).waitFor();
    await visitor.getByTestId('lang-switch').first().click();
  });

  it('can join another classroom from the removal page by its number', async () => {
    const other = await createRoom(teacher, 'whiteboard');
    await open(visitor, `/refused/removed?room=${board}`);
    await visitor.getByLabel('教室号').fill(other);
    await visitor.getByTestId('refusal-join').click();
    await waitForPath(visitor, `/userName/${other}`);
  });
});

describe('other refusals', () => {
  it('a full room', async () => {
    const mini = await createRoom(teacher, 'freeMini');
    await teacher.getByTestId('top-bar').waitFor();
    // The free mini class seats the teacher and one more: the student takes the seat.
    const seated = await student.request.post('/api/userJoinAgoraRoom', { data: { roomNumber: mini } });
    expect(((await seated.json()) as { code: string }).code).toBe('0');
    const late = (await world.person()).page;
    await visitorJoin(late, `/${mini}`, '晚到的');
    await refusal(late, 'full', mini, '教室人数已满');
    await late.getByTestId('refusal-retry').waitFor();
    expect(await late.getByTestId('refusal-retry').getAttribute('href')).toBe(`/${mini}`);
    await shots(late, 'full');
  });

  it('an unknown classroom number', async () => {
    await open(student, '/live/000002');
    await refusal(student, 'not-found', '000002', '没有找到这间教室');
    await shots(student, 'not-found');
  });

  it('a class the teacher ended: the student in it sees the page at once', async () => {
    const room = await createRoom(teacher, 'whiteboard');
    await teacher.getByTestId('top-bar').waitFor();
    await open(student, `/bb/${room}`);
    await passPreJoin(student);
    const ended = await teacher.request.post('/api/endMyRoom', { data: { roomNumber: room } });
    expect(((await ended.json()) as { code: string }).code).toBe('0');
    await refusal(student, 'closed', room, '这节课已经结束');
    await shots(student, 'closed');
    // Reopened, the ended room is no longer found; the page says it may have ended.
    await open(student, `/bb/${room}`);
    await refusal(student, 'not-found', room, '没有找到这间教室');
    await student.getByText('或者这节课已经结束').waitFor();
  });

  it('a link with a stray query: no permission, for a visitor without an account too', async () => {
    const stranger = (await world.person()).page;
    await open(stranger, `/bb/${board}?foo=1`);
    await refusal(stranger, 'no-permission', board, '这个链接无法打开教室');
    expect(await stranger.getByTestId('refusal-sign-in').getAttribute('href')).toBe(`/login?redirect=/${board}`);
    await shots(stranger, 'no-permission');
  });

  it('an unknown kind is not a page', async () => {
    expect((await visitor.goto('/refused/whatever'))?.status()).toBe(404);
  });
});
