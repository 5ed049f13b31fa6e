/**
 * Demo rooms (issue 17, ADR 092), end to end: a visitor with no account goes from the landing page
 * to /createDemo, gets a demo room of their own with the sample deck shown and draws on it; a second
 * visitor opens the same /demo/{id}, names themself and sees the ink; a phone opens it too; once
 * the demo's hours are up, the page says so in both languages with a button to make a new one.
 */
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { open, startWorld, UA, waitForPath, type World } from './helpers.ts';

const SHOTS = process.env['SHOTS'] ?? '';
if (SHOTS) mkdirSync(SHOTS, { recursive: true });
async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/demo-${name}.png` });
}

type HookWindow = Window & {
  __banshuBoard?: { store: { snapshot(page: string): { items: unknown[] } }; page(): string };
};

const HOUR = 3600_000;
let world: World;
let host: Page;
let roomNumber = '';
let documentId = '';

beforeAll(async () => {
  world = await startWorld();
}, 60_000);
afterAll(async () => {
  await world.close();
});

async function slideShown(page: Page, slide: number): Promise<void> {
  await page.locator(`[data-testid="courseware-loaded"][data-page="${String(slide)}"][data-slide-ready="1"]`).waitFor({ timeout: 15_000 });
}

const inkOn = (page: Page, layer: string) =>
  page.waitForFunction((l) => ((window as HookWindow).__banshuBoard?.store.snapshot(l).items.length ?? 0) >= 1, layer, { timeout: 10_000 });

/** A visitor without an account names themself on the demo's pre-join. */
async function joinAsVisitor(page: Page, name: string): Promise<void> {
  await open(page, `/demo/${roomNumber}`);
  const prejoin = page.locator('[data-testid="prejoin"][data-ready="true"]');
  await prejoin.waitFor();
  await page.getByTestId('demo-name').waitFor();
  await prejoin.locator('#visitor-name').fill(name);
  await prejoin.getByTestId('prejoin-join').click();
  await page.getByTestId('classroom').waitFor({ timeout: 15_000 });
}

describe('demo rooms', () => {
  it('a visitor with no account makes a demo room from the landing page, sees the sample deck and draws on it', async () => {
    ({ page: host } = await world.person());
    await open(host, '/home');
    await host.getByTestId('home-try-demo').waitFor();
    await shot(host, 'home');
    await host.getByTestId('home-try-demo').click();
    await waitForPath(host, '/createDemo');
    await host.getByTestId('demo-start').waitFor();
    await shot(host, 'create');
    await host.getByTestId('demo-start').click();
    await waitForPath(host, /^\/demo\/\d{6}$/);
    roomNumber = new URL(host.url()).pathname.split('/')[2]!;
    // Through the pre-join (passed as found), into the room as its host, with the demo's badge.
    await host.getByTestId('top-bar').waitFor({ timeout: 15_000 });
    const badge = host.getByTestId('demo-badge');
    await badge.waitFor();
    expect(await badge.innerText()).toMatch(/^演示 · \d{2}:\d{2} 结束/);
    await slideShown(host, 1);
    expect(await host.getByTestId('cw-counter').innerText()).toBe('1/4');
    documentId = await host.evaluate(() => (window as HookWindow).__banshuBoard?.page() ?? '').then((l) => l.split(':')[1] ?? '');
    expect(documentId).toMatch(/^\d+$/);
    await host.getByTestId('tool-brush').click();
    const box = (await host.getByTestId('board-overlay').boundingBox())!;
    await host.mouse.move(box.x + box.width * 0.55, box.y + box.height * 0.3);
    await host.mouse.down();
    for (let i = 1; i <= 8; i++) await host.mouse.move(box.x + box.width * (0.55 + i * 0.03), box.y + box.height * (0.3 + (i % 2) * 0.05));
    await host.mouse.up();
    await inkOn(host, `doc:${documentId}:1`);
    await shot(host, 'room');
  });

  it('a second visitor opens the same /demo/{id}, names themself, sees the ink and may draw too', async () => {
    const { page } = await world.person();
    await joinAsVisitor(page, '小明');
    await slideShown(page, 1);
    await inkOn(page, `doc:${documentId}:1`);
    // Board power is everyone's in a demo room.
    await page.getByTestId('tool-brush').waitFor();
    await shot(page, 'second-visitor');
    // The page turns for the visitor when the host turns it.
    await host.getByTestId('cw-next').click();
    await slideShown(page, 2);
  });

  it('a phone opens the demo room in the browser with the phone layout', async () => {
    const { page } = await world.person({ viewport: { width: 390, height: 844 }, userAgent: UA.iphone, isMobile: true, hasTouch: true });
    await joinAsVisitor(page, 'Phone');
    await slideShown(page, 2);
    await page.getByTestId('demo-badge').waitFor();
    await shot(page, 'phone');
  });

  it('once its hours are up, the demo says it ended, in both languages, with a button to make a new one', async () => {
    world.server.clock.advance(2 * HOUR + 1000);
    await host.reload();
    await host.getByTestId('demo-ended').waitFor();
    expect(await host.getByTestId('demo-ended').innerText()).toContain('这间演示教室已经结束');
    await shot(host, 'ended-zh');
    const { page: english } = await world.person({ locale: 'en-US' });
    await open(english, `/demo/${roomNumber}`);
    await english.getByTestId('demo-ended').waitFor();
    expect(await english.getByTestId('demo-ended').innerText()).toContain('This demo classroom has ended');
    await shot(english, 'ended-en');
    await english.getByTestId('demo-again').click();
    await waitForPath(english, '/createDemo');
    await english.getByRole('button', { name: 'Start the demo' }).waitFor();
  });
});
