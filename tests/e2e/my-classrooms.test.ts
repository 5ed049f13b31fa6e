/**
 * "My classrooms" /profile/room (issue 16, ADR 087): a teacher with 15 rooms sees them 12 to a
 * page with their status (open, in class now, ended), pages by keyboard, filters by type on the
 * server, ends an open class and deletes an ended one, each after a confirm that names the room;
 * a new teacher sees the empty state with its call to action. One world; tests run in order.
 * (Someone else ending or deleting is refused by the server: tests/integration/my-rooms.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { open, signIn, startWorld, type World } from './helpers.ts';

let world: World;
let teacher: Page;
const rooms: Array<{ number: string; type: number }> = [];
const SHOTS = process.env['SHOTS'] ?? '';

async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/my-classrooms-${name}.png`, fullPage: true });
}

const cards = (page: Page) => page.getByTestId('room-list').locator('> li');
const card = (page: Page, number: string) => page.getByTestId(`room-${number}`);

beforeAll(async () => {
  world = await startWorld();
  teacher = (await world.person()).page;
  await signIn(teacher, world.server);
  // 15 rooms, oldest first: audio classes (3) and whiteboard classes (2), and one free mini class last.
  for (let i = 0; i < 14; i++) {
    const type = i % 3 === 0 ? 3 : 2;
    const res = await teacher.request.post('/api/createRoom', { data: { roomType: type } });
    const body = (await res.json()) as { code: string; data: { roomInfo: { roomNumber: string } } };
    expect(body.code).toBe('0');
    rooms.unshift({ number: body.data.roomInfo.roomNumber, type });
    world.server.clock.advance(60_000);
  }
  const mini = await teacher.request.post('/api/createAgoraRoom', { data: { roomType: 1, consumption: 'off' } });
  rooms.unshift({ number: ((await mini.json()) as { data: { roomInfo: { roomNumber: string } } }).data.roomInfo.roomNumber, type: 1 });
}, 60_000);
afterAll(async () => {
  await world?.close();
});

describe('my classrooms', () => {
  it('shows 12 rooms a page, newest first, with status and the total; pages by keyboard', async () => {
    await open(teacher, '/profile/room');
    await expect(cards(teacher).count()).resolves.toBe(12);
    await expect(teacher.getByTestId('rooms-total').innerText()).resolves.toBe('共 15 间');
    await expect(cards(teacher).first().getAttribute('data-testid')).resolves.toBe(`room-${rooms[0]!.number}`);
    await expect(card(teacher, rooms[0]!.number).getByTestId('room-status').innerText()).resolves.toBe('进行中');
    await shot(teacher, 'page-1');
    // The page links are links: Tab reaches them, Enter follows.
    const two = teacher.getByTestId('rooms-pages').getByRole('link', { name: '第 2 页' });
    await two.focus();
    await teacher.keyboard.press('Enter');
    await teacher.waitForURL((u) => u.search === '?page=2');
    await expect.poll(() => cards(teacher).count()).toBe(3);
    await expect(cards(teacher).last().getAttribute('data-testid')).resolves.toBe(`room-${rooms[14]!.number}`);
    expect(await teacher.getByTestId('rooms-pages').getByRole('link', { name: '第 2 页' }).getAttribute('aria-current')).toBe('page');
    await teacher.getByTestId('rooms-prev').click();
    await teacher.waitForURL((u) => u.search === '');
    await expect.poll(() => cards(teacher).count()).toBe(12);
  });

  it('filters by type on the server', async () => {
    await teacher.getByTestId('rooms-filter-3').click();
    await teacher.waitForURL((u) => u.search === '?type=3');
    const audio = rooms.filter((r) => r.type === 3);
    await expect.poll(() => cards(teacher).count()).toBe(audio.length);
    await expect(teacher.getByTestId('rooms-total').innerText()).resolves.toBe(`共 ${String(audio.length)} 间`);
    for (const r of audio) await card(teacher, r.number).waitFor();
    expect(await teacher.getByTestId('rooms-filter-3').getAttribute('aria-current')).toBe('page');
    expect(await teacher.getByTestId('rooms-pages').count()).toBe(0);
    await teacher.getByTestId('rooms-filter-4').click();
    await teacher.getByTestId('rooms-empty').waitFor();
    await teacher.getByRole('link', { name: '全部', exact: true }).click();
    await expect.poll(() => cards(teacher).count()).toBe(12);
  });

  it('shows a class in progress as live', async () => {
    const student = (await world.person()).page;
    await signIn(student, world.server);
    await open(student, `/bb/${rooms[1]!.number}`);
    await student.getByTestId('view-area').waitFor({ timeout: 20_000 });
    // In the room once its channel has sent the members.
    await student.locator('[data-testid="member-row"]').first().waitFor({ state: 'attached' });
    await open(teacher, '/profile/room');
    await expect(card(teacher, rooms[1]!.number).getByTestId('room-status').innerText()).resolves.toBe('正在上课');
    await expect(card(teacher, rooms[2]!.number).getByTestId('room-status').innerText()).resolves.toBe('进行中');
    await student.context().close();
  });

  it('ends an open class after a confirm naming it, and deletes it once ended', async () => {
    const number = rooms[0]!.number;
    const row = card(teacher, number);
    await row.getByTestId('room-end').click();
    const dialog = teacher.getByTestId('confirm-dialog');
    await dialog.getByRole('heading', { name: `结束教室 ${number} 的课堂？` }).waitFor();
    await shot(teacher, 'end-confirm');
    // Cancel keeps it open.
    await dialog.getByTestId('confirm-cancel').click();
    await dialog.waitFor({ state: 'detached' });
    await expect(row.getByTestId('room-status').innerText()).resolves.toBe('进行中');
    await row.getByTestId('room-end').click();
    await teacher.getByTestId('confirm-dialog').getByTestId('confirm-ok').click();
    await expect.poll(() => row.getByTestId('room-status').innerText()).toBe('已结束');
    const info = await teacher.request.post('/api/getRoomInfoByRoomNumber', { data: { roomNumber: number } });
    expect(((await info.json()) as { code: string }).code).not.toBe('0');
    // Ended: no end button; delete, after a confirm.
    expect(await row.getByTestId('room-end').count()).toBe(0);
    await row.getByRole('button', { name: `删除教室 ${number}` }).click();
    await teacher
      .getByTestId('confirm-dialog')
      .getByRole('heading', { name: `从列表中删除教室 ${number}？` })
      .waitFor();
    await teacher.getByTestId('confirm-dialog').getByTestId('confirm-ok').click();
    await row.waitFor({ state: 'detached' });
    await expect(teacher.getByTestId('rooms-total').innerText()).resolves.toBe('共 14 间');
    // Gone for good: the server lists it no more.
    const list = await teacher.request.post('/api/getMyRoomList', { data: { page: 1, pageSize: 50 } });
    const numbers = ((await list.json()) as { data: { roomList: Array<{ roomNumber: string }> } }).data.roomList.map((r) => r.roomNumber);
    expect(numbers).not.toContain(number);
    expect(numbers).toHaveLength(14);
  });

  it('speaks English', async () => {
    await teacher.getByTestId('lang-switch').first().click();
    await teacher.getByTestId('rooms-total').filter({ hasText: '14 in total' }).waitFor();
    await expect(card(teacher, rooms[1]!.number).getByRole('button', { name: 'End class' }).count()).resolves.toBe(1);
    await shot(teacher, 'en');
    await teacher.getByTestId('lang-switch').first().click();
    await teacher.getByTestId('rooms-total').filter({ hasText: '共 14 间' }).waitFor();
  });

  it('greets a new teacher with an empty state and a way to create a room', async () => {
    const fresh = (await world.person()).page;
    await signIn(fresh, world.server);
    await open(fresh, '/profile/room');
    const empty = fresh.getByTestId('rooms-empty');
    await empty.getByRole('heading', { name: '还没有教室' }).waitFor();
    await empty.getByRole('link', { name: '创建教室' }).click();
    await fresh.waitForURL((u) => u.pathname === '/');
  });
});

describe('the landing page', () => {
  it('shows the packages and prices of the goods list, the download section, and no contact section without details', async () => {
    const visitor = (await world.person()).page;
    await open(visitor, '/home');
    const goods = world.server.banshu.platform.services.orders.getGoodsList({ pageSize: 50 }, 'zh').goodsList;
    expect(goods.length).toBeGreaterThan(0);
    for (const g of goods) {
      const text = await visitor.getByTestId(`price-${g.goodsId}`).innerText();
      expect(text).toContain(g.goodsName);
      expect(text).toContain(`¥${(g.goodsPrice / 100).toFixed(2)}`);
    }
    await visitor.locator('section#download').waitFor();
    expect(await visitor.getByTestId('home-contact').count()).toBe(0);
    expect(await visitor.getByRole('link', { name: '联系' }).count()).toBe(0);
    await expect(visitor.getByTestId('hero-shot').getAttribute('src')).resolves.toBe('/landing/zh-hero.jpg');
  });
});
