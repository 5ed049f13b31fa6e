/**
 * 'Create classroom' and the devices (ADR 089): one device step, in the room. Create goes straight
 * to the room-type picker (the lobby no longer runs the four-step check in a dialog); the created
 * room opens on its pre-join (a whiteboard class: the microphone and its level), and Join enters.
 * A computer without any camera or microphone is told so on the pre-join and still enters (a
 * teacher may teach with the board only). The full check stays at /profile/device (device-check.test.ts).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { open, signIn, startWorld, type World } from './helpers.ts';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world?.close();
});

async function createWhiteboard(page: Page): Promise<void> {
  await page.getByTestId('room-type-picker').waitFor();
  await page.getByTestId('create-whiteboard').click();
  await page.waitForURL((url) => /^\/(?:bb\/|record\/|live\/)?\d{6}$/.test(url.pathname));
}

const prejoin = (page: Page) => page.locator('[data-testid="prejoin"][data-ready="true"]');

it('create goes straight to the picker, and the new room opens on its pre-join with the microphone level', async () => {
  const { page } = await world.person({}, { preJoin: 'manual' });
  await signIn(page, world.server);
  await open(page, '/');
  await page.getByTestId('open-picker').click();
  await createWhiteboard(page);
  expect(await page.getByRole('dialog', { name: '上课前检测设备' }).count()).toBe(0);
  await prejoin(page).waitFor();
  // A whiteboard class uses sound only (docs/product/decisions.md): the microphone, its level, no camera.
  expect(await page.getByTestId('prejoin-video').count()).toBe(0);
  expect(await page.getByTestId('prejoin-cam').count()).toBe(0);
  await expect
    .poll(async () => Number(await page.getByTestId('prejoin-level').getAttribute('data-level')), { timeout: 10_000 })
    .toBeGreaterThan(0);
  // Not seated yet: the room's own screen waits behind the pre-join.
  expect(await page.getByTestId('room-number').count()).toBe(0);
  await page.getByTestId('prejoin-join').click();
  await page.getByTestId('room-number').waitFor();
  expect(await page.getByTestId('prejoin').count()).toBe(0);
});

it('a computer without camera or microphone is told so on the pre-join and still enters', async () => {
  const { context, page } = await world.person({}, { preJoin: 'manual' });
  await context.addInitScript(() => {
    navigator.mediaDevices.enumerateDevices = () => Promise.resolve([]);
    navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('none', 'NotFoundError'));
  });
  await signIn(page, world.server);
  await open(page, '/');
  await page.getByTestId('open-picker').click();
  await createWhiteboard(page);
  await prejoin(page).waitFor();
  const problem = page.getByTestId('prejoin-problem');
  await problem.waitFor();
  expect(await problem.getAttribute('data-problem')).toMatch(/^no/);
  await page.getByTestId('prejoin-join').click();
  await page.getByTestId('room-number').waitFor();
  expect(await page.getByTestId('permission-help').count()).toBe(0);
});
