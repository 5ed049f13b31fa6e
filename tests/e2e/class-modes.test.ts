/**
 * Class modes in the browser (issue 27, ADR 099): the teacher switches a mini class to lecture and
 * within a second everyone sees the students' microphones closed; a student's microphone button
 * says why and the media node refuses it, until the teacher invites them or switches back to
 * discuss. Then the audio class's clock: shown to everyone, warnings at 5 and 1 minutes, and its
 * end said as the time running out, not the teacher ending the class. Screenshots (SHOTS=dir) of
 * the mode badge and the closed microphone button, at 1280x720 and on a phone.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { expectToast, open, signIn, startWorld, waitForPath, type World } from './helpers.ts';

let world: World;
const SHOTS = process.env['SHOTS'];

async function shot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

interface Person {
  page: Page;
  id: string;
}

async function person(name: string, phone = false, lang: 'zh' | 'en' = 'zh'): Promise<Person> {
  const { page, context } = await world.person({
    ...(phone ? { viewport: { width: 390, height: 844 } } : {}),
    ...(lang === 'en' ? { locale: 'en-US' } : {}),
  });
  await context.addCookies([{ name: 'lang', value: lang, url: world.server.url }]);
  await signIn(page, world.server);
  await page.request.post('/api/updateUserName', { data: { userName: name } });
  const res = await page.request.post('/api/queryUserInfoByToken', { data: {} });
  const id = ((await res.json()) as { data: { userInfo: { userId: string } } }).data.userInfo.userId;
  return { page, id };
}

/** `viewer`'s tile of `who`: its microphone state ('true' muted). */
const micOf = (viewer: Page, who: string) => viewer.locator(`[data-testid="media-tile"][data-user="${who}"] [data-testid="tile-mic"]`);

async function live(p: Person): Promise<void> {
  await p.page.getByTestId('media-controls').and(p.page.locator('[data-status="live"]')).waitFor({ timeout: 20_000 });
}

beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world?.close();
});

describe('discuss and lecture', () => {
  let room = '';
  let teacher: Person;
  let ann: Person;
  let ben: Person;

  it('lecture mode closes the students’ microphones for everyone within a second, and says so', async () => {
    teacher = await person('Teacher');
    await world.server.banshu.platform.services.billingRepo.grant(teacher.id, { vip_room_time: new Date(Date.now() + 86400_000) });
    const created = await teacher.page.request.post('/api/createAgoraRoom', { data: { roomType: 1, consumption: 'on' } });
    room = ((await created.json()) as { data: { roomInfo: { roomNumber: string } } }).data.roomInfo.roomNumber;
    await open(teacher.page, `/${room}`);
    await live(teacher);
    ann = await person('Ann');
    await open(ann.page, `/${room}`);
    await live(ann);
    // Ben follows on a phone.
    ben = await person('Ben', true);
    await open(ben.page, `/${room}`);
    await live(ben);
    // Everyone sees discuss; Ann joined with her microphone on and is heard as such.
    await expect.poll(() => ann.page.getByTestId('mode-badge').getAttribute('data-mode')).toBe('discuss');
    await expect.poll(() => micOf(teacher.page, ann.id).getAttribute('data-muted'), { timeout: 15_000 }).toBe('false');
    await expect.poll(() => micOf(ben.page, ann.id).getAttribute('data-muted'), { timeout: 15_000 }).toBe('false');

    // Timed in the pages, on the one clock of this machine: from the teacher's click to the moment
    // Ann's tile shows her muted, on the teacher's screen and on Ben's (an observer in each page).
    const watchMute = (page: Page) =>
      page.evaluate((who) => {
        const w = window as unknown as { mutedAt?: number };
        const sel = `[data-testid="media-tile"][data-user="${who}"] [data-testid="tile-mic"][data-muted="true"]`;
        new MutationObserver((_, obs) => {
          if (document.querySelector(sel)) {
            w.mutedAt = Date.now();
            obs.disconnect();
          }
        }).observe(document.body, { subtree: true, attributes: true, childList: true, attributeFilter: ['data-muted'] });
      }, ann.id);
    await Promise.all([watchMute(teacher.page), watchMute(ben.page)]);
    await teacher.page.evaluate(() => {
      const w = window as unknown as { clickedAt?: number };
      document
        .querySelector('[data-testid="mode-lecture"]')!
        .addEventListener('click', () => (w.clickedAt = Date.now()), { capture: true });
    });
    await teacher.page.getByTestId('mode-lecture').click();
    const mutedAt = (page: Page) => page.evaluate(() => (window as unknown as { mutedAt?: number }).mutedAt ?? null);
    await expect
      .poll(async () => (await mutedAt(teacher.page)) !== null && (await mutedAt(ben.page)) !== null, { timeout: 5000 })
      .toBe(true);
    const clickedAt = await teacher.page.evaluate(() => (window as unknown as { clickedAt: number }).clickedAt);
    const took = [(await mutedAt(teacher.page))! - clickedAt, (await mutedAt(ben.page))! - clickedAt];
    process.stdout.write(`\n  lecture click -> Ann muted: teacher's tile ${took[0]} ms, Ben's tile ${took[1]} ms\n`);
    for (const ms of took) expect(ms).toBeLessThan(1000);
    expect(await teacher.page.getByTestId('mode-lecture').getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => ann.page.getByTestId('mode-badge').getAttribute('data-mode')).toBe('lecture');
    await expect.poll(() => ben.page.getByTestId('mode-badge').getAttribute('data-mode')).toBe('lecture');
    await expectToast(ann.page, '老师切换到了授课模式');
    // Ann's own button: closed, with the reason; pressing it says why.
    const annMic = ann.page.getByTestId('toggle-mic');
    await expect.poll(() => annMic.getAttribute('data-closed')).toBe('true');
    expect(await annMic.getAttribute('aria-disabled')).toBe('true');
    expect(await annMic.innerText()).toContain('授课模式');
    // aria-disabled, not disabled: it stays reachable by keyboard and answers with the reason.
    await annMic.focus();
    await ann.page.keyboard.press('Enter');
    await expectToast(ann.page, '老师切回讨论模式或邀请你上台后');
    await shot(ann.page, 'modes-student-lecture-1280');
    await shot(ben.page, 'modes-student-lecture-phone');
    await shot(teacher.page, 'modes-teacher-lecture-1280');
    // The media node holds it: Ann may not send her microphone, whatever her page tried.
    const node = world.server.banshu.media!.server.rooms.get(room)!;
    const annPeer = () => [...node.peers.values()].find((p) => p.userId === ann.id)!;
    expect(annPeer().rights).not.toContain('mic');
    expect([...annPeer().publications.values()].some((p) => p.source === 'mic')).toBe(false);
  });

  it('the teacher brings Ann on stage: agreeing, she is heard; discuss opens Ben’s microphone again', async () => {
    await teacher.page.getByRole('tab', { name: /成员/ }).click();
    const row = teacher.page.locator(`[data-testid="member-row"][data-user="${ann.id}"]`);
    await row.getByRole('button', { name: '邀请上台' }).click();
    await ann.page.getByRole('button', { name: '同意' }).click();
    const annMic = ann.page.getByTestId('toggle-mic');
    await expect.poll(() => annMic.getAttribute('data-closed'), { timeout: 10_000 }).toBeNull();
    // Agreeing is agreeing to be heard: her microphone is on, and everyone hears her.
    await expect.poll(() => annMic.getAttribute('aria-pressed'), { timeout: 10_000 }).toBe('false');
    await expect.poll(() => micOf(teacher.page, ann.id).getAttribute('data-muted'), { timeout: 10_000 }).toBe('false');
    await expect.poll(() => micOf(ben.page, ann.id).getAttribute('data-muted'), { timeout: 10_000 }).toBe('false');
    // Ben, not on stage, is still closed.
    expect(await ben.page.getByTestId('toggle-mic').getAttribute('data-closed')).toBe('true');

    await teacher.page.getByTestId('mode-discuss').click();
    const benMic = ben.page.getByTestId('toggle-mic');
    await expect.poll(() => benMic.getAttribute('data-closed'), { timeout: 5000 }).toBeNull();
    await expectToast(ben.page, '老师切换到了讨论模式');
    await expect.poll(() => ben.page.getByTestId('mode-badge').getAttribute('data-mode')).toBe('discuss');
    await benMic.click();
    await expect.poll(() => micOf(teacher.page, ben.id).getAttribute('data-muted'), { timeout: 10_000 }).toBe('false');
    await shot(ben.page, 'modes-student-discuss-phone');
  });

  afterAll(async () => {
    await Promise.allSettled([teacher, ann, ben].filter(Boolean).map((p) => p.page.context().close()));
  });
});

describe('the audio class clock', () => {
  it('shows the time left to everyone, warns at 5 and 1 minutes, and ends saying the time ran out', async () => {
    const teacher = await person('Teacher');
    const created = await teacher.page.request.post('/api/createRoom', { data: { roomType: 3 } });
    const room = ((await created.json()) as { data: { roomInfo: { roomNumber: string } } }).data.roomInfo.roomNumber;
    await open(teacher.page, `/record/${room}`);
    await live(teacher);
    const student = await person('Sue', false, 'en');
    await open(student.page, `/record/${room}`);
    await live(student);
    // A second student on a phone: the badge and the clock fit its bar.
    const phone = await person('Pia', true, 'en');
    await open(phone.page, `/record/${room}`);
    await live(phone);
    for (const p of [teacher, student, phone]) {
      await expect.poll(() => p.page.getByTestId('class-clock').locator('time').innerText()).toMatch(/^(60:00|59:\d\d)$/);
    }
    const bar = phone.page.getByTestId('member-bar');
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    for (const id of ['class-clock', 'mode-badge', 'exit']) {
      const box = (await bar.getByTestId(id).boundingBox())!;
      expect(box.x >= 0 && box.x + box.width <= 390, `${id} inside the phone's bar`).toBe(true);
    }
    await shot(phone.page, 'modes-audio-clock-phone');
    // No screen share in an audio class: the teacher's tab is not offered (ADR 099).
    expect(await teacher.page.getByTestId('view-screen').isDisabled()).toBe(true);
    await shot(student.page, 'modes-audio-clock-1280-en');

    // The page's clock moves on (the server's stands still in tests): 5 minutes left, then 1.
    const endsAt =
      Number(await student.page.evaluate(() => Date.now())) +
      Number(await student.page.getByTestId('class-clock').getAttribute('data-left-ms'));
    for (const p of [teacher, student]) await p.page.clock.setSystemTime(endsAt - 5 * 60_000 + 2000);
    await expectToast(student.page, 'This audio class closes in 5 minutes');
    await expectToast(teacher.page, '语音课还剩 5 分钟');
    for (const p of [teacher, student]) await p.page.clock.setSystemTime(endsAt - 60_000 + 2000);
    await expectToast(student.page, 'This audio class closes in 1 minute');
    await expectToast(teacher.page, '语音课还剩 1 分钟');
    await shot(student.page, 'modes-audio-clock-warning-1280-en');

    // The hour is up: housekeeping closes it, and each is told the time ran out.
    world.server.clock.advance(61 * 60_000);
    expect(await world.server.banshu.platform.services.live.closeExpired()).toBe(1);
    await waitForPath(student.page, /^\/refused\/time-up/);
    await student.page.getByTestId('refusal').and(student.page.locator('[data-kind="time-up"]')).waitFor();
    expect(await student.page.locator('h1').innerText()).toContain("This class's time ran out");
    await expectToast(teacher.page, '本节课时间已到，教室已自动关闭');
    await shot(student.page, 'modes-audio-time-up-1280-en');
  });
});
