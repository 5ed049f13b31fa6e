/**
 * The classroom's media health (ADR 101) in Chromium: playback the browser blocks (an observer,
 * who never clicked: no pre-join, no camera) shows the "click to start sound and video" prompt,
 * is logged as `video_play_error`, and plays after one click; the device-exception view for an
 * unplugged camera (muted for everyone, retry brings it back), a busy camera, a camera that takes
 * neither 640x360 nor 640x480, and a refused permission that a grant later undoes without a
 * reload. Each view is checked by the layout and axe rules of the layout suite at 1280x720 and
 * 390x844 in both languages and photographed (SHOTS=dir).
 *
 * Chromium's fake devices stand for the hardware; the failures a real device gives (busy,
 * refused, over-constrained) are given by a wrapper around getUserMedia that the test switches on
 * once the person is in the classroom (so the pre-join passes as usual).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { createRoom, joinByNumber, signIn, startWorld, type World } from './helpers.ts';
import { axeProblems, layoutProblems, PHONE, setLang, VIEWPORTS, type Lang, type Size } from './tour.ts';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = process.env['SHOTS'] ?? '';
async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/media-health-${name}.png` });
}

let world: World;
let teacher: Page;
let teacherContext: BrowserContext;
let student: Page;
let room = '';
let teacherId = '';

/** getUserMedia fails with `window.__gumFail[kind]` (an error name) while the classroom shows; every call's video size is kept. */
async function deviceFaults(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const w = window as unknown as { __gumFail: Record<string, string>; __gumSizes: Array<{ width: unknown; height: unknown }> };
    w.__gumFail = {};
    w.__gumSizes = [];
    const md = navigator.mediaDevices;
    if (!md?.getUserMedia) return;
    const real = md.getUserMedia.bind(md);
    md.getUserMedia = (c?: MediaStreamConstraints) => {
      const video = c?.video && typeof c.video === 'object' ? c.video : null;
      if (video) w.__gumSizes.push({ width: video.width, height: video.height });
      const kind = c?.video ? 'video' : 'audio';
      const fail = w.__gumFail[kind];
      if (fail && document.querySelector('[data-testid="classroom"]')) return Promise.reject(new DOMException(fail, fail));
      return real(c);
    };
  });
}

const setFaults = (page: Page, faults: Record<string, string>) =>
  page.evaluate((f) => {
    (window as unknown as { __gumFail: Record<string, string> }).__gumFail = f;
  }, faults);

/** The camera's device goes away (Chromium ends the track and fires 'ended', as when it is unplugged). */
const unplugCamera = (page: Page) =>
  page.evaluate(() => {
    const track = window.banshuMedia?.local?.().camera;
    if (!track) throw new Error('no camera track');
    track.stop();
    track.dispatchEvent(new Event('ended'));
  });

async function me(page: Page): Promise<string> {
  const res = await page.request.post('/api/queryUserInfoByToken', { data: {} });
  return ((await res.json()) as { data: { userInfo: { userId: string } } }).data.userInfo.userId;
}

const teacherTile = (page: Page) => page.locator(`[data-testid="media-tile"][data-user="${teacherId}"]`);

beforeAll(async () => {
  world = await startWorld();
  ({ page: teacher, context: teacherContext } = await world.person());
  await deviceFaults(teacherContext);
  await signIn(teacher, world.server);
  await teacher.request.post('/api/updateUserName', { data: { userName: '王老师' } });
  teacherId = await me(teacher);
  room = await createRoom(teacher, 'freeMini');
  await teacher.getByTestId('media-controls').and(teacher.locator('[data-status="live"]')).waitFor({ timeout: 30_000 });
  student = (await world.person()).page;
  await signIn(student, world.server);
  await joinByNumber(student, room);
  await teacherTile(student).and(student.locator('[data-has-video="true"]')).waitFor({ timeout: 30_000 });
}, 180_000);
afterAll(async () => {
  await world?.close();
});

/** Layout and axe problems of the page as it is, as lines. */
async function problems(page: Page, label: string): Promise<string[]> {
  const found = [...(await layoutProblems(page, { topBarOneRow: false, tilesBeside: false })), ...(await axeProblems(page, AXE))];
  return found.map((p) => `${label}: ${p}`);
}

/** The `video_play_error` events stored for the room so far. */
async function refusals(): Promise<number> {
  const rows = await world.server.banshu.platform.database.db
    .selectFrom('client_logs')
    .select('id')
    .where('socket_type', '=', 'video_play_error')
    .where('room_number', '=', room)
    .execute();
  return rows.length;
}

/** Waits (on the server, not the page) for a refusal stored after the first `seen`; answers the newest. */
async function refusalLogged(seen: number): Promise<{ message: string }> {
  await expect.poll(refusals, { timeout: 30_000 }).toBeGreaterThan(seen);
  return world.server.banshu.platform.database.db
    .selectFrom('client_logs')
    .select('message')
    .where('socket_type', '=', 'video_play_error')
    .where('room_number', '=', room)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
}

describe('playback the browser blocks', () => {
  let observerPath = '';

  it('shows an observer the prompt, logs video_play_error, and plays sound and video after one click', async () => {
    const link = await teacher.request.post('/api/createObserverLink', { data: { roomNumber: room } });
    const url = new URL(((await link.json()) as { data: { url: string } }).data.url);
    observerPath = url.pathname + url.search;
    // Playwright's own scripts (a locator's wait, an evaluate) count as a user gesture on the page,
    // which would let the browser play: nothing touches the observer's page until the server has
    // the refusal in its event log.
    const observer = (await world.person()).page;
    await observer.goto(observerPath);
    const row = await refusalLogged(0);
    expect(JSON.parse(row.message)).toMatchObject({ element: 'audio', error: 'NotAllowedError' });
    const prompt = observer.getByTestId('playback-prompt');
    await prompt.waitFor();
    await expect(prompt.getByRole('button', { name: '点击开启声音和画面' }).count()).resolves.toBe(1);
    // Still refused (nothing played by itself): the remote sound waits.
    await expect(observer.locator('audio').evaluateAll((els) => els.some((a) => (a as HTMLAudioElement).paused))).resolves.toBe(true);
    await shot(observer, 'prompt-zh-1280');

    // Keyboard: the prompt holds the focus on its button, so Enter starts everything.
    const button = prompt.getByTestId('playback-start');
    await expect.poll(() => button.evaluate((b) => b === document.activeElement)).toBe(true);
    await observer.keyboard.press('Enter');
    await prompt.waitFor({ state: 'detached' });
    const teacherAudio = observer.locator('audio');
    await expect
      .poll(() => teacherAudio.evaluateAll((els) => els.length > 0 && els.every((a) => !(a as HTMLAudioElement).paused)))
      .toBe(true);
    const t0 = await teacherAudio.first().evaluate((a) => (a as HTMLAudioElement).currentTime);
    await expect
      .poll(() => teacherAudio.first().evaluate((a) => (a as HTMLAudioElement).currentTime), { timeout: 10_000 })
      .toBeGreaterThan(t0 + 0.5);
    const video = teacherTile(observer).locator('video');
    await expect.poll(() => video.evaluate((v) => !(v as HTMLVideoElement).paused && (v as HTMLVideoElement).currentTime > 0)).toBe(true);
    await observer.context().close();
  }, 120_000);

  it('the prompt passes the layout and axe rules at 1280x720 and 390x844 in both languages', async () => {
    const found: string[] = [];
    for (const size of ['1280', '390'] as Size[]) {
      for (const lang of ['zh', 'en'] as Lang[]) {
        // On a phone as a phone is (its user agent): the room's phone layout.
        const { context, page } = await world.person({
          ...(size === '390' ? PHONE : { viewport: VIEWPORTS[size] }),
          locale: lang === 'zh' ? 'zh-CN' : 'en-US',
        });
        await setLang(context, world.server.url, lang);
        const before = await refusals();
        await page.goto(observerPath);
        await refusalLogged(before);
        await page.getByTestId('playback-prompt').waitFor();
        await shot(page, `prompt-${lang}-${size}`);
        const withPrompt = await problems(page, `prompt ${lang} ${size}`);
        // What the room itself shows there without the prompt is not the prompt's to answer.
        await page.getByTestId('playback-start').click();
        await page.getByTestId('playback-prompt').waitFor({ state: 'detached' });
        const without = await problems(page, `prompt ${lang} ${size}`);
        found.push(...withPrompt.filter((p) => !without.includes(p)));
        await context.close();
      }
    }
    expect(found).toEqual([]);
  }, 180_000);
});

describe('the device-exception view', () => {
  const view = () => teacher.getByTestId('device-issue');

  it('mutes an unplugged camera for everyone and says so; retry brings it back', async () => {
    await unplugCamera(teacher);
    await view().locator('[data-problem="unplugged"][data-source="camera"]').waitFor();
    // Muted for everyone: the student sees the teacher's tile without video, the teacher's toggle says off.
    await teacherTile(student).and(student.locator('[data-has-video="false"]')).waitFor({ timeout: 10_000 });
    await expect(teacher.getByTestId('toggle-cam').getAttribute('aria-pressed')).resolves.toBe('true');
    await view().getByTestId('device-issue-retry').click();
    await view().waitFor({ state: 'detached' });
    await teacherTile(student).and(student.locator('[data-has-video="true"]')).waitFor({ timeout: 20_000 });
    await expect(teacher.getByTestId('toggle-cam').getAttribute('aria-pressed')).resolves.toBe('false');
  }, 60_000);

  it('says a busy camera is in use, with a retry that works once it is free; checked at both sizes and languages', async () => {
    const found: string[] = [];
    for (const lang of ['zh', 'en'] as Lang[]) {
      if (lang === 'en') {
        // The classroom in English: the cookie, and the room opened again (its pre-join passes by itself).
        await setLang(teacherContext, world.server.url, lang);
        await teacher.reload();
        await teacher.locator('html[lang="en"]').waitFor({ state: 'attached' });
        await teacher.getByTestId('media-controls').and(teacher.locator('[data-status="live"]')).waitFor({ timeout: 30_000 });
        await teacher.waitForFunction(() => !!window.banshuMedia?.local?.().camera, null, { timeout: 20_000 });
      }
      for (const size of ['1280', '390'] as Size[]) {
        await teacher.setViewportSize(VIEWPORTS[size]);
        await unplugCamera(teacher);
        await view().waitFor();
        await setFaults(teacher, { video: 'NotReadableError' });
        await view().getByTestId('device-issue-retry').click();
        await view().locator('[data-problem="occupied"][data-source="camera"]').waitFor();
        await shot(teacher, `occupied-${lang}-${size}`);
        const withView = await problems(teacher, `occupied ${lang} ${size}`);
        await setFaults(teacher, {});
        await view().getByTestId('device-issue-retry').click();
        await view().waitFor({ state: 'detached' });
        await teacherTile(student).and(student.locator('[data-has-video="true"]')).waitFor({ timeout: 30_000 });
        // What the room itself shows at that size (a desktop window made narrow) is not the view's to answer.
        const without = await problems(teacher, `occupied ${lang} ${size}`);
        found.push(...withView.filter((p) => !without.includes(p)));
      }
      await teacher.setViewportSize(VIEWPORTS['1280']);
    }
    expect(found).toEqual([]);
  }, 180_000);

  it('asks 640x480 after 640x360 is refused, and says the resolution is not supported when neither opens', async () => {
    await unplugCamera(teacher);
    await view().waitFor();
    await setFaults(teacher, { video: 'OverconstrainedError' });
    await teacher.evaluate(() => {
      (window as unknown as { __gumSizes: unknown[] }).__gumSizes = [];
    });
    await view().getByTestId('device-issue-retry').click();
    await view().locator('[data-problem="resolution"]').waitFor();
    const sizes = await teacher.evaluate(() => (window as unknown as { __gumSizes: unknown[] }).__gumSizes);
    expect(sizes).toEqual([
      { width: { ideal: 640 }, height: { ideal: 360 } },
      { width: { ideal: 640 }, height: { ideal: 480 } },
    ]);
    await shot(teacher, 'resolution-1280');
    await setFaults(teacher, {});
    await view().getByTestId('device-issue-retry').click();
    await view().waitFor({ state: 'detached' });
  }, 60_000);

  it('shows the permission steps when the camera is refused, and a retry once allowed brings it back without a reload', async () => {
    await unplugCamera(teacher);
    await view().waitFor();
    await setFaults(teacher, { video: 'NotAllowedError' });
    await view().getByTestId('device-issue-retry').click();
    await view().locator('[data-problem="denied"]').waitFor();
    await view().getByTestId('permission-help').waitFor();
    await shot(teacher, 'denied-1280');
    await teacher.evaluate(() => {
      (window as unknown as { __same: number }).__same = 42;
    });
    // Allowed now (Chromium's fake devices always read 'granted', so the permission's own change
    // event, which re-acquires by itself, is covered by media-client.test.ts): the retry opens it.
    await setFaults(teacher, {});
    await view().getByTestId('device-issue-retry').click();
    await view().waitFor({ state: 'detached' });
    await teacherTile(student).and(student.locator('[data-has-video="true"]')).waitFor({ timeout: 20_000 });
    // The same page: nothing was reloaded, the class went on.
    await expect(teacher.evaluate(() => (window as unknown as { __same?: number }).__same)).resolves.toBe(42);
  }, 60_000);
});

describe('a microphone invitation confirms sound', () => {
  it('shows the teacher the invited student’s level; a microphone that stops sending is told to both, and a retry brings the sound back', async () => {
    const host = (await world.person()).page;
    await signIn(host, world.server);
    await host.request.post('/api/updateUserName', { data: { userName: '张老师' } });
    const large = await createRoom(host, 'large');
    const alice = (await world.person()).page;
    await signIn(alice, world.server);
    await alice.request.post('/api/updateUserName', { data: { userName: 'Alice' } });
    await joinByNumber(alice, large);
    await alice.getByTestId('classroom').waitFor({ timeout: 30_000 });

    await host.getByRole('tab', { name: /^成员（\d+）$/ }).click();
    const row = host.getByTestId('member-row').filter({ hasText: 'Alice' });
    await row.getByRole('button', { name: '邀请上台' }).click();
    await alice.getByRole('dialog', { name: '上台邀请' }).getByRole('button', { name: '同意' }).click();
    await row.getByText('台上').waitFor();
    // The teacher sees sound arrive: the level of Chromium's fake microphone (a beep) moves the meter.
    const level = row.getByTestId('member-mic-level');
    await expect.poll(async () => Number(await level.getAttribute('data-level')), { timeout: 30_000 }).toBeGreaterThan(0);
    await shot(host, 'level-teacher-1280');

    // The microphone dies without a word (its track stops, no 'ended'): the node gets no packet.
    await alice.evaluate(() => window.banshuMedia?.local?.().mic?.stop());
    const notice = alice.getByTestId('silent-mic');
    await notice.waitFor({ timeout: 30_000 });
    await notice.getByText('你的麦克风没有发出声音，请检查').waitFor();
    await row.getByTestId('member-silent').waitFor({ timeout: 10_000 });
    await host.getByTestId('toast').filter({ hasText: '没有收到 Alice 的声音' }).first().waitFor();
    await shot(alice, 'silent-student-1280');
    await shot(host, 'silent-teacher-1280');

    await notice.getByTestId('silent-mic-retry').click();
    await notice.waitFor({ state: 'detached', timeout: 20_000 });
    await row.getByTestId('member-silent').waitFor({ state: 'detached', timeout: 10_000 });
    await host.context().close();
    await alice.context().close();
  }, 150_000);
});
