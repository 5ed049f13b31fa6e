/**
 * Creating every room type, joining by number (valid, wrong, full), the tourist name screen and
 * the navigation guard, with several people in their own browser contexts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  createRoom,
  expectToast,
  joinByNumber,
  open,
  openPicker,
  pathOf,
  signIn,
  startWorld,
  UA,
  waitForPath,
  type World,
} from './helpers.ts';

let world: World;
let teacher: Page;
let freeMini = '';
let whiteboard = '';
let large = '';

beforeAll(async () => {
  world = await startWorld();
  teacher = (await world.person()).page;
  await signIn(teacher, world.server);
});
afterAll(async () => {
  await world?.close();
});

describe('create', () => {
  it('creates a free mini class at /{number} with the teacher as creator', async () => {
    freeMini = await createRoom(teacher, 'freeMini');
    expect(pathOf(teacher)).toBe(`/${freeMini}`);
    await expect(teacher.getByTestId('room-type').innerText()).resolves.toContain('小班课');
    await expect(teacher.getByTestId('room-role').innerText()).resolves.toBe('老师（创建者）');
    expect(await teacher.evaluate((n) => localStorage.getItem(`invite_${n}`), freeMini)).toBe('true');
  });

  it('creates a whiteboard class at /bb/, an audio class at /record/ and a large class at /live/', async () => {
    whiteboard = await createRoom(teacher, 'whiteboard');
    expect(pathOf(teacher)).toBe(`/bb/${whiteboard}`);
    await expect(teacher.getByTestId('room-type').innerText()).resolves.toContain('白板课');
    const audio = await createRoom(teacher, 'audio');
    expect(pathOf(teacher)).toBe(`/record/${audio}`);
    await expect(teacher.getByTestId('room-type').innerText()).resolves.toContain('语音课');
    large = await createRoom(teacher, 'large');
    expect(pathOf(teacher)).toBe(`/live/${large}`);
    await expect(teacher.getByTestId('room-type').innerText()).resolves.toContain('大班课');
  });

  it('asks before spending a credit on a paid mini class, and refuses the paid version without credits', async () => {
    const { page } = await world.person();
    await signIn(page, world.server);
    await openPicker(page);
    await page.getByTestId('create-paidMini').click();
    let dialog = page.getByRole('dialog', { name: '创建付费小班课' });
    await dialog.getByText('剩余课时：0').waitFor();
    expect(await dialog.getByRole('button', { name: '创建付费版（课时 -1）' }).isDisabled()).toBe(true);
    await dialog.getByText('课时已用完，可以先创建免费版。').waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // Grant two credits, then spend one.
    const userId = await page.evaluate(() => (JSON.parse(localStorage.getItem('userInfo') ?? '{}') as { userId: string }).userId);
    await world.server.banshu.platform.services.billingRepo.grant(userId, { vip_room_remaining_number: 2 });
    await page.getByTestId('create-paidMini').click();
    dialog = page.getByRole('dialog', { name: '创建付费小班课' });
    await dialog.getByText('剩余课时：2').waitFor();
    await dialog.getByRole('button', { name: '创建付费版（课时 -1）' }).click();
    await page.waitForURL((url) => /^\/\d{6}$/.test(url.pathname));
    await expect(page.getByTestId('room-type').innerText()).resolves.toContain('会员教室');

    // Inside the 3-hour window the next paid class is created without asking.
    await open(page, '/');
    await openPicker(page);
    await page.getByTestId('create-paidMini').click();
    await page.waitForURL((url) => /^\/\d{6}$/.test(url.pathname));
    await page.getByTestId('room-number').waitFor();
  });

  it('opens a recording studio with an 8-digit number from the lobby', async () => {
    await open(teacher, '/');
    await teacher.getByRole('button', { name: '进入录课室' }).click();
    await teacher.waitForURL((url) => /^\/rec\/\d{8}$/.test(url.pathname));
    await teacher.getByRole('heading', { name: '录课室' }).waitFor();
    await teacher.getByText('仅限电脑使用').waitFor();
  });
});

describe('join by number', () => {
  it('lets a second teacher join a valid number and refuses a wrong one', async () => {
    const { page } = await world.person();
    await signIn(page, world.server);
    await joinByNumber(page, '000001');
    await expectToast(page, '教室号码不正确，请重新输入');
    expect(pathOf(page)).toBe('/');
    await joinByNumber(page, '12a');
    await expectToast(page, '请输入正确的教室号');
    await joinByNumber(page, freeMini);
    await waitForPath(page, `/${freeMini}`);
    await expect(page.getByTestId('room-role').innerText()).resolves.toBe('学生');
  });

  it('tells a third person that the free mini class (teacher + 1) is full', async () => {
    const { page } = await world.person();
    await signIn(page, world.server);
    await joinByNumber(page, freeMini);
    await expectToast(page, '教室人数已满，请稍后再试');
    expect(pathOf(page)).toBe('/');
    // Opening the room's address directly ends on the refusal page for a full room (ADR 091),
    // after the pre-join when it shows (ADR 089).
    await open(page, `/${freeMini}`);
    const join = page.getByTestId('prejoin-join');
    await join.or(page.getByTestId('refusal')).first().waitFor();
    if (await join.isVisible()) await join.click();
    await waitForPath(page, `/refused/full?room=${freeMini}`);
    await page.getByRole('heading', { name: '教室人数已满' }).waitFor();
  });
});

describe('tourist', () => {
  it('names a visitor on the name screen and enters the room', async () => {
    const { page } = await world.person();
    await open(page, `/bb/${whiteboard}`);
    expect(pathOf(page)).toBe(`/userName/${whiteboard}`);
    await expect(page.getByRole('link', { name: '老师？去登录' }).getAttribute('href')).resolves.toBe(`/login?redirect=/bb/${whiteboard}`);
    await page.getByRole('button', { name: '进入教室' }).click();
    await expectToast(page, '请输入姓名');
    await page.getByLabel('姓名').fill('  Li Lei  ');
    await page.getByLabel('姓名').press('Enter');
    await waitForPath(page, `/bb/${whiteboard}`);
    await expect(page.getByTestId('room-role').innerText()).resolves.toBe('访客');
    expect(await page.evaluate(() => sessionStorage.getItem('name'))).toBe('Li Lei');
    // A reload keeps the visitor in the room.
    await page.reload();
    await page.getByTestId('room-role').waitFor();
    expect(pathOf(page)).toBe(`/bb/${whiteboard}`);
  });

  it('remembers the live classroom for a teacher who signs in from the name screen', async () => {
    const { page } = await world.person();
    await open(page, `/live/${large}`);
    expect(pathOf(page)).toBe(`/userName/${large}`);
    await page.getByRole('link', { name: '老师？去登录' }).click();
    await waitForPath(page, `/login?redirect=/live/${large}`);
  });
});

describe('guard', () => {
  it('lets a phone join in the browser: the name step, not a download page (ADR 091)', async () => {
    const { page } = await world.person({ userAgent: UA.iphone, viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
    await open(page, `/live/${large}`);
    expect(pathOf(page)).toBe(`/userName/${large}`);
    await page.getByLabel('姓名').waitFor();
    // The mobile download page stays reachable by its address.
    await open(page, '/h5down');
    await page.getByTestId('download-phone-browser').waitFor();
  });

  it('sends an old or unsupported browser to the download page', async () => {
    const { page } = await world.person({ userAgent: UA.oldChrome });
    await open(page, `/${freeMini}`);
    expect(pathOf(page)).toBe('/download/pc');
    await page.getByRole('heading', { name: '当前浏览器无法进入教室' }).waitFor();
    const firefox = (await world.person({ userAgent: UA.firefox })).page;
    await open(firefox, `/record/${freeMini}`);
    expect(pathOf(firefox)).toBe('/download/pc');
  });

  it('refuses a classroom address with an unknown query key on the refusal page', async () => {
    await open(teacher, `/live/${large}?foo=1`);
    await waitForPath(teacher, `/refused/no-permission?room=${large}`);
    await teacher.getByRole('heading', { name: '这个链接无法打开教室' }).waitFor();
  });

  it('sends an unknown room number to the not-found page', async () => {
    await open(teacher, '/live/000002');
    await waitForPath(teacher, '/refused/not-found?room=000002');
    await teacher.getByRole('heading', { name: '没有找到这间教室' }).waitFor();
  });
});

describe('profile', () => {
  it('lists my classrooms and copies an invite link', async () => {
    await open(teacher, '/profile');
    expect(pathOf(teacher)).toBe('/profile/room');
    await teacher.getByText(freeMini).waitFor();
    await teacher.getByText(large).waitFor();
    await teacher.getByRole('button', { name: '复制邀请链接' }).first().click();
    await expectToast(teacher, '已复制');
  });

  it('changes the name from the personal page', async () => {
    await open(teacher, '/profile/personal');
    await teacher.getByRole('button', { name: '修改' }).click();
    const dialog = teacher.getByRole('dialog', { name: '修改姓名' });
    await dialog.getByLabel('姓名').fill('王 老师');
    await dialog.getByRole('button', { name: '保存' }).click();
    await expectToast(teacher, '修改成功');
    await teacher
      .getByTestId('personal-name')
      .filter({ hasText: /^王 老师$/ })
      .waitFor();
    // The header follows the new name too.
    await teacher.getByRole('button', { name: '打开菜单' }).click();
    await teacher.getByText('王 老师', { exact: true }).last().waitFor();
  });
});
