/**
 * The recordings library and the watch page end to end (issue 13), in Chromium against the built
 * server: a teacher's seeded records (rows in `records`, a real MP4 made by ffmpeg in the object
 * store) are listed 10 a page with 'load more', one plays and seeks, one is shared and watched in a
 * fresh context without a session, one is deleted after the confirm; a record that is ready while
 * the page is open appears live; another teacher's record is never shown, played or deleted.
 * Tests run in order and share the teacher.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userMessage } from '#core/platform/events.ts';
import { testMp4 } from '#tests/fixtures/courseware.ts';
import { createRoom, expectToast, newMobile, open, signIn, startWorld, type World } from './helpers.ts';

/** Set to a directory to keep screenshots of the pages (a person's check of the layout). */
const SHOTS = process.env['SHOTS'];
async function shot(page: Page, name: string, fullPage = false): Promise<void> {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/recordings-${name}.png`, fullPage });
}

const CLIP_SECONDS = 6;
let world: World;
let dir = '';
let mp4: Uint8Array;
let teacher: { page: Page; mobile: string; userId: string };

async function userIdOf(mobile: string): Promise<string> {
  const row = await world.server.banshu.platform.database.db
    .selectFrom('users')
    .select('id')
    .where('mobile', '=', mobile)
    .executeTakeFirstOrThrow();
  return String(row.id);
}

/**
 * A `records` row as the contract lays it out (core/platform/db/migrations/0008-recording.ts);
 * type 2 a class recording (the default), 1 a studio one (docs/product/decisions.md). With
 * `withFile` the real MP4 goes to the store under the contract's key.
 */
async function seedRecord(o: {
  userId: string;
  name: string;
  at: number;
  type?: 1 | 2;
  size?: number | null;
  withFile?: boolean;
}): Promise<string> {
  const db = world.server.banshu.platform.database.db;
  const size = o.withFile ? mp4.byteLength : o.size === undefined ? 1234 : o.size;
  const inserted = await db
    .insertInto('records')
    .values({
      user_id: o.userId,
      type: o.type ?? 2,
      room_number: '123456',
      file_name: o.name,
      file_size: size,
      duration_ms: size === null ? null : CLIP_SECONDS * 1000,
      created_at: new Date(o.at),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const fileId = String(inserted.id);
  if (o.withFile) {
    const key = `records/${o.userId}/seed/${fileId}.mp4`;
    await world.server.banshu.platform.objects.put(key, mp4, 'video/mp4');
    await db.updateTable('records').set({ object_key: key }).where('id', '=', fileId).execute();
  }
  return fileId;
}

/** The record button's name: its screen-reader words (it has no aria-label, so the name holds what it shows). */
function recordButtonName(button: Locator): Promise<string | null> {
  return button.evaluate((el) => el.querySelector('.visually-hidden')?.textContent ?? null);
}

function rows(page: Page) {
  return page.getByTestId('record-row');
}

/** The video element of a dialog or page has its metadata, and seeking to `to` lands there. */
async function playsAndSeeks(page: Page, testId: string, to: number): Promise<{ duration: number; at: number }> {
  await page.waitForFunction((id) => {
    const v = document.querySelector<HTMLVideoElement>(`[data-testid="${id}"]`);
    return v !== null && v.readyState >= 1 && v.duration > 0;
  }, testId);
  return page.evaluate(
    ({ id, to }) =>
      new Promise<{ duration: number; at: number }>((resolve) => {
        const v = document.querySelector<HTMLVideoElement>(`[data-testid="${id}"]`)!;
        v.addEventListener('seeked', () => resolve({ duration: v.duration, at: v.currentTime }), { once: true });
        v.currentTime = to;
      }),
    { id: testId, to },
  );
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'banshu-rec-e2e-'));
  const [w, file] = await Promise.all([startWorld(), testMp4(path.join(dir, 'clip.mp4'), CLIP_SECONDS)]);
  world = w;
  mp4 = new Uint8Array(await readFile(file));
  const { page } = await world.person();
  const mobile = await signIn(page, world.server, newMobile());
  teacher = { page, mobile, userId: await userIdOf(mobile) };
}, 120_000);

afterAll(async () => {
  await world?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('recordings library', () => {
  const base = Date.now() - 86_400_000;
  const ids: Record<string, string> = {};
  let otherId = '';

  beforeAll(async () => {
    // 12 class recordings (the newest has a real MP4, the oldest is still transcoding), 1 studio
    // recording, and another teacher's class recording.
    ids['playable'] = await seedRecord({ userId: teacher.userId, name: '第十二课 勾股定理', at: base + 12 * 60_000, withFile: true });
    for (let i = 11; i >= 2; i--) {
      ids[`r${i}`] = await seedRecord({
        userId: teacher.userId,
        name: `第${i}课`,
        at: base + i * 60_000,
        size: i * 1024 * 1024 + 300 * 1024,
      });
    }
    ids['transcoding'] = await seedRecord({ userId: teacher.userId, name: '第1课', at: base + 60_000, size: null });
    ids['studio'] = await seedRecord({ userId: teacher.userId, name: '录课室 示范', at: base, type: 1, size: 2048 });
    const { page: otherPage } = await world.person();
    const otherMobile = await signIn(otherPage, world.server, newMobile());
    otherId = await seedRecord({ userId: await userIdOf(otherMobile), name: '别人的录像', at: base + 30 * 60_000, withFile: true });
  });

  it('is in the side menu and lists 10 class recordings of 12, newest first, with sizes and a transcoding row after load more', async () => {
    const { page } = teacher;
    await open(page, '/profile/room');
    await page.locator('.profile__nav').getByRole('link', { name: '我的录制' }).click();
    await page.waitForURL((u) => u.pathname === '/profile/record');
    await expect.poll(() => rows(page).count()).toBe(10);
    await expect.poll(() => page.getByTestId('records-total').innerText()).toContain('12');
    const first = rows(page).first();
    expect(await first.getAttribute('data-file-id')).toBe(ids['playable']);
    await expect.poll(() => first.innerText()).toContain('第十二课 勾股定理');
    // 11 MB + 300 KB in 1024 steps.
    expect(await rows(page).nth(1).innerText()).toContain('11.3 MB');
    expect(await page.getByText('别人的录像').count()).toBe(0);
    await shot(page, 'library-1280');

    await page.getByTestId('records-more').click();
    await expect.poll(() => rows(page).count()).toBe(12);
    await expect.poll(() => page.getByTestId('records-more').count()).toBe(0);
    const last = rows(page).last();
    expect(await last.getAttribute('data-file-id')).toBe(ids['transcoding']);
    expect(await last.getByTestId('record-transcoding').innerText()).toContain('转码中');
    expect(await last.getByTestId('record-play').isDisabled()).toBe(true);
    expect(await page.getByText('别人的录像').count()).toBe(0);
  });

  it('switches to the studio tab with the keyboard', async () => {
    const { page } = teacher;
    await page.getByTestId('records-tab-class').focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForURL((u) => u.searchParams.get('type') === 'studio');
    await expect.poll(() => rows(page).count()).toBe(1);
    expect(await rows(page).first().innerText()).toContain('录课室 示范');
    expect(await rows(page).first().innerText()).toContain('2.0 KB');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => rows(page).count()).toBe(10);
  });

  it('plays a recording in a popup: the video gets its metadata and seeking works', async () => {
    const { page } = teacher;
    await rows(page).first().getByTestId('record-play').click();
    const dialog = page.getByRole('dialog', { name: '第十二课 勾股定理' });
    await dialog.waitFor();
    const played = await playsAndSeeks(page, 'record-video', 4);
    expect(played.duration).toBeGreaterThan(CLIP_SECONDS - 0.5);
    expect(played.duration).toBeLessThan(CLIP_SECONDS + 0.5);
    expect(Math.abs(played.at - 4)).toBeLessThan(0.6);
    await shot(page, 'player-1280');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('shares a link that plays on the watch page without a session; a forged link says so', async () => {
    const { page } = teacher;
    await rows(page).first().getByTestId('record-share').click();
    const url = await page.getByTestId('record-share-url').inputValue();
    expect(url).toMatch(/\/watch\/[^/]+$/);
    expect(await page.getByTestId('record-share-expiry').innerText()).toMatch(/\d{4}/);
    await page.getByTestId('record-share-copy').click();
    await expectToast(page, /复制成功|复制错误/);
    await shot(page, 'share-1280');
    await page.keyboard.press('Escape');

    const visitor = (await world.person()).page;
    await open(visitor, new URL(url).pathname);
    await expect.poll(() => visitor.getByTestId('watch-name').innerText()).toBe('第十二课 勾股定理');
    const watched = await playsAndSeeks(visitor, 'watch-video', 2);
    expect(watched.duration).toBeGreaterThan(CLIP_SECONDS - 0.5);
    expect(Math.abs(watched.at - 2)).toBeLessThan(0.6);
    expect(await visitor.getByTestId('watch-size').innerText()).toMatch(/KB|MB/);
    await shot(visitor, 'watch-1280');

    await open(visitor, `${new URL(url).pathname.slice(0, -3)}xyz`);
    await visitor.getByTestId('watch-invalid').waitFor();
    expect(await visitor.getByTestId('watch-invalid').innerText()).toContain('链接无效或已过期');
    await open(visitor, '/watch/not-a-token');
    await visitor.getByTestId('watch-invalid').waitFor();
    expect(await visitor.getByTestId('watch-video').count()).toBe(0);
    await visitor.getByRole('link', { name: '返回首页' }).waitFor();
  });

  it('downloads a recording as a file with its name', async () => {
    const { page } = teacher;
    const [download] = await Promise.all([page.waitForEvent('download'), rows(page).first().getByTestId('record-download').click()]);
    // Seeded with a name typed without an extension: the file is saved as an .mp4 all the same.
    expect(download.suggestedFilename()).toBe('第十二课 勾股定理.mp4');
    const file = await download.path();
    expect((await readFile(file)).byteLength).toBe(mp4.byteLength);
  });

  it('another teacher’s record cannot be played, shared or deleted by id', async () => {
    const { page } = teacher;
    for (const call of ['getRecordFileUrl', 'createRecordShareLink', 'delRecord']) {
      const res = await page.request.post(`/api/${call}`, { data: { fileId: otherId } });
      const body = (await res.json()) as { code: string };
      expect(body.code, call).not.toBe('0');
    }
    const left = await world.server.banshu.platform.database.db
      .selectFrom('records')
      .select('id')
      .where('id', '=', otherId)
      .where('deleted_at', 'is', null)
      .execute();
    expect(left).toHaveLength(1);
  });

  it('deletes a record after the confirm; the row goes and stays gone', async () => {
    const { page } = teacher;
    const row = page.locator(`[data-testid="record-row"][data-file-id="${ids['r11']!}"]`);
    await row.getByTestId('record-delete').click();
    const confirm = page.getByRole('dialog', { name: '确定删除该录像吗？' });
    await confirm.waitFor();
    await shot(page, 'delete-1280');
    // Cancel first: nothing changes.
    await confirm.getByRole('button', { name: '取消' }).click();
    expect(await row.count()).toBe(1);
    await row.getByTestId('record-delete').click();
    await confirm.getByRole('button', { name: '删除' }).click();
    await row.waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('records-total').innerText()).toContain('11');
    await open(page, '/profile/record');
    await expect.poll(() => rows(page).count()).toBe(10);
    expect(await row.count()).toBe(0);
  });

  it("says 'exception, refresh and retry' when a listed record is gone before it is played", async () => {
    const { page } = teacher;
    const row = page.locator(`[data-testid="record-row"][data-file-id="${ids['r10']!}"]`);
    await row.waitFor();
    // Deleted elsewhere (another tab) while this page still shows it.
    const res = await page.request.post('/api/delRecord', { data: { fileId: ids['r10'] } });
    expect(((await res.json()) as { code: string }).code).toBe('0');
    await row.getByTestId('record-play').click();
    await expectToast(page, '异常，请刷新重试');
  });

  it('a recording that is ready while the library is open appears at once (user channel roomRecord)', async () => {
    const { page } = teacher;
    await open(page, '/profile/record');
    await expect.poll(() => rows(page).count()).toBe(10);
    const fileId = await seedRecord({ userId: teacher.userId, name: '刚下课的录像', at: Date.now(), size: 4096 });
    world.server.banshu.platform.events.publish(userMessage(teacher.userId, 'roomRecord', { code: '0', taskId: '1', fileId }));
    await expect.poll(() => rows(page).first().getAttribute('data-file-id')).toBe(fileId);
    // The pages already loaded stay (10 + the new one).
    expect(await rows(page).count()).toBe(11);
  });

  it('fits a phone: cards, every action reachable', async () => {
    const { context, page } = await world.person({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    // The teacher's own session on a phone (a second code for the same number would be rate limited).
    await context.addCookies(await teacher.page.context().cookies());
    await open(page, '/profile/record');
    await expect.poll(() => rows(page).count()).toBe(10);
    const box = (await rows(page).first().boundingBox())!;
    expect(box.width).toBeLessThanOrEqual(390);
    // No sideways scrolling.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await rows(page).first().getByTestId('record-delete').isVisible()).toBe(true);
    await shot(page, 'library-390', true);
    await page.locator(`[data-testid="record-row"][data-file-id="${ids['playable']!}"]`).getByTestId('record-play').click();
    await playsAndSeeks(page, 'record-video', 1);
    await shot(page, 'player-390');
  });
});

describe('record button in the classroom', () => {
  it("the creator starts recording: 'starting…' disabled while no recorder has taken it; students see no REC yet", async () => {
    const { page, userId } = teacher;
    // Recording follows the package (ADR by the server): a member may record.
    await world.server.banshu.platform.services.billingRepo.grant(userId, { vip_room_time: new Date(Date.now() + 86_400_000) });
    const roomNumber = await createRoom(page, 'freeMini');
    const button = page.getByTestId('record-button');
    await expect.poll(() => button.getAttribute('data-record-state')).toBe('0');
    expect(await recordButtonName(button)).toBe('开始录制');
    // The creator's bar stays one line at 1280 px with the record button in it.
    expect((await page.getByTestId('top-bar').boundingBox())!.height).toBeLessThan(70);
    await shot(page, 'classroom-idle-1280');
    const student = (await world.person()).page;
    await signIn(student, world.server, newMobile());
    await open(student, `/${roomNumber}`);
    await student.getByTestId('member-bar').waitFor();

    await button.click();
    await expect.poll(() => button.getAttribute('data-record-state')).toBe('2');
    expect(await button.isDisabled()).toBe(true);
    expect(await recordButtonName(button)).toBe('正在启动录制…');
    expect((await page.getByTestId('top-bar').boundingBox())!.height).toBeLessThan(70);
    expect(await student.getByTestId('rec-dot').count()).toBe(0);
    await shot(page, 'classroom-starting-1280');

    // A recorder takes the task and its media flows (the task store's own calls, as the recorder makes them).
    const owner = 'e2e-recorder';
    const claimed = await recordTasks().claim(owner);
    expect(claimed, 'the starting task is claimable').not.toBeNull();
    await recordTasks().started(claimed!.taskId, owner);
    await expect.poll(() => button.getAttribute('data-record-state')).toBe('1');
    expect(await recordButtonName(button)).toMatch(/^结束录制 · 已录制 \d\d:\d\d$/);
    const t0 = await page.getByTestId('record-elapsed').innerText();
    await expect.poll(() => page.getByTestId('record-elapsed').innerText(), { timeout: 4000 }).not.toBe(t0);
    // Everyone in the room sees that the class is recorded.
    await student.getByTestId('rec-dot').waitFor();
    expect(await student.getByTestId('rec-dot').innerText()).toContain('REC');
    expect((await page.getByTestId('top-bar').boundingBox())!.height).toBeLessThan(70);
    await shot(page, 'classroom-recording-1280');
    await shot(student, 'classroom-student-rec-1280');
    // In English (the English bar is two lines at 1280 px with or without this button: its words are longer).
    await page.getByTestId('lang-switch').click();
    await expect.poll(() => recordButtonName(button)).toMatch(/^Stop recording · Recording \d\d:\d\d$/);
    await shot(page, 'classroom-recording-en-1280');
    await page.getByTestId('lang-switch').click();
    await expect.poll(() => recordButtonName(button)).toMatch(/^结束录制/);

    // A reload counts from when the recording really began (getRoomMemberRecordState's startedAt),
    // not from the reload: the task is made to have begun 2 minutes ago (server time, the test's clock,
    // which stands still here: a second more so the page's rounding down still reads 02:00).
    await world.server.banshu.platform.database.db
      .updateTable('record_tasks')
      .set({ started_at: new Date(world.server.clock.now().getTime() - 121_000) })
      .where('id', '=', claimed!.taskId)
      .execute();
    await page.reload();
    await expect.poll(() => button.getAttribute('data-record-state')).toBe('1');
    await expect.poll(() => page.getByTestId('record-elapsed').innerText()).toMatch(/^0[2-3]:\d\d$/);
    await shot(page, 'classroom-reloaded-1280');

    // Stop asks first; cancel keeps recording.
    await button.click();
    const confirm = page.getByRole('dialog', { name: '结束录制？' });
    await confirm.getByRole('button', { name: '取消' }).click();
    expect(await button.getAttribute('data-record-state')).toBe('1');
    await button.click();
    await confirm.getByRole('button', { name: '结束录制' }).click();
    await expect.poll(() => button.getAttribute('data-record-state')).toBe('0');
    await student.getByTestId('rec-dot').waitFor({ state: 'detached' });
  });

  it("a start that no recorder can make goes back to 'start' with 'recording failed to start, please retry'", async () => {
    const { page } = teacher;
    const button = page.getByTestId('record-button');
    await expect.poll(() => button.getAttribute('data-record-state')).toBe('0');
    await button.click();
    await expect.poll(() => button.getAttribute('data-record-state')).toBe('2');
    const owner = 'e2e-recorder-2';
    const claimed = await recordTasks().claim(owner);
    await recordTasks().fail(claimed!.taskId, owner, 'encoder would not start');
    await expectToast(page, '录制启动失败，请重试');
    await expect.poll(() => button.getAttribute('data-record-state')).toBe('0');
  });

  it('a start no recorder takes (each at its measured capacity, ADR 105; here there is none) fails within 15 s of the click', async () => {
    const { page } = teacher;
    const button = page.getByTestId('record-button');
    const failedToast = page.getByTestId('toast').filter({ hasText: '录制启动失败，请重试' });
    // The previous test's toast has gone, so the one awaited below is this start's.
    await expect.poll(() => failedToast.count(), { timeout: 10_000 }).toBe(0);
    await expect.poll(() => button.getAttribute('data-record-state')).toBe('0');
    const clicked = Date.now();
    await button.click();
    await expect.poll(() => button.getAttribute('data-record-state')).toBe('2');
    // Nobody claims it: the start timeout (12 s) fails it, and the teacher is told.
    await failedToast.first().waitFor({ state: 'visible', timeout: 15_000 });
    expect(Date.now() - clicked).toBeLessThan(15_000);
    await expect.poll(() => button.getAttribute('data-record-state')).toBe('0');
  });
});

/**
 * The recorders' task store (core/recording/record-tasks.ts), driven here as a recorder would: the
 * test server runs no recorder (RECORDER_SLOTS 0), so nobody else claims these tasks.
 */
function recordTasks() {
  return world.server.banshu.platform.services.recordTasks;
}
