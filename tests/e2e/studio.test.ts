/**
 * The recording studio /rec/{id} end to end (issue 15), in Chromium with its fake camera,
 * microphone and screen: the tool menu switches the views and hides; the whiteboard's three pages;
 * a PDF opened from disk (a non-PDF and an unreadable PDF refused); the record bar start → pause →
 * continue → end with the elapsed time standing still while paused, a stop under 5 s refused and
 * the take going on; the board's ink in the recorded picture; the save screen refusing an empty and
 * a 16-character name without a call to the server, then saving to local (a download); the screen
 * share's end stopping a take; a take left unsaved offered again (keep, discard); the phone
 * message. The cloud upload itself is tests/e2e/studio-upload.test.ts: here save to cloud only has
 * to start it (the engine's finish()). Screenshots with SHOTS=dir.
 */
import { statSync, writeFileSync } from 'node:fs';
import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '#tests/support/courseware.ts';
import { expectToast, open, pathOf, signIn, startWorld, type World } from './helpers.ts';

const SHOTS = process.env['SHOTS'];
async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/studio-${name}.png` });
}

/** The recorded picture as it stands (the compositor's canvas), kept beside the screenshots. */
async function frameShot(name: string): Promise<void> {
  if (!SHOTS) return;
  const url = await page.evaluate(
    () => (window as unknown as { __banshuStudio: StudioHook }).__banshuStudio.frame()?.toDataURL('image/png') ?? '',
  );
  writeFileSync(`${SHOTS}/studio-frame-${name}.png`, Buffer.from(url.split(',')[1] ?? '', 'base64'));
}

const STUDIO = '/rec/20261126';
/** expect.poll waits 1 s by default: a browser sharing 2 cores with the server needs longer. */
const WAIT = { timeout: 15_000 };
let world: World;
let page: Page;
/** Every /api call the page made, by name. */
const calls: string[] = [];

interface StudioHook {
  take: () => { id: string; state: string; durationMs: number; bytes: number; mediaType: string } | null;
  upload: () => { phase: string; sentBytes: number; totalBytes: number } | null;
  frame: () => HTMLCanvasElement | null;
}

const stage = () => page.getByTestId('studio-stage');
const elapsedSeconds = async (): Promise<number> => {
  const text = (await page.getByTestId('studio-elapsed').textContent()) ?? '';
  const [h, m, s] = text.split(':').map(Number);
  return (h ?? 0) * 3600 + (m ?? 0) * 60 + (s ?? 0);
};

/** Red board ink in the middle band of the recorded picture (the stroke drawn across the board). */
async function inkInFrame(): Promise<number> {
  return page.evaluate(() => {
    const canvas = (window as unknown as { __banshuStudio: StudioHook }).__banshuStudio.frame();
    const ctx = canvas?.getContext('2d');
    if (!canvas || !ctx) return -1;
    const { data } = ctx.getImageData(200, 300, 700, 120);
    let red = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i]! > 180 && data[i + 1]! < 110 && data[i + 2]! < 110) red += 1;
    return red;
  });
}

async function drawStroke(): Promise<void> {
  const box = (await page.getByTestId('board-overlay').boundingBox())!;
  const y = box.y + box.height * 0.5;
  await page.mouse.move(box.x + box.width * 0.3, y);
  await page.mouse.down();
  for (let i = 1; i <= 12; i++) await page.mouse.move(box.x + box.width * (0.3 + i * 0.02), y + (i % 2) * 4);
  await page.mouse.up();
}

/** The save screen's preview has the take loaded (it plays from the disk). */
async function previewReady(): Promise<void> {
  await expect
    .poll(() => page.getByTestId('studio-save-preview').evaluate((v: HTMLVideoElement) => v.readyState), { timeout: 15_000 })
    .toBeGreaterThanOrEqual(3);
}

async function record(seconds: number): Promise<void> {
  await page.getByTestId('studio-record-start').click();
  await page.getByTestId('studio-record-pause').waitFor();
  await expect.poll(elapsedSeconds, { timeout: (seconds + 10) * 1000 }).toBeGreaterThanOrEqual(seconds);
}

beforeAll(async () => {
  world = await startWorld();
  const p = await world.person();
  page = p.page;
  p.context.setDefaultTimeout(20_000);
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith('/api/')) calls.push(u.pathname.slice(5));
  });
  // Leaving with a take in hand asks the browser first (beforeunload): the tests say yes.
  page.on('dialog', (d) => void d.accept());
  await signIn(page, world.server);
  await open(page, STUDIO);
  await stage().waitFor();
}, 120_000);

afterAll(async () => {
  await world?.close();
});

describe('the studio', () => {
  it('switches views from the tool menu, which hides, shows and answers the keyboard', async () => {
    await page.getByRole('heading', { name: '录课室' }).waitFor();
    expect(await stage().getAttribute('data-view')).toBe('video');
    // The camera opens by itself (Chromium's fake camera).
    await stage().locator('video[data-studio-source="camera"]').waitFor();

    await page.getByTestId('studio-tool-board').click();
    expect(await stage().getAttribute('data-view')).toBe('board');
    await stage().getByTestId('studio-board').waitFor();
    // The camera moved to the corner.
    await stage().locator('video.studio-pip').waitFor();
    await page.getByTestId('studio-tool-doc').click();
    expect(await stage().getAttribute('data-view')).toBe('doc');
    await stage().getByText('打开一个 PDF 文档').waitFor();
    await page.getByTestId('studio-tool-video').click();
    expect(await stage().getAttribute('data-view')).toBe('video');
    expect(await page.getByTestId('studio-tool-video').getAttribute('aria-current')).toBe('true');

    // Hide and show the menu.
    await page.getByTestId('studio-tool-toggle').click();
    await page.getByTestId('studio-tool-board').waitFor({ state: 'detached' });
    expect(await page.getByTestId('studio-tool-toggle').getAttribute('aria-expanded')).toBe('false');
    await page.getByTestId('studio-tool-toggle').click();
    await page.getByTestId('studio-tool-board').waitFor();

    // The keyboard: arrows move through the menu, Enter picks.
    await page.getByTestId('studio-tool-toggle').focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('studio-tool-board');
    await page.keyboard.press('Enter');
    expect(await stage().getAttribute('data-view')).toBe('board');

    // Microphone and camera turn off and on.
    await page.getByTestId('studio-tool-mic').click();
    expect(await page.getByTestId('studio-tool-mic').getAttribute('aria-pressed')).toBe('false');
    await page.getByTestId('studio-tool-mic').click();
    expect(await page.getByTestId('studio-tool-mic').getAttribute('aria-pressed')).toBe('true');
    await page.getByTestId('studio-tool-camera').click();
    await stage().locator('video.studio-pip').waitFor({ state: 'detached' });
    await page.getByTestId('studio-tool-camera').click();
    await stage().locator('video.studio-pip').waitFor();

    // The screen: shared, then the other view ends the sharing; settings are refused while sharing.
    await page.getByTestId('studio-tool-screen').click();
    await stage().locator('video[data-studio-source="screen"]').waitFor();
    expect(await stage().getAttribute('data-view')).toBe('screen');
    await page.getByTestId('studio-tool-settings').click();
    await expectToast(page, '正在共享屏幕，请稍后设置');
    await page.getByTestId('studio-tool-video').click();
    expect(await stage().getAttribute('data-view')).toBe('video');
    await stage().locator('video[data-studio-source="screen"]').waitFor({ state: 'detached' });

    // Settings: the camera and microphone pickers, remembered under record-device-configure.
    await page.getByTestId('studio-tool-settings').click();
    const mic = page.getByTestId('studio-settings-mic');
    await expect.poll(() => mic.locator('option').count(), WAIT).toBeGreaterThan(1);
    const chosen = await mic.locator('option').nth(1).getAttribute('value');
    await mic.selectOption(chosen ?? '');
    await page.getByTestId('studio-settings-save').click();
    await mic.waitFor({ state: 'detached' });
    const stored = await page.evaluate(() => localStorage.getItem('record-device-configure'));
    expect(JSON.parse(stored!)).toMatchObject({ audioDeviceId: chosen });
  });

  it('shows the whiteboard pages 1/3 to 3/3 and the ink is in the recorded picture', async () => {
    await page.getByTestId('studio-tool-board').click();
    const label = page.getByTestId('studio-board-page');
    await expect.poll(() => label.textContent(), WAIT).toBe('第 1/3 页');
    expect(await page.getByTestId('studio-board-prev').isDisabled()).toBe(true);
    await page.getByTestId('studio-board-next').click();
    await expect.poll(() => label.textContent(), WAIT).toBe('第 2/3 页');
    await page.getByTestId('studio-board-next').click();
    await expect.poll(() => label.textContent(), WAIT).toBe('第 3/3 页');
    expect(await page.getByTestId('studio-board-next').isDisabled()).toBe(true);
    await page.getByTestId('studio-board-prev').click();
    await page.getByTestId('studio-board-prev').click();
    await expect.poll(() => label.textContent(), WAIT).toBe('第 1/3 页');
    // The board's toolbar is there, without the server's tools (image upload, phone photo).
    await page.getByTestId('tool-brush').waitFor();
    expect(await page.getByTestId('tool-image').count()).toBe(0);
    expect(await page.getByTestId('tool-phone').count()).toBe(0);
    await drawStroke();
    // Nothing of the board went to a server.
    expect(calls.filter((c) => /board|wb/i.test(c))).toEqual([]);
  });

  it('refuses a file that is not a PDF and one pdf.js cannot read, then shows and pages a PDF', async () => {
    await page.getByTestId('studio-tool-doc').click();
    const input = page.getByTestId('studio-doc-input');
    await input.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a pdf') });
    await expectToast(page, '请上传 pdf 文件');
    await input.setInputFiles({
      name: 'broken.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from('%PDF-1.4\nthis is not a pdf at all\n'),
    });
    await expectToast(page, '解析失败');
    await input.setInputFiles({ name: 'lesson.pdf', mimeType: 'application/pdf', buffer: makePdf(3, { label: 'Lesson' }) });
    const pageLabel = page.getByTestId('studio-doc-page');
    await expect.poll(() => pageLabel.textContent(), WAIT).toBe('1 / 3');
    await page.locator('[data-testid="studio-doc"][data-drawn="1"]').waitFor();
    const size = await page.getByTestId('studio-doc-canvas').evaluate((c: HTMLCanvasElement) => [c.width, c.height]);
    expect(size[0]).toBeGreaterThan(800);
    await page.getByTestId('studio-doc-next').click();
    await expect.poll(() => pageLabel.textContent(), WAIT).toBe('2 / 3');
    await expect.poll(() => page.getByTestId('studio-doc').getAttribute('data-page'), WAIT).toBe('2');
    await page.getByTestId('studio-doc-prev').click();
    await expect.poll(() => pageLabel.textContent(), WAIT).toBe('1 / 3');
    await shot(page, 'doc-zh');
    // The document stays open when the view comes back.
    await page.getByTestId('studio-tool-board').click();
    await page.getByTestId('studio-tool-doc').click();
    await expect.poll(() => pageLabel.textContent(), WAIT).toBe('1 / 3');
  });

  it('records: start, a stop under 5 s refused, pause holds the time, continue, end opens the save screen', async () => {
    await page.getByTestId('studio-tool-board').click();
    expect(await page.getByTestId('studio-elapsed').textContent()).toBe('00:00:00');
    await page.getByTestId('studio-record-start').click();
    await page.getByTestId('studio-record-pause').waitFor();
    await page.getByTestId('studio-rec').getByText('REC', { exact: true }).waitFor();
    await expect.poll(elapsedSeconds, WAIT).toBeGreaterThanOrEqual(1);

    // Too short: refused, and the take goes on.
    await page.getByTestId('studio-record-stop').click();
    await expectToast(page, '录制时长至少 5 秒');
    expect(await page.getByTestId('studio-record-pause').isVisible()).toBe(true);
    const before = await elapsedSeconds();
    await expect.poll(elapsedSeconds, WAIT).toBeGreaterThan(before);

    // The ink drawn before and a stroke drawn now are in the recorded picture.
    await drawStroke();
    await expect.poll(inkInFrame, WAIT).toBeGreaterThan(200);
    await shot(page, 'board-recording-zh');
    await frameShot('board');

    // Paused: the time stands still.
    await page.getByTestId('studio-record-pause').click();
    await page.getByTestId('studio-record-resume').waitFor();
    const paused = await page.getByTestId('studio-elapsed').textContent();
    await page.waitForTimeout(2200);
    expect(await page.getByTestId('studio-elapsed').textContent()).toBe(paused);
    await page.getByTestId('studio-rec').getByText('已暂停').waitFor();

    await page.getByTestId('studio-record-resume').click();
    await page.getByTestId('studio-record-pause').waitFor();
    await expect.poll(elapsedSeconds, { timeout: 15_000 }).toBeGreaterThanOrEqual(6);
    await page.getByTestId('studio-record-stop').click();
    await page.getByTestId('studio-save').waitFor();
    const take = await page.evaluate(() => (window as unknown as { __banshuStudio: StudioHook }).__banshuStudio.take());
    expect(take?.state).toBe('stopped');
    expect(take?.durationMs).toBeGreaterThanOrEqual(5000);
    expect(take?.bytes).toBeGreaterThan(0);
    // The preview plays the take from the disk.
    await previewReady();
  });

  it('refuses an empty and a 16-character name, sending nothing, then saves to local as a download', async () => {
    const name = page.getByTestId('studio-save-name');
    const error = page.getByTestId('studio-save-name-error');
    await name.fill('   ');
    await page.getByTestId('studio-save-cloud').click();
    await expect.poll(() => error.textContent(), WAIT).toBe('请填写文件名');
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    await name.fill('一二三四五六七八九十一二三四五六');
    await page.getByTestId('studio-save-cloud').click();
    await expect.poll(() => error.textContent(), WAIT).toBe('文件名最多 15 个字');
    await page.getByTestId('studio-save-local').click();
    await expect.poll(() => error.textContent(), WAIT).toBe('文件名最多 15 个字');
    expect(await page.getByTestId('studio-save').getAttribute('data-save-state')).toBe('none');
    expect(calls).not.toContain('addlocalRecordFile');
    await shot(page, 'save-zh');

    await name.fill(' 第一课 ');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('studio-save-local').click()]);
    const media = (await page.evaluate(() => (window as unknown as { __banshuStudio: StudioHook }).__banshuStudio.take()))!.mediaType;
    expect(download.suggestedFilename()).toBe(media === 'video/mp4' ? '第一课.mp4' : '第一课.webm');
    const file = await download.path();
    expect(statSync(file).size).toBeGreaterThan(10_000);
    await expect.poll(() => page.getByTestId('studio-save-state').textContent(), WAIT).toBe('保存成功');
    expect(await page.getByTestId('studio-save').getAttribute('data-save-state')).toBe('3');
    expect(calls).not.toContain('addlocalRecordFile');
    await shot(page, 'saved-local-zh');

    // Saved: record again goes straight back to the studio, with no question.
    await page.getByTestId('studio-save-again').click();
    await stage().waitFor();
    expect(await page.getByTestId('studio-record-start').isEnabled()).toBe(true);
  });

  it('stops a take when the shared screen ends, and save to cloud starts the upload (in English)', async () => {
    await page.getByTestId('lang-switch').click();
    await page.getByRole('heading', { name: 'Recording studio' }).waitFor();
    await page.getByTestId('studio-tool-board').click();
    await drawStroke();
    await record(2);
    await page.getByTestId('studio-rec').getByText('REC', { exact: true }).waitFor();
    await shot(page, 'board-recording-en');

    // Shared screen mid-take; its capture ending (the browser's 'stop sharing') ends the take at once, under 5 s or not.
    await page.getByTestId('studio-tool-screen').click();
    await stage().locator('video[data-studio-source="screen"]').waitFor();
    await page.waitForTimeout(500);
    await frameShot('screen');
    await page.evaluate(() => {
      const video = document.querySelector<HTMLVideoElement>('video[data-studio-source="screen"]');
      const track = (video?.srcObject as MediaStream | null)?.getVideoTracks()[0];
      track?.stop();
      track?.dispatchEvent(new Event('ended'));
    });
    await page.getByTestId('studio-save').waitFor();
    await previewReady();
    await shot(page, 'save-en');

    // The cloud: the upload's calls are held, so the screen stays on 'uploading'.
    const held: Route[] = [];
    await page.route(/\/api\/(createUploadToken|signUploadParts|addlocalRecordFile)/, (route) => void held.push(route));
    await page.getByTestId('studio-save-name').fill('Lesson one');
    await page.getByTestId('studio-save-cloud').click();
    await page.getByTestId('studio-save-progress').waitFor();
    expect(await page.getByTestId('studio-save').getAttribute('data-save-state')).toBe('0');
    const bar = page.getByTestId('studio-save-progress');
    expect(Number(await bar.getAttribute('aria-valuenow'))).toBeGreaterThanOrEqual(0);
    // A second click cannot submit again.
    expect(await page.getByTestId('studio-save-cloud').isDisabled()).toBe(true);
    await expect.poll(() => held.length, WAIT).toBeGreaterThan(0);
    await shot(page, 'uploading-en');

    await page.getByTestId('lang-switch').click();
    await page
      .getByTestId('studio-save-state')
      .getByText(/正在上传|等待网络|正在保存/)
      .waitFor();
    await shot(page, 'uploading-zh');
    await page.unroute(/\/api\/(createUploadToken|signUploadParts|addlocalRecordFile)/);
    for (const r of held) await r.abort().catch(() => undefined);
  });

  it('offers the take left unsaved when the studio opens again: keep opens the save screen, discard removes it', async () => {
    await open(page, STUDIO);
    const keep = page.getByTestId('studio-recover-keep');
    await keep.waitFor();
    await shot(page, 'recover-zh');
    await keep.click();
    await page.getByTestId('studio-save').waitFor();
    expect(await page.getByTestId('studio-save-facts').textContent()).toMatch(/时长 00:0\d/);

    // 'Back to home' before a save asks first; cancel stays.
    await page.getByTestId('studio-save-home').click();
    await page.getByRole('dialog').getByText('视频文件将会丢失，确定退出吗？').waitFor();
    await page.getByRole('button', { name: '取消' }).click();
    expect(pathOf(page)).toBe(STUDIO);

    await open(page, STUDIO);
    await page.getByTestId('studio-recover-discard').click();
    await page.getByText('丢弃后无法恢复，确定丢弃这段录制吗？').waitFor();
    await page.getByRole('button', { name: '丢弃' }).last().click();
    await page.getByTestId('studio-recover-keep').waitFor({ state: 'detached' });
    await open(page, STUDIO);
    await stage().waitFor();
    await page.waitForTimeout(1000);
    expect(await page.getByTestId('studio-recover-keep').count()).toBe(0);
  });

  it('exits to the profile, asking first while a take is recording', async () => {
    await record(1);
    await page.getByTestId('studio-tool-exit').click();
    await page.getByRole('dialog').getByText('视频文件将会丢失，确定退出吗？').waitFor();
    await page.getByRole('button', { name: '确定' }).click();
    await page.waitForURL((u) => u.pathname.startsWith('/profile'));
    // The take was dropped: nothing is offered next time.
    await open(page, STUDIO);
    await stage().waitFor();
    await page.waitForTimeout(1000);
    expect(await page.getByTestId('studio-recover-keep').count()).toBe(0);
  });

  it('tells a phone-sized window that the studio is for a computer, with a way back', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByTestId('studio-phone').waitFor();
    await page.getByRole('heading', { name: '请在电脑上使用录课室' }).waitFor();
    await shot(page, 'phone-zh');
    await page.getByTestId('studio-phone-back').click();
    await page.waitForURL((u) => u.pathname.startsWith('/profile'));
    await page.setViewportSize({ width: 1280, height: 720 });
  });
});
