/**
 * The class tools in the browser (issue 30, ADR 114): a teacher, Ann at a computer (English) and
 * Ben on a phone (Chinese, his clock 5 minutes behind) use each tool as people would: the Tools
 * menu by keyboard, an answer sheet (answered, changed, collected, published, right and wrong
 * shown, everyone right rewarded), a poll of two questions, the countdown from the server's time
 * (every page within 250 ms of it, Ben's too) with its sound at zero, the stopwatch, the buzzer
 * (both press at once: one wins, the other is told), the random pick, trophies from the members
 * list. An observer sees the results and no button. Each view is measured by the layout rules of
 * tests/e2e/tour.ts (no overflow, nothing overlapping or cut off) and axe, and photographed
 * (SHOTS=dir).
 */
import { readFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { expectToast, open, signIn, startWorld, type World } from './helpers.ts';
import { axeProblems, layoutProblems } from './tour.ts';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = process.env['SHOTS'];
const SKEW_MS = -5 * 60_000;

let world: World;

async function shot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `tools-${name}.png`) });
}

interface Person {
  page: Page;
  id: string;
  name: string;
}

async function person(name: string, opts: { phone?: boolean; lang?: 'zh' | 'en' } = {}): Promise<Person> {
  const lang = opts.lang ?? 'zh';
  const { page, context } = await world.person({
    ...(opts.phone ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : {}),
    ...(lang === 'en' ? { locale: 'en-US' } : {}),
  });
  await context.addCookies([{ name: 'lang', value: lang, url: world.server.url }]);
  await signIn(page, world.server);
  await page.request.post('/api/updateUserName', { data: { userName: name } });
  const res = await page.request.post('/api/queryUserInfoByToken', { data: {} });
  const id = ((await res.json()) as { data: { userInfo: { userId: string } } }).data.userInfo.userId;
  return { page, id, name };
}

/** What a page's tools hook (test build) says: the server time it reckons, and its timer as shown. */
async function reckoned(page: Page): Promise<{ serverNow: number; shown: number | null }> {
  return page.evaluate(() => {
    const hook = (window as unknown as { __banshuTools: { serverNow: () => number; timerShownMs: () => number | null } }).__banshuTools;
    return { serverNow: hook.serverNow(), shown: hook.timerShownMs() };
  });
}

async function timerState(page: Page): Promise<{ durationMs: number; elapsedMs: number; startedAt: number; running: boolean }> {
  return page.evaluate(() => {
    const hook = (window as unknown as { __banshuTools: { view: () => { tools: { timer: unknown } } } }).__banshuTools;
    return hook.view().tools.timer as { durationMs: number; elapsedMs: number; startedAt: number; running: boolean };
  });
}

async function beepCount(page: Page): Promise<number> {
  return page.evaluate(() => (window as unknown as { __banshuTools: { beeps: () => number } }).__banshuTools.beeps());
}

/**
 * Layout rules and axe on the page as it is (toasts closed first: they pass over the class; a
 * reward's 3.2 s animation ended first: axe would measure its text's contrast mid-fade).
 */
async function checkLayout(page: Page, where: string, found: string[], topBarOneRow = false): Promise<void> {
  for (const close of await page.locator('.toast__close').all()) await close.click().catch(() => undefined);
  await page.locator('[data-testid="toast"]').first().waitFor({ state: 'detached' });
  await page.getByTestId('reward-burst').first().waitFor({ state: 'detached', timeout: 10_000 });
  const problems = [...(await layoutProblems(page, { topBarOneRow, tilesBeside: false })), ...(await axeProblems(page, AXE))];
  for (const p of problems) found.push(`${where}: ${p}`);
}

beforeAll(async () => {
  // The server's clock runs with real time: the countdown is measured against it.
  world = await startWorld({ realTime: true });
});
afterAll(async () => {
  await world?.close();
});

describe('the class tools, as a teacher and two students use them', () => {
  let room = '';
  let teacher: Person;
  let ann: Person;
  let ben: Person;
  let observer: Page;
  const layout: string[] = [];
  const serverNow = () => world.server.clock.now().getTime();

  it('the teacher opens the Tools menu by keyboard; the students and an observer are in the class', async () => {
    teacher = await person('王老师');
    const created = await teacher.page.request.post('/api/createRoom', { data: { roomType: 2 } });
    room = ((await created.json()) as { data: { roomInfo: { roomNumber: string } } }).data.roomInfo.roomNumber;
    await open(teacher.page, `/bb/${room}`);
    ann = await person('Ann', { lang: 'en' });
    await open(ann.page, `/bb/${room}`);
    ben = await person('李小明', { phone: true });
    // Ben's phone is 5 minutes behind: whatever it says, the tools follow the server's time.
    await ben.page.clock.setSystemTime(new Date(Date.now() + SKEW_MS));
    await open(ben.page, `/bb/${room}`);
    const benSkew = (await ben.page.evaluate(() => Date.now())) - Date.now();
    expect(Math.abs(benSkew - SKEW_MS)).toBeLessThan(5000);
    const link = await teacher.page.request.post('/api/createObserverLink', { data: { roomNumber: room } });
    const url = new URL(((await link.json()) as { data: { url: string } }).data.url);
    observer = (await world.person()).page;
    await open(observer, url.pathname + url.search);
    await observer.getByTestId('observer-header').waitFor({ timeout: 20_000 });

    const button = teacher.page.getByTestId('tools-button');
    await expect.poll(() => button.isEnabled(), { timeout: 20_000 }).toBe(true);
    await button.focus();
    await teacher.page.keyboard.press('Enter');
    const menu = teacher.page.getByTestId('tools-menu');
    await menu.waitFor();
    await expect.poll(() => teacher.page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('tools-quiz');
    await teacher.page.keyboard.press('ArrowDown');
    await expect.poll(() => teacher.page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('tools-poll');
    await teacher.page.keyboard.press('End');
    // The breakout groups are the menu's last item (ADR 118).
    await expect.poll(() => teacher.page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('groups-button');
    await teacher.page.keyboard.press('ArrowUp');
    await expect.poll(() => teacher.page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('tools-reward');
    expect(await menu.getByRole('menuitem').allInnerTexts()).toEqual([
      '答题器',
      '投票',
      '计时器',
      '抢答器',
      '随机点名',
      '奖励',
      '分组讨论',
    ]);
    await shot(teacher.page, 'menu-1280-zh');
    await teacher.page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    await expect.poll(() => teacher.page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('tools-button');
    // Students and the observer have no Tools menu.
    for (const p of [ann.page, ben.page, observer]) expect(await p.getByTestId('tools-button').count()).toBe(0);
  });

  it('an answer sheet: answered, changed until collected, published with each one’s right or wrong, everyone right rewarded', async () => {
    const t = teacher.page;
    await t.getByTestId('tools-button').click();
    await t.getByTestId('tools-quiz').click();
    const dialog = t.getByTestId('quiz-dialog');
    await dialog.waitFor();
    // Starting without a correct answer is refused here, with the reason.
    await dialog.getByTestId('quiz-start').click();
    await dialog.getByTestId('quiz-problem').waitFor();
    await dialog.getByTestId('quiz-options').getByRole('radio', { name: '5' }).check();
    await dialog.getByTestId('quiz-correct').getByRole('button', { name: '选项 B' }).click();
    await shot(t, 'quiz-new-1280-zh');
    await dialog.getByTestId('quiz-start').click();
    await dialog.waitFor({ state: 'detached' });

    const sheetOf = (p: Page) => p.getByTestId('quiz-sheet');
    for (const p of [ann.page, ben.page]) await sheetOf(p).waitFor();
    expect(
      await sheetOf(ann.page)
        .getByRole('button', { name: /^Option [A-E]$/ })
        .count(),
    ).toBe(5);
    await expectToast(ann.page, 'The teacher started an answer sheet');
    await expectToast(ben.page, '老师发起了答题');
    // Ann answers A, then changes her mind to B; Ben (phone) answers C.
    await ann.page.getByTestId('sheet-A').click();
    await ann.page.getByTestId('sheet-submit').click();
    await expect.poll(() => sheetOf(ann.page).getAttribute('data-mine')).toBe('A');
    await ann.page.getByTestId('sheet-B').click();
    expect(await ann.page.getByTestId('sheet-A').getAttribute('aria-pressed')).toBe('false');
    await ann.page.getByTestId('sheet-submit').click();
    await expect.poll(() => sheetOf(ann.page).getAttribute('data-mine')).toBe('B');
    expect(await ann.page.getByTestId('sheet-state').innerText()).toContain('Submitted: B');
    await ben.page.getByTestId('sheet-C').click();
    await ben.page.getByTestId('sheet-submit').click();
    await expect.poll(() => sheetOf(ben.page).getAttribute('data-mine')).toBe('C');

    // The teacher's live tally: 2 of 2, one right; per student in the details.
    const card = t.getByTestId('quiz-card');
    await expect.poll(() => card.getByTestId('quiz-answered').getAttribute('data-n')).toBe('2');
    expect(await card.getByTestId('quiz-answered').innerText()).toBe('已作答 2/2 人');
    await expect.poll(() => card.getByTestId('quiz-bars').locator('[data-label="B"]').getAttribute('data-count')).toBe('1');
    expect(await card.getByTestId('quiz-bars').locator('[data-label="C"]').getAttribute('data-count')).toBe('1');
    expect(await card.getByTestId('quiz-bars').locator('[data-label="A"]').getAttribute('data-count')).toBe('0');
    expect(await card.getByTestId('quiz-accuracy').innerText()).toBe('正确率 50%');
    await checkLayout(t, 'teacher quiz 1280 zh', layout, true);
    await checkLayout(ann.page, 'Ann quiz 1280 en', layout);
    await checkLayout(ben.page, 'Ben quiz 390 zh', layout);
    await shot(t, 'quiz-tally-1280-zh');
    await shot(ann.page, 'quiz-sheet-1280-en');
    await ben.page.getByTestId('quiz-card').scrollIntoViewIfNeeded();
    await shot(ben.page, 'quiz-sheet-390-zh');
    await card.getByTestId('quiz-details').click();
    const answers = t.getByTestId('quiz-answers');
    await answers.waitFor();
    await expect.poll(() => answers.locator(`[data-user="${ann.id}"]`).getAttribute('data-right')).toBe('true');
    expect(await answers.locator(`[data-user="${ben.id}"]`).getAttribute('data-right')).toBe('false');
    // Wrong answers first.
    expect(await answers.getByTestId('answer-row').first().getAttribute('data-user')).toBe(ben.id);
    await shot(t, 'quiz-answers-1280-zh');
    await t.keyboard.press('Escape');
    await answers.waitFor({ state: 'detached' });
    // The observer sees how many answered, not who or what, and no button.
    const watch = observer.getByTestId('quiz-card');
    await expect.poll(() => watch.getByTestId('quiz-answered').getAttribute('data-n')).toBe('2');
    expect(await watch.getByRole('button').count()).toBe(0);
    expect(await watch.getByTestId('quiz-bars').count()).toBe(0);

    // Collected: the sheets close.
    await card.getByTestId('quiz-collect').click();
    await expect.poll(() => ann.page.getByTestId('quiz-card').getAttribute('data-status')).toBe('collected');
    expect(await ann.page.getByTestId('sheet-C').isDisabled()).toBe(true);
    expect(await ann.page.getByTestId('sheet-submit').count()).toBe(0);
    expect(await ann.page.getByTestId('sheet-state').innerText()).toContain('The teacher collected the answers');

    // Published: the result for everyone, each student's own right or wrong.
    await card.getByTestId('quiz-publish').click();
    await expect.poll(() => ann.page.getByTestId('quiz-own').getAttribute('data-right')).toBe('true');
    expect(await ann.page.getByTestId('quiz-own').innerText()).toContain('You were right');
    await expect.poll(() => ben.page.getByTestId('quiz-own').getAttribute('data-right')).toBe('false');
    expect(await ben.page.getByTestId('quiz-own').innerText()).toContain('你答错了');
    for (const p of [ann.page, ben.page, observer]) {
      await expect.poll(() => p.getByTestId('quiz-accuracy').innerText()).toMatch(/B/);
      expect(await p.getByTestId('quiz-bars').locator('.bars__row--correct').getAttribute('data-label')).toBe('B');
    }
    expect(await ann.page.getByTestId('quiz-accuracy').innerText()).toBe('Correct: B · Accuracy 50% · 1 of 2 right');
    expect(await observer.getByTestId('quiz-card').getByRole('button').count()).toBe(0);
    await checkLayout(ann.page, 'Ann published 1280 en', layout);
    await checkLayout(ben.page, 'Ben published 390 zh', layout);
    await checkLayout(observer, 'observer published 1280 zh', layout);
    await shot(ann.page, 'quiz-published-1280-en');
    await ben.page.getByTestId('quiz-card').scrollIntoViewIfNeeded();
    await shot(ben.page, 'quiz-published-390-zh');
    await shot(observer, 'quiz-published-observer-1280-zh');

    // Everyone right gets a trophy: the animation for all, the count in the members list.
    await card.getByTestId('quiz-reward-right').click();
    for (const p of [t, ann.page, ben.page, observer])
      await p
        .getByTestId('reward-burst')
        .and(p.locator(`[data-users="${ann.id}"]`))
        .waitFor();
    expect(await ann.page.getByTestId('reward-burst').innerText()).toContain('You earn a trophy!');
    expect(await ben.page.getByTestId('reward-burst').innerText()).toContain('Ann 获得一个奖杯！');
    await shot(ben.page, 'reward-burst-390-zh');
    await t.getByRole('tab', { name: /成员/ }).click();
    await expect
      .poll(() => t.locator(`[data-testid="member-row"][data-user="${ann.id}"] [data-testid="member-trophies"]`).getAttribute('data-n'))
      .toBe('1');
    await card.getByTestId('quiz-close').click();
    for (const p of [t, ann.page, ben.page, observer]) await p.getByTestId('quiz-card').waitFor({ state: 'detached' });
  });

  it('a poll of two questions: votes, the teacher’s live counts, closed, published', async () => {
    const t = teacher.page;
    await t.getByTestId('tools-button').click();
    await t.getByTestId('tools-poll').click();
    const dialog = t.getByTestId('poll-dialog');
    await dialog.waitFor();
    await dialog.getByTestId('poll-anonymous').getByRole('radio', { name: '实名投票' }).check();
    await dialog.getByTestId('poll-text').first().fill('午饭吃什么？');
    await dialog.getByTestId('poll-option').nth(0).fill('米饭');
    await dialog.getByTestId('poll-option').nth(1).fill('面条');
    await dialog.getByTestId('poll-add-option').click();
    await dialog.getByTestId('poll-option').nth(2).fill('饺子');
    await dialog.getByTestId('poll-add-question').click();
    const second = dialog.getByTestId('poll-question').nth(1);
    await second.getByTestId('poll-text').fill('Which sports?');
    await second.getByTestId('poll-option').nth(0).fill('Football');
    await second.getByTestId('poll-option').nth(1).fill('Swimming');
    await second.getByText('可多选').click();
    await shot(t, 'poll-new-1280-zh');
    await dialog.getByTestId('poll-start').click();
    await dialog.waitFor({ state: 'detached' });

    const annSheet = ann.page.getByTestId('poll-sheet');
    await annSheet.waitFor();
    // Not every question answered: said, nothing sent.
    await annSheet.getByText('面条').click();
    await annSheet.getByTestId('poll-submit').click();
    await annSheet.getByText('Answer every question').waitFor();
    await annSheet.getByText('Football').click();
    await annSheet.getByText('Swimming').click();
    await shot(ann.page, 'poll-sheet-1280-en');
    await annSheet.getByTestId('poll-submit').click();
    await ann.page.getByTestId('poll-state').filter({ hasText: 'You voted' }).waitFor();
    const benSheet = ben.page.getByTestId('poll-sheet');
    await benSheet.scrollIntoViewIfNeeded();
    await benSheet.getByText('面条').click();
    await benSheet.getByText('Swimming').click();
    await shot(ben.page, 'poll-sheet-390-zh');
    await benSheet.getByTestId('poll-submit').click();
    await ben.page.getByTestId('poll-state').waitFor();

    const card = t.getByTestId('poll-card');
    await expect.poll(() => card.getByTestId('poll-voters').getAttribute('data-n')).toBe('2');
    const q1 = card.getByTestId('poll-bars').nth(0);
    const q2 = card.getByTestId('poll-bars').nth(1);
    await expect.poll(() => q1.locator('[data-label="面条"]').getAttribute('data-count')).toBe('2');
    await expect.poll(() => q2.locator('[data-label="Swimming"]').getAttribute('data-count')).toBe('2');
    expect(await q2.locator('[data-label="Football"]').getAttribute('data-count')).toBe('1');
    // Students see no counts before they are published.
    expect(await ann.page.getByTestId('poll-bars').count()).toBe(0);
    await checkLayout(t, 'teacher poll 1280 zh', layout, true);
    await shot(t, 'poll-live-1280-zh');
    await card.getByTestId('poll-close').click();
    await expect.poll(() => card.getAttribute('data-status')).toBe('closed');
    await card.getByTestId('poll-publish').click();
    for (const p of [ann.page, ben.page, observer]) {
      await expect.poll(() => p.getByTestId('poll-bars').nth(0).locator('[data-label="面条"]').getAttribute('data-count')).toBe('2');
    }
    expect(await ann.page.getByTestId('poll-bars').nth(0).locator('[data-label="面条"] .bars__num').innerText()).toBe('2 · 100%');
    await checkLayout(ben.page, 'Ben poll 390 zh', layout);
    await ben.page.getByTestId('poll-card').scrollIntoViewIfNeeded();
    await shot(ben.page, 'poll-published-390-zh');
    await shot(ann.page, 'poll-published-1280-en');
    await card.getByTestId('poll-dismiss').click();
    for (const p of [ann.page, ben.page]) await p.getByTestId('poll-card').waitFor({ state: 'detached' });
  });

  it('the countdown follows the server’s time on every page, Ben’s 5-minute-off phone too, and sounds at zero', async () => {
    const t = teacher.page;
    await t.getByTestId('tools-button').click();
    await t.getByTestId('tools-timer').click();
    const dialog = t.getByTestId('timer-dialog');
    await dialog.getByTestId('timer-minutes').fill('0');
    await dialog.getByTestId('timer-seconds').fill('6');
    await dialog.getByTestId('timer-set').click();
    await dialog.waitFor({ state: 'detached' });
    for (const p of [ann.page, ben.page, observer]) await expect.poll(() => p.getByTestId('timer-digits').innerText()).toBe('00:06');
    const beepsBefore = await Promise.all([t, ann.page, ben.page].map(beepCount));
    await t.getByTestId('timer-start').click();
    for (const p of [t, ann.page, ben.page, observer]) await p.locator('[data-testid="timer-card"][data-state="running"]').waitFor();

    // Each page's reckoning of the server's time, and its countdown, against the server's own clock.
    const timer = await timerState(t);
    expect(timer.running).toBe(true);
    for (const [who, p] of [
      ['teacher', t],
      ['Ann', ann.page],
      ['Ben (clock 5 min behind)', ben.page],
      ['observer', observer],
    ] as const) {
      const before = serverNow();
      const seen = await reckoned(p);
      const after = serverNow();
      const truthAt = (now: number) => Math.max(0, timer.durationMs - (timer.elapsedMs + (now - timer.startedAt)));
      process.stdout.write(
        `  ${who}: server time off by ${String(Math.round(seen.serverNow - (before + after) / 2))} ms (read in ${String(after - before)} ms)\n`,
      );
      expect(seen.serverNow).toBeGreaterThanOrEqual(before - 250);
      expect(seen.serverNow).toBeLessThanOrEqual(after + 250);
      expect(seen.shown).not.toBeNull();
      expect(seen.shown!).toBeLessThanOrEqual(truthAt(before) + 250);
      expect(seen.shown!).toBeGreaterThanOrEqual(truthAt(after) - 250);
    }
    expect(Math.abs((await ben.page.evaluate(() => Date.now())) - Date.now() - SKEW_MS)).toBeLessThan(5000);
    await checkLayout(ben.page, 'Ben timer 390 zh', layout);
    await shot(ann.page, 'timer-running-1280-en');
    await ben.page.getByTestId('timer-card').scrollIntoViewIfNeeded();
    await shot(ben.page, 'timer-running-390-zh');

    // Zero: everyone sees it, and each page made its sound.
    for (const p of [t, ann.page, ben.page, observer])
      await p.locator('[data-testid="timer-card"][data-state="done"]').waitFor({ timeout: 10_000 });
    // (textContent: the digits blink at zero, and a blinked-out element has no innerText.)
    for (const p of [t, ann.page, ben.page]) expect(await p.getByTestId('timer-digits').textContent()).toBe('00:00');
    const beepsAfter = await Promise.all([t, ann.page, ben.page].map(beepCount));
    expect(beepsAfter.map((n, i) => n - beepsBefore[i]!)).toEqual([1, 1, 1]);
    // Run out: nothing to pause; it starts again only after a reset.
    expect(await t.getByTestId('timer-pause').count()).toBe(0);
    expect(await t.getByTestId('timer-start').isDisabled()).toBe(true);
    await shot(t, 'timer-done-1280-zh');

    // The stopwatch: started, paused (the same on every page), reset.
    await t.getByTestId('tools-button').click();
    await t.getByTestId('tools-timer').click();
    await t.getByTestId('timer-dialog').getByTestId('timer-kind').getByRole('radio', { name: '秒表' }).check();
    await t.getByTestId('timer-set').click();
    await t.locator('[data-testid="timer-card"][data-kind="stopwatch"]').waitFor();
    await t.getByTestId('timer-start').click();
    await expect.poll(() => ann.page.getByTestId('timer-digits').innerText(), { timeout: 5000 }).toBe('00:01');
    await t.getByTestId('timer-pause').click();
    for (const p of [ann.page, ben.page]) await p.locator('[data-testid="timer-card"][data-state="paused"]').waitFor();
    const paused = await Promise.all([t, ann.page, ben.page].map((p) => p.getByTestId('timer-digits').innerText()));
    expect(new Set(paused).size).toBe(1);
    await t.getByTestId('timer-reset').click();
    for (const p of [ann.page, ben.page]) await expect.poll(() => p.getByTestId('timer-digits').innerText()).toBe('00:00');
    await t.getByTestId('timer-clear').click();
    for (const p of [ann.page, ben.page]) await p.getByTestId('timer-card').waitFor({ state: 'detached' });
  });

  it('the buzzer: both press at once, the first to reach the server wins, the other is told', async () => {
    const t = teacher.page;
    await t.getByTestId('tools-button').click();
    await t.getByTestId('tools-buzzer').click();
    for (const p of [ann.page, ben.page]) await p.getByTestId('buzzer-press').waitFor();
    await expectToast(ann.page, 'The buzzer is open');
    await ben.page.getByTestId('buzzer-card').scrollIntoViewIfNeeded();
    await shot(ben.page, 'buzzer-open-390-zh');
    // Both press in the same instant (a click waits for its button, which the first win takes away).
    const press = (p: Page) =>
      p.evaluate(() => {
        const button = document.querySelector<HTMLButtonElement>('[data-testid="buzzer-press"]:enabled');
        button?.click();
        return button !== null;
      });
    const pressed = await Promise.all([press(ann.page), press(ben.page)]);
    expect(pressed.some(Boolean)).toBe(true);
    const winnerOf = (p: Page) => p.getByTestId('buzzer-card').getAttribute('data-winner');
    await expect.poll(() => winnerOf(t)).not.toBe('');
    const winner = (await winnerOf(t))!;
    expect([ann.id, ben.id]).toContain(winner);
    for (const p of [ann.page, ben.page, observer]) await expect.poll(() => winnerOf(p)).toBe(winner);
    const [won, lost] = winner === ann.id ? [ann, ben] : [ben, ann];
    expect(await won.page.getByTestId('buzzer-winner').innerText()).toMatch(/You were first!|你抢到了！/);
    expect(await t.getByTestId('buzzer-winner').innerText()).toContain(`${won.name} 抢到了`);
    // A slower press that went out was refused with the server's word for it, in the loser's language.
    if (pressed[lost === ann ? 0 : 1]) await expectToast(lost.page, lost === ann ? 'Someone was faster' : '已有人抢先了');
    process.stdout.write(`  buzzer: Ann pressed ${String(pressed[0])}, Ben pressed ${String(pressed[1])}, ${won.name} won\n`);
    await shot(t, 'buzzer-won-1280-zh');
    await shot(ann.page, 'buzzer-won-1280-en');
    await t.getByTestId('buzzer-again').click();
    for (const p of [ann.page, ben.page]) await p.getByTestId('buzzer-press').and(p.locator(':enabled')).waitFor();
    await t.getByTestId('buzzer-close').click();
    for (const p of [ann.page, ben.page]) await p.getByTestId('buzzer-card').waitFor({ state: 'detached' });
  });

  it('the random pick: the names run, then everyone sees the same student', async () => {
    const t = teacher.page;
    await t.getByTestId('tools-button').click();
    await t.getByTestId('tools-pick').click();
    await ann.page.getByTestId('pick-spin').waitFor();
    const pickedOf = (p: Page) => p.locator('[data-testid="pick-card"][data-state="picked"]').getAttribute('data-user');
    await expect.poll(() => pickedOf(t), { timeout: 5000 }).toMatch(/\d+/);
    const picked = (await pickedOf(t))!;
    expect([ann.id, ben.id]).toContain(picked);
    for (const p of [ann.page, ben.page, observer]) await expect.poll(() => pickedOf(p), { timeout: 5000 }).toBe(picked);
    const chosen = picked === ann.id ? ann : ben;
    expect(await chosen.page.getByTestId('pick-result').innerText()).toMatch(/You are picked!|点到你了！/);
    await shot(ben.page, 'pick-390-zh');
    await shot(t, 'pick-1280-zh');
    for (const p of [t, ann.page, ben.page]) {
      await p.getByTestId('pick-hide').click();
      await p.getByTestId('pick-card').waitFor({ state: 'detached' });
    }
  });

  it('trophies from the members list, to one and to several; counts for all', async () => {
    const t = teacher.page;
    await t.getByRole('tab', { name: /成员/ }).click();
    await t.locator(`[data-testid="member-row"][data-user="${ben.id}"] [data-testid="member-reward"]`).click();
    const dialog = t.getByTestId('reward-dialog');
    await dialog.waitFor();
    expect(await dialog.locator(`[data-testid="reward-student"][data-user="${ben.id}"] input`).isChecked()).toBe(true);
    await shot(t, 'reward-dialog-1280-zh');
    await dialog.getByTestId('reward-give').click();
    await ben.page.getByTestId('reward-burst').filter({ hasText: '你获得一个奖杯！' }).waitFor();
    // Both at once: select all.
    await t.getByTestId('tools-button').click();
    await t.getByTestId('tools-reward').click();
    await dialog.getByText('全选').click();
    await dialog.getByTestId('reward-give').click();
    await ann.page.getByTestId('reward-burst').filter({ hasText: 'You earn a trophy!' }).waitFor();
    for (const [p, tab] of [
      [t, /成员/],
      [ann.page, /Members/],
      [ben.page, /成员/],
    ] as const) {
      await p.getByRole('tab', { name: tab }).click();
      for (const who of [ann, ben]) {
        await expect
          .poll(() => p.locator(`[data-testid="member-row"][data-user="${who.id}"] [data-testid="member-trophies"]`).getAttribute('data-n'))
          .toBe('2');
      }
    }
    await shot(ann.page, 'trophies-1280-en');
    await ben.page.getByTestId('member-row').first().scrollIntoViewIfNeeded();
    await shot(ben.page, 'trophies-390-zh');
    expect(layout).toEqual([]);
  });

  it('a reload keeps every tool as the server holds it', async () => {
    const t = teacher.page;
    await t.getByTestId('tools-button').click();
    await t.getByTestId('tools-quiz').click();
    await t.getByTestId('quiz-dialog').getByTestId('quiz-type').getByRole('radio', { name: '多选' }).check();
    await t.getByTestId('quiz-correct').getByRole('button', { name: '选项 A' }).click();
    await t.getByTestId('quiz-correct').getByRole('button', { name: '选项 C' }).click();
    await t.getByTestId('quiz-limit').fill('120');
    await t.getByTestId('quiz-start').click();
    await ann.page.getByTestId('sheet-A').click();
    await ann.page.getByTestId('sheet-C').click();
    await ann.page.getByTestId('sheet-submit').click();
    await expect.poll(() => ann.page.getByTestId('quiz-sheet').getAttribute('data-mine')).toBe('AC');
    // The limit counts down from the server's time on Ben's phone too.
    await expect.poll(() => ben.page.getByTestId('quiz-left').innerText()).toMatch(/^剩余 0[12]:\d\d$/);
    await ann.page.reload();
    await expect.poll(() => ann.page.getByTestId('quiz-sheet').getAttribute('data-mine'), { timeout: 20_000 }).toBe('AC');
    expect(await ann.page.getByTestId('sheet-A').getAttribute('aria-pressed')).toBe('true');
    await t.reload();
    await expect.poll(() => t.getByTestId('quiz-answered').getAttribute('data-n'), { timeout: 20_000 }).toBe('1');
    await expect.poll(() => t.getByTestId('quiz-accuracy').innerText()).toBe('正确率 100%');
    await t.getByTestId('quiz-close').click();
    await ann.page.getByTestId('quiz-card').waitFor({ state: 'detached' });
  });

  afterAll(async () => {
    await Promise.allSettled([teacher, ann, ben].filter(Boolean).map((p) => p.page.context().close()));
  });
});
