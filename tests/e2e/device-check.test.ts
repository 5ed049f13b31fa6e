/** The device-check wizard at /profile/device on Chromium's fake camera and microphone. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { open, signIn, startWorld, type World } from './helpers.ts';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world?.close();
});

it('walks camera, microphone, speaker and result, stores the choice, and rechecks', async () => {
  const { page } = await world.person();
  await signIn(page, world.server);
  await open(page, '/profile/device');
  const wizard = page.getByTestId('device-check');
  await expect.poll(() => wizard.getAttribute('data-step')).toBe('camera');
  // The preview plays the camera at the test size.
  await expect
    .poll(() => page.getByTestId('camera-preview').evaluate((v: HTMLVideoElement) => v.videoWidth), { timeout: 10_000 })
    .toBeGreaterThan(0);
  const cameras = await page.getByTestId('pick-videoinput').locator('option').count();
  expect(cameras).toBeGreaterThan(1);
  const chosen = await page.getByTestId('pick-videoinput').locator('option').nth(1).getAttribute('value');
  await page.getByTestId('pick-videoinput').selectOption(chosen);
  expect(JSON.parse((await page.evaluate(() => localStorage.getItem('device-configure')))!)).toMatchObject({ videoDeviceId: chosen });
  await page.getByTestId('answer-yes').click();

  await expect.poll(() => wizard.getAttribute('data-step')).toBe('mic');
  // The fake microphone beeps: the wave moves.
  await expect
    .poll(async () => Number(await page.getByTestId('mic-wave').getAttribute('data-level')), { timeout: 10_000 })
    .toBeGreaterThan(0);
  await page.getByTestId('answer-yes').click();

  await expect.poll(() => wizard.getAttribute('data-step')).toBe('speaker');
  await page.getByTestId('play-tone').click();
  await page.getByTestId('answer-no').click();

  const result = page.getByTestId('device-result');
  await expect.poll(() => result.locator('[data-device="camera"]').getAttribute('data-ok')).toBe('true');
  expect(await result.locator('[data-device="mic"]').getAttribute('data-ok')).toBe('true');
  expect(await result.locator('[data-device="speaker"]').getAttribute('data-ok')).toBe('false');
  await page.getByText('异常').waitFor();
  await page.getByTestId('recheck').click();
  await expect.poll(() => wizard.getAttribute('data-step')).toBe('camera');
});

it('checks the network against the media node: progress, then a grade', async () => {
  const { page } = await world.person();
  await signIn(page, world.server);
  await open(page, '/profile/device');
  await page.getByTestId('network-start').click();
  const result = page.getByTestId('network-result');
  await result.waitFor({ timeout: 20_000 });
  // On loopback the node is near and fast, and the data channel to it connected over UDP.
  expect(await result.getAttribute('data-grade')).toBe('excellent');
  expect(await result.getAttribute('data-udp')).toBe('true');
  await page.getByText('优秀').waitFor();
  // The node closed the probe's connection when the page was done with it.
  await expect.poll(() => world.server.banshu.media!.probes.openCount).toBe(0);
});

describe('a network where the media path cannot connect', () => {
  let blocked: World;
  beforeAll(async () => {
    // The node announces an address nothing answers on (TEST-NET-1): ICE cannot connect, as
    // behind a firewall that blocks UDP, while the signaling socket works.
    blocked = await startWorld({ env: { MEDIA_ANNOUNCED_ADDRESS: '192.0.2.1' } });
  });
  afterAll(async () => {
    await blocked?.close();
  });

  it('grades it very poor and says why, however fast the socket is', async () => {
    const { page } = await blocked.person({ locale: 'en-US' });
    await signIn(page, blocked.server);
    await open(page, '/profile/device');
    await page.getByTestId('network-start').click();
    await page.getByTestId('network-progress').waitFor();
    const result = page.getByTestId('network-result');
    await result.waitFor({ timeout: 30_000 });
    expect(await result.getAttribute('data-grade')).toBe('veryPoor');
    expect(await result.getAttribute('data-udp')).toBe('false');
    await page.getByTestId('network-no-udp').getByText('UDP is blocked').waitFor();
  });
});
