/**
 * Issue 27 (ADR 102): an /api call that gets no answer ends, after the timeout, in the 'network
 * exception' message with a RETRY that works, with every spinner and lock released; and a
 * class's client events (join information, a device check, a socket drop and its reconnect) are
 * stored and shown to the operator on /admin for that room.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page, Route } from 'playwright-core';
import { DEFAULT_API_TIMEOUT_MS } from '#app/lib/api.ts';
import { createRoom, joinByNumber, newMobile, open, openPicker, signIn, startWorld, type World } from './helpers.ts';
import { axeProblems, layoutProblems } from './tour.ts';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The layout rules and axe of the layout suite, on the page as it shows now. */
async function problems(page: Page): Promise<string[]> {
  return [...(await layoutProblems(page, { topBarOneRow: false, tilesBeside: false })), ...(await axeProblems(page, AXE))];
}

/**
 * The same with the network message up: a message floats over the page's content by design (as
 * toasts do), so its overlap with the content is not a fault; it must still lie whole in the
 * window, below the header, and pass axe.
 */
async function problemsWithAlert(page: Page): Promise<string[]> {
  const found = (await problems(page)).filter((p) => !(p.startsWith('controls overlap') && /netalert|network-retry/.test(p)));
  const [alert, header] = await Promise.all([
    page.getByTestId('network-alert').boundingBox(),
    page.locator('header').first().boundingBox(),
  ]);
  const width = page.viewportSize()?.width ?? 0;
  if (!alert || alert.x < 0 || alert.x + alert.width > width)
    found.push(`the message is not whole in the window: ${JSON.stringify(alert)}`);
  if (alert && header && alert.y < header.y + header.height) found.push('the message covers the header');
  return found;
}

let world: World;
const OPERATOR = newMobile();
const SHOTS = process.env['SHOTS'] ?? '';
const HOLD_MS = 20_000;

async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/netlog-${name}.png`, fullPage: false });
}

beforeAll(async () => {
  world = await startWorld({ env: { ADMIN_MOBILES: OPERATOR } });
});
afterAll(async () => {
  await world?.close();
});

describe('an /api call without an answer', () => {
  it('ends in the network exception message after the timeout, releases the spinner, and its RETRY creates the room', async () => {
    const { page } = await world.person();
    await signIn(page, world.server);
    await open(page, '/');
    await openPicker(page);

    // The first createRoom is held for 20 s (longer than the 15 s timeout); later ones pass.
    const requestIds: string[] = [];
    let held = 0;
    await page.route('**/api/createRoom*', async (route: Route) => {
      requestIds.push(new URL(route.request().url()).searchParams.get('requestId') ?? '');
      if (held++ > 0) return route.continue();
      await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
      await route.abort().catch(() => undefined); // the page gave up on it long ago
    });

    const card = page.getByTestId('create-whiteboard');
    const started = Date.now();
    await card.click();
    await expect.poll(() => card.getAttribute('aria-busy')).toBe('true');
    const alert = page.getByTestId('network-alert');
    await alert.waitFor({ timeout: DEFAULT_API_TIMEOUT_MS + 3000 });
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(DEFAULT_API_TIMEOUT_MS - 500);
    expect(waited).toBeLessThan(DEFAULT_API_TIMEOUT_MS + 3000);
    await alert.getByText('网络异常').waitFor();
    await alert.getByText('教室创建失败，请重试').waitFor();
    // Spinners and locks are released: no busy control, the cards can be pressed again.
    expect(await page.locator('[aria-busy="true"]').count()).toBe(0);
    expect(await page.locator('.spinner').count()).toBe(0);
    expect(await card.isDisabled()).toBe(false);
    expect(await page.getByRole('alert').filter({ hasText: '网络异常' }).count()).toBe(1);
    await shot(page, 'network-exception-1280');
    expect(await problemsWithAlert(page)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, 'network-exception-390');
    expect(await problemsWithAlert(page)).toEqual([]);
    // In English too (the switch changes the language in place; the message stays).
    await page.getByTestId('lang-switch').first().click();
    await alert.getByText('Network exception').waitFor();
    await alert.getByText('Classroom creation failed, please retry').waitFor();
    await shot(page, 'network-exception-390-en');
    expect(await problemsWithAlert(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 720 });

    await alert.getByRole('button', { name: 'Retry' }).click();
    await page.waitForURL((url) => /^\/bb\/\d{6}$/.test(url.pathname), { timeout: 20_000 });
    await page.getByTestId('room-number').waitFor();
    await alert.waitFor({ state: 'detached' });
    // The retry is the same action with the same request id: the server does the work once.
    expect(requestIds.length).toBe(2);
    expect(requestIds[1]).toBe(requestIds[0]);
  });
});

describe('the client event log', () => {
  it("stores a class's join information, device checks, a socket drop and its reconnect, and shows them on /admin for the room", async () => {
    const teacher = await world.person();
    await signIn(teacher.page, world.server, OPERATOR);
    const room = await createRoom(teacher.page, 'freeMini');
    await teacher.page.getByTestId('view-area').waitFor({ timeout: 20_000 });

    const student = await world.person();
    await signIn(student.page, world.server);
    await joinByNumber(student.page, room);
    await student.page.getByTestId('view-area').waitFor({ timeout: 20_000 });

    // A socket drop: the student's network goes, the room says so, and comes back.
    await student.context.setOffline(true);
    // Usually at once; when the browser keeps the socket open, the channel's ping timeout tells it.
    await student.page.getByTestId('reconnect-overlay').waitFor({ timeout: 60_000 });
    await student.context.setOffline(false);
    await student.page.getByTestId('reconnect-overlay').waitFor({ state: 'detached', timeout: 20_000 });

    const db = world.server.banshu.platform.database.db;
    const events = async () =>
      (await db.selectFrom('client_logs').select(['socket_type', 'user_id', 'message']).where('room_number', '=', room).execute()).map(
        (r) => r.socket_type,
      );
    await expect
      .poll(events, { timeout: 20_000 })
      .toEqual(expect.arrayContaining(['system_info', 'check_devices', 'socket_disconnect', 'socket_reconnect']));
    const stored = await db
      .selectFrom('client_logs')
      .selectAll()
      .where('room_number', '=', room)
      .where('socket_type', '=', 'system_info')
      .execute();
    expect(stored.length).toBe(2); // the teacher's and the student's
    const info = JSON.parse(stored[0]!.message) as Record<string, unknown>;
    expect(info).toMatchObject({ browser: expect.stringMatching(/^Chrome /), os: 'Linux', language: expect.any(String), phone: false });
    expect(info['iMei']).toMatch(/^[0-9a-f-]{36}$/);
    expect(stored.every((r) => r.user_id !== null)).toBe(true);

    // The operator reads them for this room, newest first.
    const admin = teacher.page;
    await open(admin, `/admin?logRoom=${room}`);
    const list = admin.getByTestId('admin-logs-list');
    await list.waitFor();
    const shown = await list
      .getByTestId('admin-log')
      .evaluateAll((els) => els.map((e) => [e.getAttribute('data-event'), e.getAttribute('data-room')]));
    expect(shown.every(([, r]) => r === room)).toBe(true);
    expect(shown.map(([e]) => e)).toEqual(
      expect.arrayContaining(['system_info', 'check_devices', 'socket_disconnect', 'socket_reconnect']),
    );
    expect(shown.findIndex(([e]) => e === 'socket_reconnect')).toBeLessThan(shown.findIndex(([e]) => e === 'system_info'));
    await admin.getByTestId('admin-logs').scrollIntoViewIfNeeded();
    await shot(admin, 'admin-logs-1280');
    // Filter by the student: only theirs.
    const studentId = await student.page.evaluate(
      () => (JSON.parse(localStorage.getItem('userInfo') ?? '{}') as { userId: string }).userId,
    );
    await admin.getByRole('textbox', { name: '用户 ID' }).fill(studentId);
    await admin.getByRole('button', { name: '筛选' }).click();
    await admin.waitForURL((url) => url.searchParams.get('logUser') === studentId);
    // The address changes before the filtered list is drawn: wait for the list itself to be the student's alone.
    await expect
      .poll(async () => {
        const people = await list.locator('.logs__who').allInnerTexts();
        return people.length > 0 && people.every((t) => t.includes(`(${studentId})`));
      })
      .toBe(true);

    // Both sizes and both languages, by the layout suite's rules and axe.
    expect(await problems(admin)).toEqual([]);
    await admin.setViewportSize({ width: 390, height: 844 });
    await admin.getByTestId('admin-logs').scrollIntoViewIfNeeded();
    await shot(admin, 'admin-logs-390');
    expect(await problems(admin)).toEqual([]);
    await admin.context().addCookies([{ name: 'lang', value: 'en', url: world.server.url }]);
    await open(admin, `/admin?logRoom=${room}`);
    await admin.getByRole('heading', { name: 'Client logs' }).waitFor();
    await shot(admin, 'admin-logs-390-en');
    expect(await problems(admin)).toEqual([]);
    await admin.setViewportSize({ width: 1280, height: 720 });
    await shot(admin, 'admin-logs-1280-en');
    expect(await problems(admin)).toEqual([]);
  }, 180_000);
});
