/**
 * Courseware end to end, in two Chromium contexts (teacher and student) in a free mini class, once
 * on the disk store and once on S3 (s3rver, tests/support/s3.ts): the teacher uploads a pptx made
 * by LibreOffice -> hash, upload and conversion progress -> the pages appear for both -> the
 * student follows page turns within 1 s (measured in the pages) -> a stroke stays on its slide ->
 * close, then an mp4: play and pause follow -> the library lists the documents, follows a new
 * upload's status live, and deletes.
 * Tests in a block run in order and share the room.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { presentationFodp, simplePdf, sofficeConvert, testMp4, writeFixture } from '#tests/fixtures/courseware.ts';
import { startS3, type TestS3 } from '#tests/support/s3.ts';
import { createRoom, open, signIn, startWorld, type World } from './helpers.ts';

const SLIDES = 3;
/** Set to a directory to keep screenshots of the views (a person's check of the layout). */
const SHOTS = process.env['SHOTS'];

async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/courseware-${name}.png` });
}
let dir = '';
const files = { pptx: '', mp4: '', pdf: '', tall: '' };

type HookWindow = Window & {
  __banshuBoard?: {
    store: { snapshot(page: string): { items: Array<{ data: unknown }>; pending: number } };
    page(): string;
    renderer(): { scale: number; toCss(p: { x: number; y: number }): { x: number; y: number } } | null;
  };
  __phases?: string[];
  __shownAt?: Promise<number>;
  __pressedAt?: Promise<number>;
};

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'banshu-cw-e2e-'));
  const fodp = await writeFixture(dir, 'deck.fodp', presentationFodp(SLIDES));
  const [pptx, mp4] = await Promise.all([
    sofficeConvert(fodp, 'pptx', dir, '中文课件.pptx', path.join(dir, 'profile')),
    testMp4(path.join(dir, 'clip.mp4'), 12),
  ]);
  files.pptx = pptx;
  files.mp4 = mp4;
  files.pdf = await writeFixture(dir, 'handout.pdf', simplePdf(2));
  // A4 portrait: the page scrolls under the board instead of shrinking.
  files.tall = await writeFixture(dir, 'tall.pdf', simplePdf(1, '0 0 595 842'));
}, 180_000);
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * When the teacher's next press (pointer or key) reaches the page: the start of a page turn as the
 * teacher makes it, without the test driver's own time to find and press the button.
 */
async function armPress(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as HookWindow;
    w.__pressedAt = new Promise<number>((resolve) => {
      const at = () => {
        resolve(performance.timeOrigin + performance.now());
        document.removeEventListener('pointerdown', at, true);
        document.removeEventListener('keydown', at, true);
      };
      document.addEventListener('pointerdown', at, true);
      document.addEventListener('keydown', at, true);
    });
  });
}

/** Records every upload phase the teacher's page shows (data-phase of the steps). */
async function recordPhases(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as HookWindow;
    w.__phases = [];
    const seen = () => {
      for (const el of document.querySelectorAll('[data-testid="courseware-uploading"]')) {
        const p = el.getAttribute('data-phase') ?? '';
        if (w.__phases!.at(-1) !== p) w.__phases!.push(p);
      }
      if (document.querySelector('[data-testid="cw-convert-progress"]') && w.__phases!.at(-1) !== 'convert-bar')
        w.__phases!.push('convert-bar');
    };
    new MutationObserver(seen).observe(document.body, { subtree: true, childList: true, attributes: true });
  });
}

/** Resolves in the page with the wall-clock time at which slide `page` is shown with its image. */
async function watchSlide(page: Page, slide: number): Promise<void> {
  await page.evaluate((want) => {
    const w = window as HookWindow;
    w.__shownAt = new Promise<number>((resolve) => {
      const sel = `[data-testid="courseware-loaded"][data-page="${want}"][data-slide-ready="1"]`;
      const check = () => {
        if (!document.querySelector(sel)) return false;
        resolve(performance.timeOrigin + performance.now());
        return true;
      };
      if (check()) return;
      const observer = new MutationObserver(() => {
        if (check()) observer.disconnect();
      });
      observer.observe(document.body, { subtree: true, childList: true, attributes: true });
    });
  }, slide);
}

async function slideShown(page: Page, slide: number): Promise<void> {
  await page.locator(`[data-testid="courseware-loaded"][data-page="${slide}"][data-slide-ready="1"]`).waitFor();
}

/** Items on a board layer as the page's board store holds them (once nothing is pending). */
async function layerItems(page: Page, layer: string): Promise<number> {
  await page.waitForFunction(
    () => (window as HookWindow).__banshuBoard?.store.snapshot((window as HookWindow).__banshuBoard!.page()).pending === 0,
  );
  return page.evaluate((l) => (window as HookWindow).__banshuBoard!.store.snapshot(l).items.length, layer);
}

async function videoState(page: Page): Promise<{ paused: boolean; time: number }> {
  return page.getByTestId('cw-video').evaluate((v: HTMLVideoElement) => ({ paused: v.paused, time: v.currentTime }));
}

for (const store of ['disk', 's3'] as const) {
  describe(`courseware on the ${store} store`, () => {
    let world: World;
    let s3: TestS3 | null = null;
    let teacher: Page;
    let student: Page;
    let room = '';
    let documentId = '';

    beforeAll(async () => {
      s3 = store === 's3' ? await startS3() : null;
      world = await startWorld({ env: s3 ? s3.env : {}, jobs: true });
      teacher = (await world.person()).page;
      student = (await world.person()).page;
      await Promise.all([signIn(teacher, world.server), signIn(student, world.server)]);
      room = await createRoom(teacher, 'freeMini');
      await teacher.getByTestId('top-bar').waitFor();
      await open(student, `/${room}`);
      await student.getByTestId('classroom').waitFor();
    });
    afterAll(async () => {
      await world?.close();
      await s3?.close();
    });

    it('shows the upload area to the teacher and "please wait" to the student', async () => {
      await teacher.getByTestId('view-ppt').click();
      await teacher.locator('[data-testid="courseware"][data-view="default"]').waitFor();
      await teacher.getByTestId('courseware-upload').waitFor();
      await student.locator('[data-testid="view-area"][data-view="ppt"]').waitFor();
      await student.getByTestId('courseware-holdon').waitFor();
      expect(await student.getByTestId('courseware-holdon').innerText()).toContain('课件准备中，请稍候');
      expect(await student.getByTestId('courseware-upload').count()).toBe(0);
      await shot(teacher, 'default');
      await shot(student, 'holdon');
    });

    it('refuses a file that is not courseware, in the browser', async () => {
      await teacher
        .getByTestId('courseware-file')
        .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
      await teacher.getByTestId('toast').filter({ hasText: '只能插入PPT、DOC、PDF格式' }).waitFor();
      expect(await teacher.getByTestId('courseware-uploading').count()).toBe(0);
    });

    it('uploads a pptx with progress, and its pages appear for both', async () => {
      await recordPhases(teacher);
      await teacher.getByTestId('courseware-file').setInputFiles(files.pptx);
      await Promise.all(
        [teacher, student].map((p) => p.locator(`[data-testid="courseware-loaded"][data-total="${SLIDES}"]`).waitFor({ timeout: 90_000 })),
      );
      await Promise.all([slideShown(teacher, 1), slideShown(student, 1)]);
      await shot(teacher, 'loaded-teacher');
      await shot(student, 'loaded-student');
      if (SHOTS) {
        await student.setViewportSize({ width: 390, height: 844 });
        await slideShown(student, 1);
        await shot(student, 'loaded-phone');
        await student.setViewportSize({ width: 1280, height: 720 });
      }
      const phases = await teacher.evaluate(() => (window as HookWindow).__phases!);
      // Hash, upload and conversion each showed their progress, in that order.
      expect(phases).toContain('hashing');
      expect(phases).toContain('uploading');
      expect(phases.indexOf('hashing')).toBeLessThan(phases.indexOf('uploading'));
      expect(phases).toContain('convert-bar');
      expect(await teacher.getByTestId('cw-counter').innerText()).toBe(`1/${SLIDES}`);
      expect(await teacher.getByTestId('cw-prev').isDisabled()).toBe(true);
      // The student watches: no paging buttons, no close.
      expect(await student.getByTestId('cw-next').count()).toBe(0);
      expect(await student.getByTestId('cw-close').count()).toBe(0);
      const layer = await teacher.evaluate(() => (window as HookWindow).__banshuBoard!.page());
      expect(layer).toMatch(/^doc:[A-Za-z0-9_-]+:1$/);
      documentId = layer.split(':')[1]!;
      // The slide image came from the store this run uses.
      const src = (await student.getByTestId('courseware-loaded').getAttribute('data-slide-src'))!;
      if (store === 's3') expect(src.startsWith(s3!.endpoint)).toBe(true);
      else expect(new URL(src).origin).toBe(new URL(world.server.url).origin);
    });

    it('brings page turns to the student within 1 s, bounded 1..total', async () => {
      // Three turns: the middle one within 1 s, none over 2 s (two browsers and the server share
      // 2 cores here, and one turn in a run may catch the machine busy).
      const turns: number[] = [];
      for (const target of [2, 3]) {
        await watchSlide(student, target);
        await armPress(teacher);
        await teacher.getByTestId('cw-next').click();
        // The teacher sees the page at once, before the 500 ms save.
        expect(await teacher.getByTestId('cw-counter').innerText()).toBe(`${target}/${SLIDES}`);
        const clickedAt = await teacher.evaluate(() => (window as HookWindow).__pressedAt!);
        const seenAt = await student.evaluate(() => (window as HookWindow).__shownAt!);
        turns.push(seenAt - clickedAt);
      }
      expect(await teacher.getByTestId('cw-next').isDisabled()).toBe(true);
      await watchSlide(student, 2);
      await armPress(teacher);
      await teacher.keyboard.press('PageUp');
      const clickedAt = await teacher.evaluate(() => (window as HookWindow).__pressedAt!);
      const seenAt = await student.evaluate(() => (window as HookWindow).__shownAt!);
      turns.push(seenAt - clickedAt);
      expect(await student.getByTestId('cw-counter').innerText()).toBe(`2/${SLIDES}`);
      console.info(`page turns, press to the student's picture (ms): ${turns.map((t) => t.toFixed(0)).join(', ')}`);
      expect([...turns].sort((a, b) => a - b)[1]).toBeLessThan(1000);
      for (const t of turns) expect(t).toBeLessThan(2000);
    });

    it('keeps a stroke on the slide it was drawn on', async () => {
      await slideShown(teacher, 2);
      await teacher.getByTestId('tool-brush').click();
      const box = (await teacher.getByTestId('board-overlay').boundingBox())!;
      await teacher.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.4);
      await teacher.mouse.down();
      for (let i = 1; i <= 8; i++)
        await teacher.mouse.move(box.x + box.width * (0.3 + i * 0.03), box.y + box.height * (0.4 + (i % 2) * 0.04));
      await teacher.mouse.up();
      const two = `doc:${documentId}:2`;
      await student.waitForFunction((l) => (window as HookWindow).__banshuBoard?.store.snapshot(l).items.length === 1, two);
      expect(await layerItems(teacher, two)).toBe(1);
      // Slide 3 has its own, empty layer, for both.
      await teacher.getByTestId('cw-next').click();
      await Promise.all([slideShown(teacher, 3), slideShown(student, 3)]);
      await student.waitForFunction((l) => (window as HookWindow).__banshuBoard?.page() === l, `doc:${documentId}:3`);
      expect(await layerItems(student, `doc:${documentId}:3`)).toBe(0);
      expect(await layerItems(teacher, `doc:${documentId}:3`)).toBe(0);
      // Back on slide 2 the stroke is there again, and only there.
      await teacher.getByTestId('cw-prev').click();
      await slideShown(student, 2);
      await student.waitForFunction((l) => (window as HookWindow).__banshuBoard?.page() === l, two);
      expect(await layerItems(student, two)).toBe(1);
    });

    it('lets a student who arrives late see the current page', async () => {
      await student.reload();
      await student.locator('html[data-hydrated="true"]').waitFor({ state: 'attached' });
      await slideShown(student, 2);
      expect(await student.getByTestId('cw-counter').innerText()).toBe(`2/${SLIDES}`);
    });

    it('closes the courseware after a confirm, then plays a video that the student follows', async () => {
      await teacher.getByTestId('cw-close').click();
      await teacher.getByRole('dialog').getByRole('button', { name: '确定' }).click();
      await teacher.locator('[data-testid="courseware"][data-view="default"]').waitFor();
      await student.getByTestId('courseware-holdon').waitFor();

      await teacher.getByTestId('courseware-file').setInputFiles(files.mp4);
      await Promise.all([teacher, student].map((p) => p.getByTestId('courseware-video').waitFor({ timeout: 90_000 })));
      await teacher
        .getByTestId('cw-video')
        .evaluate(
          (v: HTMLVideoElement) =>
            new Promise((r) => (v.readyState >= 2 ? r(null) : v.addEventListener('canplay', () => r(null), { once: true }))),
        );
      await teacher.getByTestId('cw-video').evaluate(async (v: HTMLVideoElement) => {
        v.muted = true;
        v.currentTime = 2;
        await v.play();
      });
      // Where the browser refuses to start a video by itself, the student clicks 'click to play'.
      const playing = student.locator('[data-testid="cw-video"]');
      await student.waitForFunction(
        () => {
          const v = document.querySelector<HTMLVideoElement>('[data-testid="cw-video"]')!;
          return !v.paused || !!document.querySelector('[data-testid="cw-click-to-play"]');
        },
        undefined,
        { timeout: 5000 },
      );
      if (await student.getByTestId('cw-click-to-play').isVisible()) await student.getByTestId('cw-click-to-play').click();
      await student.waitForFunction(() => !document.querySelector<HTMLVideoElement>('[data-testid="cw-video"]')!.paused, undefined, {
        timeout: 3000,
      });
      expect(await playing.count()).toBe(1);
      const [t1, s1] = await Promise.all([videoState(teacher), videoState(student)]);
      expect(Math.abs(t1.time - s1.time)).toBeLessThan(1.5);

      await teacher.getByTestId('cw-video').evaluate((v: HTMLVideoElement) => v.pause());
      await student.waitForFunction(() => document.querySelector<HTMLVideoElement>('[data-testid="cw-video"]')!.paused, undefined, {
        timeout: 2000,
      });
      const [t2, s2] = await Promise.all([videoState(teacher), videoState(student)]);
      expect(t2.paused).toBe(true);
      expect(Math.abs(t2.time - s2.time)).toBeLessThan(1);
    });

    it('opens a document from the recent list for both', async () => {
      await teacher.getByTestId('cw-close').click();
      await teacher.getByRole('dialog').getByRole('button', { name: '确定' }).click();
      await teacher.locator('[data-testid="courseware"][data-view="default"]').waitFor();
      await teacher.getByTestId('cw-recent').click();
      const picker = teacher.getByRole('dialog', { name: '最近的课件' });
      await picker.getByTestId('cw-recent-item').first().waitFor();
      await shot(teacher, 'recent');
      expect(await picker.getByTestId('cw-recent-item').count()).toBe(2);
      await picker.getByTestId('cw-recent-item').filter({ hasText: '中文课件.pptx' }).click();
      await picker.getByTestId('cw-recent-open').click();
      await Promise.all([slideShown(teacher, 1), slideShown(student, 1)]);
      expect(await student.getByTestId('courseware-loaded').getAttribute('data-total')).toBe(String(SLIDES));
    });

    it('scrolls a portrait page in steps of 0.1, and the student follows', async () => {
      await teacher.getByTestId('cw-close').click();
      await teacher.getByRole('dialog').getByRole('button', { name: '确定' }).click();
      await teacher.getByTestId('courseware-file').setInputFiles(files.tall);
      await Promise.all([slideShown(teacher, 1), slideShown(student, 1)]);
      await teacher.getByTestId('cw-scroll-down').waitFor();
      expect(await teacher.getByTestId('cw-scroll-up').isDisabled()).toBe(true);
      expect(await student.getByTestId('cw-scroll-down').isDisabled()).toBe(true);
      await shot(student, 'portrait');
      await teacher.getByTestId('cw-scroll-down').click();
      await teacher.getByTestId('cw-scroll-down').click();
      expect(await teacher.getByTestId('courseware-loaded').getAttribute('data-scroll')).toBe('0.2');
      await student.locator('[data-testid="courseware-loaded"][data-scroll="0.2"]').waitFor({ timeout: 1500 });
      await teacher.getByTestId('cw-scroll-up').click();
      await student.locator('[data-testid="courseware-loaded"][data-scroll="0.1"]').waitFor({ timeout: 1500 });

      // Ink belongs to the page, not the window: a stroke across the middle of the window at
      // scroll 0.1 lies 0.1 board heights (76.8 units) further down the page than at scroll 0.
      const layer = await student.evaluate(() => (window as HookWindow).__banshuBoard!.page());
      expect(layer).toMatch(/^doc:\d+:1$/);
      const before = await student.evaluate((l) => (window as HookWindow).__banshuBoard!.store.snapshot(l).items.length, layer);
      await teacher.getByTestId('tool-brush').click();
      const box = (await teacher.getByTestId('board-overlay').boundingBox())!;
      await teacher.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
      await teacher.mouse.down();
      for (let i = 1; i <= 6; i++) await teacher.mouse.move(box.x + box.width * (0.3 + i * 0.05), box.y + box.height / 2);
      await teacher.mouse.up();
      await student.waitForFunction(([l, n]) => (window as HookWindow).__banshuBoard?.store.snapshot(l).items.length === n + 1, [
        layer,
        before,
      ] as const);
      const ys = await student.evaluate((l) => {
        const items = (window as HookWindow).__banshuBoard!.store.snapshot(l).items;
        const points = (items.at(-1)!.data as { points: number[] }).points;
        return points.filter((_, i) => i % 2 === 1);
      }, layer);
      for (const y of ys) expect(Math.abs(y - (384 + 76.8))).toBeLessThan(4);
      // Where the student's board shows it: at scroll 0.1 across the middle; scrolled back to 0,
      // 76.8 units lower on the screen, with the page.
      const screenY = () => student.evaluate((y) => (window as HookWindow).__banshuBoard!.renderer()!.toCss({ x: 500, y }).y, ys[0]!);
      const scale = await student.evaluate(() => (window as HookWindow).__banshuBoard!.renderer()!.scale);
      const atTenth = await screenY();
      await teacher.getByTestId('cw-scroll-up').click();
      await student.locator('[data-testid="courseware-loaded"][data-scroll="0"]').waitFor({ timeout: 1500 });
      await expect.poll(async () => (await screenY()) - atTenth).toBeCloseTo(76.8 * scale, 0);
    });

    it('cancels an upload and tells the server', async () => {
      await teacher.getByTestId('cw-close').click();
      await teacher.getByRole('dialog').getByRole('button', { name: '确定' }).click();
      await teacher.locator('[data-testid="courseware"][data-view="default"]').waitFor();
      // A slow uplink, so the upload is still running when 'cancel' is pressed.
      const cdp = await teacher.context().newCDPSession(teacher);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: 256 * 1024,
      });
      const notice = teacher.waitForRequest((r) => r.url().includes('/api/updateDocumentNotice'));
      const big = Buffer.alloc(3 * 1024 * 1024, 7);
      big.write('%PDF-1.7\n');
      await teacher.getByTestId('courseware-file').setInputFiles({ name: 'slow.pdf', mimeType: 'application/pdf', buffer: big });
      await teacher.getByTestId('cw-upload-progress').waitFor({ timeout: 15_000 });
      await shot(teacher, 'uploading');
      await teacher.getByTestId('courseware-cancel').click();
      const sent = await notice;
      expect(sent.postDataJSON()).toMatchObject({ roomNumber: room });
      await teacher.locator('[data-testid="courseware"][data-view="default"]').waitFor();
      await teacher.getByTestId('toast').filter({ hasText: '已取消上传' }).waitFor();
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
      await cdp.detach();
    });

    it("says 'parse failed' to the uploader when a file cannot be converted, and closes it", async () => {
      const broken = Buffer.concat([
        Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 9 0 R >>\n'),
        Buffer.alloc(4096, 0x41),
        Buffer.from('\n%%EOF\n'),
      ]);
      await teacher.getByTestId('courseware-file').setInputFiles({ name: 'broken.pdf', mimeType: 'application/pdf', buffer: broken });
      await teacher.getByTestId('toast').filter({ hasText: '解析失败' }).waitFor({ timeout: 60_000 });
      await teacher.locator('[data-testid="courseware"][data-view="default"]').waitFor();
      await student.getByTestId('courseware-holdon').waitFor();
      expect(await student.getByTestId('toast').filter({ hasText: '解析失败' }).count()).toBe(0);
    });

    it('lists the documents in the library, follows a new upload live, and deletes', async () => {
      await open(teacher, '/profile/book');
      await teacher.getByTestId('library-row').first().waitFor();
      const rows = teacher.getByTestId('library-row');
      // The pptx, the mp4, the tall pdf and the broken one; not the cancelled upload.
      expect(await rows.count()).toBe(4);
      expect(['2', '4']).toContain(await rows.filter({ hasText: 'broken.pdf' }).getAttribute('data-status'));
      expect(await rows.filter({ hasText: 'broken.pdf' }).getByTestId('library-delete').count()).toBe(1);
      expect(await rows.filter({ hasText: 'broken.pdf' }).getByTestId('library-open').count()).toBe(0);
      expect(await rows.filter({ hasText: 'slow.pdf' }).count()).toBe(0);
      expect(await rows.filter({ hasText: '中文课件.pptx' }).getAttribute('data-status')).toBe('3');
      expect(await rows.filter({ hasText: '中文课件.pptx' }).getByTestId('cw-status').innerText()).toBe('解析完成');
      expect(await teacher.getByTestId('cw-guideline').getAttribute('href')).toBe('/help/courseware');

      // An upload from the library: its row arrives and turns 'parsed' without a reload.
      await teacher.getByTestId('courseware-file').setInputFiles(files.pdf);
      const pdfRow = rows.filter({ hasText: 'handout.pdf' });
      await pdfRow.waitFor({ timeout: 30_000 });
      await teacher.locator('[data-testid="library-row"][data-status="3"]', { hasText: 'handout.pdf' }).waitFor({ timeout: 60_000 });
      expect(await rows.count()).toBe(5);
      await shot(teacher, 'library');
      if (SHOTS) {
        await teacher.setViewportSize({ width: 390, height: 844 });
        await shot(teacher, 'library-phone');
        await teacher.setViewportSize({ width: 1280, height: 720 });
      }

      await rows.filter({ hasText: '中文课件.pptx' }).getByTestId('library-delete').click();
      const dialog = teacher.getByRole('dialog');
      expect(await dialog.innerText()).toContain('确定要删除该文件吗？');
      await dialog.getByRole('button', { name: '确定' }).click();
      await rows.filter({ hasText: '中文课件.pptx' }).waitFor({ state: 'detached' });
      await teacher.reload();
      await teacher.getByTestId('library-row').first().waitFor();
      expect(await teacher.getByTestId('library-row').count()).toBe(4);
      expect(await teacher.getByTestId('library-row').filter({ hasText: '中文课件.pptx' }).count()).toBe(0);

      // The same page in English: the failed document is deleted with the spec's wording.
      await teacher.getByRole('button', { name: 'Switch to English' }).click();
      await teacher.getByRole('heading', { level: 1, name: 'My courseware' }).waitFor();
      const failed = teacher.getByTestId('library-row').filter({ hasText: 'broken.pdf' });
      expect(await failed.getByTestId('cw-status').innerText()).toMatch(/^Parse (failed|timed out or failed)$/);
      await failed.getByTestId('library-delete').click();
      const english = teacher.getByRole('dialog');
      expect(await english.innerText()).toContain('Are you sure to delete this file?');
      await english.getByRole('button', { name: 'Confirm' }).click();
      await failed.waitFor({ state: 'detached' });
      expect(await teacher.getByTestId('library-row').count()).toBe(3);
      await teacher.getByRole('button', { name: '切换到中文' }).click();
    });
  });
}
