/**
 * Sign-in, the guard around it, and the language switch, as a person sees them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectToast, newMobile, open, pathOf, signIn, signInHere, startWorld, waitForPath, type World } from './helpers.ts';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world?.close();
});

describe('sign-in', () => {
  it('shows a signed-out visitor of / the front door, whose teacher sign-in leads back to the lobby', async () => {
    const { page } = await world.person();
    await open(page, '/');
    await page.getByTestId('front-door').waitFor();
    await page.getByTestId('front-sign-in').click();
    await waitForPath(page, '/login?redirect=/');
    // The address changes before the new page is drawn: wait for the sign-in page's own heading.
    await page.getByRole('heading', { level: 1, name: '登录板书' }).waitFor();
    await signInHere(page, world.server, newMobile());
    await waitForPath(page, '/');
    await page.getByRole('button', { name: '创建教室' }).waitFor();
  });

  it('validates the form with toasts and counts down after a code is sent', async () => {
    const { page } = await world.person();
    await open(page, '/login');
    const terms = page.getByRole('checkbox');
    expect(await terms.isChecked()).toBe(true);
    await page.getByRole('button', { name: /^登录$/ }).click();
    await expectToast(page, '请输入正确的 11 位手机号');
    const mobile = newMobile();
    await page.getByLabel('手机号').fill(mobile);
    await page.getByLabel(/^验证码$/).press('Enter'); // Enter submits
    await expectToast(page, '请输入正确的 6 位验证码');
    await page.getByRole('button', { name: '获取验证码' }).click();
    await expectToast(page, '验证码已发送');
    const countdown = page.getByRole('button', { name: /\d+ 秒后重新获取/ });
    await countdown.waitFor();
    expect(await countdown.isDisabled()).toBe(true);
    await page.getByLabel(/^验证码$/).fill('000000');
    await terms.uncheck();
    await page.getByRole('button', { name: /^登录$/ }).click();
    await expectToast(page, '请先阅读并同意用户服务协议');
    await terms.check();
    const sent = (await world.server.outbox()).find((m) => m.mobile === mobile)!;
    const wrong = sent.code === '000000' ? '111111' : '000000';
    await page.getByLabel(/^验证码$/).fill(wrong);
    await page.getByLabel(/^验证码$/).press('Enter');
    await expectToast(page, '手机号或验证码不正确');
    expect(new URL(page.url()).pathname).toBe('/login');
  });

  it('sends a signed-in teacher away from /login to the lobby, and only to same-site targets', async () => {
    const { page } = await world.person();
    await open(page, '/login?redirect=https://evil.example/');
    await signInHere(page, world.server, newMobile());
    await waitForPath(page, '/');
    await open(page, '/login');
    expect(pathOf(page)).toBe('/');
  });

  it('logs out after confirming and lands on /login', async () => {
    const { page } = await world.person();
    await signIn(page, world.server);
    await page.getByRole('button', { name: '打开菜单' }).click();
    await page.getByRole('button', { name: '退出登录' }).click();
    const dialog = page.getByRole('dialog', { name: '确认操作？' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: '确定' }).click();
    await waitForPath(page, '/login');
    await open(page, '/');
    await page.getByTestId('front-door').waitFor();
    expect(await page.getByTestId('open-picker').count()).toBe(0);
  });
});

describe('language', () => {
  it('shows Chinese by default, switches to English in place and keeps it after a reload', async () => {
    const { page, context } = await world.person();
    await open(page, '/login');
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('登录板书');
    await page.getByRole('button', { name: 'Switch to English' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in to Banshu' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/login');
    const cookie = (await context.cookies()).find((c) => c.name === 'lang');
    expect(cookie?.value).toBe('en');
    await page.reload();
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Sign in to Banshu');
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    await page.locator('html[data-hydrated="true"]').waitFor({ state: 'attached' });
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectToast(page, 'Please enter a correct 11-digit phone number');
    await page.getByRole('button', { name: '切换到中文' }).click();
    await page.getByRole('heading', { level: 1, name: '登录板书' }).waitFor();
  });
});
