/**
 * 'Create classroom' enters through the device check (docs/product/01-account-and-lobby.md §2): the four-step wizard in a
 * dialog on Chromium's fake camera and microphone. Passing it leads to the picker and the class
 * is created; a passed check is not asked again in the same session; skipping always works; a
 * computer without any camera or microphone goes straight to the picker.
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
  await page.getByTestId('room-number').waitFor();
}

it('asks for the device check on create; passing it creates the class, and it is not asked again this session', async () => {
  const { page } = await world.person();
  await signIn(page, world.server);
  await open(page, '/');
  await page.getByTestId('open-picker').click();
  const dialog = page.getByRole('dialog', { name: '上课前检测设备' });
  await dialog.waitFor();
  // Not created yet: the picker waits behind the check.
  expect(await page.getByTestId('room-type-picker').count()).toBe(0);
  const wizard = dialog.getByTestId('device-check');
  await expect.poll(() => wizard.getAttribute('data-step')).toBe('camera');
  await expect
    .poll(() => dialog.getByTestId('camera-preview').evaluate((v: HTMLVideoElement) => v.videoWidth), { timeout: 10_000 })
    .toBeGreaterThan(0);
  await dialog.getByTestId('answer-yes').click();
  await expect
    .poll(async () => Number(await dialog.getByTestId('mic-wave').getAttribute('data-level')), { timeout: 10_000 })
    .toBeGreaterThan(0);
  await dialog.getByTestId('answer-yes').click();
  await dialog.getByTestId('play-tone').click();
  await dialog.getByTestId('answer-yes').click();
  await expect.poll(() => dialog.getByTestId('device-result').locator('[data-ok="true"]').count()).toBe(3);
  await dialog.getByTestId('device-done').click();
  await dialog.waitFor({ state: 'detached' });
  await createWhiteboard(page);
  expect(await page.evaluate(() => sessionStorage.getItem('device-checked'))).toBe('1');

  // Same session: straight to the picker.
  await open(page, '/');
  await page.getByTestId('open-picker').click();
  await page.getByTestId('room-type-picker').waitFor();
  expect(await page.getByRole('dialog', { name: '上课前检测设备' }).count()).toBe(0);
});

it('skipping the check goes on to create, and the check is offered again next time', async () => {
  const { page } = await world.person();
  await signIn(page, world.server);
  await open(page, '/');
  await page.getByTestId('open-picker').click();
  const dialog = page.getByRole('dialog', { name: '上课前检测设备' });
  await dialog.getByTestId('device-check').waitFor();
  await dialog.getByTestId('device-check-skip').click();
  await createWhiteboard(page);
  expect(await page.evaluate(() => sessionStorage.getItem('device-checked'))).toBeNull();

  // A check that ends with a device abnormal is not remembered, and still never blocks.
  await open(page, '/');
  await page.getByTestId('open-picker').click();
  await dialog.getByTestId('device-check').waitFor();
  await dialog.getByTestId('answer-no').click();
  await dialog.getByTestId('answer-no').click();
  await dialog.getByTestId('answer-no').click();
  await dialog.getByTestId('device-done').click();
  await createWhiteboard(page);
  expect(await page.evaluate(() => sessionStorage.getItem('device-checked'))).toBeNull();
});

it('a computer without camera or microphone goes straight to the picker (teaching with the board only)', async () => {
  const { context, page } = await world.person();
  await context.addInitScript(() => {
    navigator.mediaDevices.enumerateDevices = () => Promise.resolve([]);
  });
  await signIn(page, world.server);
  await open(page, '/');
  await page.getByTestId('open-picker').click();
  await createWhiteboard(page);
  expect(await page.getByRole('dialog', { name: '上课前检测设备' }).count()).toBe(0);
});
