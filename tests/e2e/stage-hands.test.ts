/**
 * Stage and hands as people use them (issue 30, ADR 112): a large class with a teacher and two
 * students, Ann at 1280x720 in Chinese and Ben on a phone (390x844) in English. They raise their
 * hands (Ann by keyboard), the teacher sees the queue in order with waiting times, brings Ann up
 * (she agrees and is seen and heard), then Ben; Ann steps down by herself; "everyone down" empties
 * the stage. Screenshots (SHOTS=dir) of each step's views.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { open, signIn, startWorld, type World } from './helpers.ts';

let world: World;
const SHOTS = process.env['SHOTS'];

async function shot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

interface Person {
  page: Page;
  id: string;
}

async function person(name: string, phone = false, lang: 'zh' | 'en' = 'zh'): Promise<Person> {
  const { page, context } = await world.person({
    ...(phone ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : { viewport: { width: 1280, height: 720 } }),
    ...(lang === 'en' ? { locale: 'en-US' } : {}),
  });
  await context.addCookies([{ name: 'lang', value: lang, url: world.server.url }]);
  await signIn(page, world.server);
  await page.request.post('/api/updateUserName', { data: { userName: name } });
  const res = await page.request.post('/api/queryUserInfoByToken', { data: {} });
  const id = ((await res.json()) as { data: { userInfo: { userId: string } } }).data.userInfo.userId;
  return { page, id };
}

interface Stat {
  userId: string;
  source: string;
  framesDecoded: number;
  totalSamplesReceived: number;
}

/** What `viewer` receives of `who` (the media client's receive statistics): [audio samples, video frames]. */
async function received(viewer: Page, who: string): Promise<[number, number]> {
  const s: Stat[] = await viewer.evaluate(async () => (window.banshuMedia ? await window.banshuMedia.stats() : []));
  const of = (source: string) => s.find((x) => x.userId === who && x.source === source);
  return [of('mic')?.totalSamplesReceived ?? 0, of('camera')?.framesDecoded ?? 0];
}

async function live(p: Person): Promise<void> {
  await p.page.getByTestId('media-controls').and(p.page.locator('[data-status="live"]')).waitFor({ timeout: 30_000 });
}

beforeAll(async () => {
  // The server's clock runs with real time: waiting times and deadlines are the server's.
  world = await startWorld({ realTime: true });
});
afterAll(async () => {
  await world?.close();
});

describe('stage and hands', () => {
  let room = '';
  let teacher: Person;
  let ann: Person;
  let ben: Person;
  const handRows = (p: Page) => p.getByTestId('hand-row');

  it('students raise their hands (one by keyboard, one on a phone); the teacher sees the queue in order with waiting times', async () => {
    teacher = await person('王老师');
    // A big-class package: three people fit.
    await world.server.banshu.platform.services.billingRepo.grant(teacher.id, {
      vip_big_room_people_number: 10,
      vip_big_room_time: new Date(Date.now() + 3600_000),
    });
    const created = await teacher.page.request.post('/api/createRoom', { data: { roomType: 4 } });
    room = ((await created.json()) as { data: { roomInfo: { roomNumber: string } } }).data.roomInfo.roomNumber;
    await open(teacher.page, `/live/${room}`);
    ann = await person('Ann');
    await open(ann.page, `/live/${room}`);
    ben = await person('Ben', true, 'en');
    await open(ben.page, `/live/${room}`);
    await Promise.all([live(teacher), live(ann), live(ben)]);

    // Ann, by keyboard: the hand button is a toggle button.
    const annHand = ann.page.getByTestId('hand-button');
    await annHand.focus();
    await ann.page.keyboard.press('Enter');
    await expect.poll(() => annHand.getAttribute('aria-pressed')).toBe('true');
    await ann.page.getByText('你已举手，等待老师邀请').waitFor();
    // Ben, a moment later, on his phone.
    const benHand = ben.page.getByRole('button', { name: 'Raise hand' });
    await benHand.click();
    await expect.poll(() => ben.page.getByTestId('hand-button').getAttribute('aria-pressed')).toBe('true');

    await teacher.page.getByRole('tab', { name: /^成员（\d+）$/ }).click();
    await expect
      .poll(() => handRows(teacher.page).evaluateAll((rows) => rows.map((r) => r.getAttribute('data-user'))))
      .toEqual([ann.id, ben.id]);
    // The waiting times tick in server time: Ann's moves past 0:01.
    const annWait = handRows(teacher.page).first().getByTestId('hand-wait');
    await expect.poll(async () => /已等 0:0[1-9]|已等 0:[1-5]\d/.test(await annWait.innerText()), { timeout: 10_000 }).toBe(true);
    // The member rows say who has a hand up.
    await teacher.page.locator(`[data-testid="member-row"][data-user="${ben.id}"]`).getByTestId('hand-status').waitFor();
    await shot(teacher.page, 'stage-teacher-hands-1280');
    await shot(ann.page, 'stage-ann-hand-up-1280');
    await shot(ben.page, 'stage-ben-hand-up-phone-en');
  });

  it('the teacher brings Ann up: she agrees, her hand goes down, she is seen and heard, and everyone sees her on stage', async () => {
    await handRows(teacher.page).first().getByRole('button', { name: '邀请上台' }).click();
    const ask = ann.page.getByRole('dialog', { name: '上台邀请' });
    await ask.getByText('老师邀请你上台发言，是否同意？').waitFor();
    await shot(ann.page, 'stage-ann-invited-1280');
    await ask.getByRole('button', { name: '同意' }).click();
    await ann.page.getByTestId('on-stage').waitFor();
    await ann.page.getByText('你在台上，大家能看到你、听到你').waitFor();
    // Her hand is down and she has no hand button while on stage.
    await expect.poll(() => ann.page.getByTestId('hand-button').count()).toBe(0);
    await expect.poll(() => handRows(teacher.page).count()).toBe(1);
    await teacher.page.locator(`[data-testid="stage-row"][data-user="${ann.id}"]`).waitFor();
    await expect.poll(() => teacher.page.getByTestId('stage-seats').innerText()).toBe('台上 1/6');
    // Ben sees her on stage, in English.
    await ben.page.locator(`[data-testid="stage-strip"] [data-user="${ann.id}"]`).getByText('On stage').waitFor();
    // The media node lets her send camera and microphone, and the teacher receives both.
    await expect
      .poll(async () => (await received(teacher.page, ann.id)).every((n) => n > 0), {
        timeout: 30_000,
        message: 'Ann on stage is seen and heard',
      })
      .toBe(true);
    await shot(teacher.page, 'stage-teacher-ann-on-1280');
    await shot(ann.page, 'stage-ann-on-1280');
    await shot(ben.page, 'stage-ben-sees-ann-phone-en');
  });

  it('Ben comes up on his phone; Ann steps down herself; everyone down empties the stage and takes the rights back', async () => {
    await handRows(teacher.page).first().getByRole('button', { name: '邀请上台' }).click();
    await ben.page.getByRole('dialog', { name: 'Invitation to the stage' }).getByRole('button', { name: 'Agree' }).click();
    await ben.page.getByTestId('on-stage').waitFor();
    await expect.poll(() => teacher.page.getByTestId('stage-seats').innerText()).toBe('台上 2/6');
    await shot(ben.page, 'stage-ben-on-phone-en');
    await shot(teacher.page, 'stage-teacher-two-on-1280');

    await ann.page.getByTestId('on-stage').getByRole('button', { name: '下台' }).click();
    await ann.page.getByTestId('on-stage').waitFor({ state: 'detached' });
    await ann.page.getByTestId('hand-button').waitFor();
    await expect.poll(() => teacher.page.getByTestId('stage-seats').innerText()).toBe('台上 1/6');

    await teacher.page.getByTestId('stage-all-down').click();
    await ben.page.getByTestId('on-stage').waitFor({ state: 'detached' });
    await ben.page.getByRole('button', { name: 'Raise hand' }).waitFor();
    await expect.poll(() => teacher.page.getByTestId('stage-seats').innerText()).toBe('台上 0/6');
    // The media node took their rights back at once.
    const node = world.server.banshu.media!.server.rooms.get(room)!;
    const rightsOf = (id: string) => [...node.peers.values()].filter((p) => p.userId === id).flatMap((p) => p.rights);
    await expect.poll(() => [...rightsOf(ann.id), ...rightsOf(ben.id)]).toEqual([]);
    await shot(teacher.page, 'stage-teacher-empty-1280');
    await shot(ben.page, 'stage-ben-down-phone-en');
  });
});
