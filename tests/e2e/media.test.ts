/**
 * Audio and video in the classroom, four Chromium contexts on fake devices: a paid mini class
 * where every tile decodes and every microphone is heard, a mute that stops one, the teacher
 * leaving; then a large class where a student publishes only once invited to the microphone.
 * Prints the join-to-first-frame time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { open, signIn, startWorld, type World } from './helpers.ts';

let world: World;

interface Stat {
  userId: string;
  source: string;
  framesDecoded: number;
  totalSamplesReceived: number;
  packetsReceived: number;
  frameWidth: number;
}

async function stats(page: Page): Promise<Stat[]> {
  return page.evaluate(async () => (window.banshuMedia ? await window.banshuMedia.stats() : []));
}

/** Polls the page's receive statistics until `check` holds. */
async function until(page: Page, check: (s: Stat[]) => boolean, what: string, timeoutMs = 20_000): Promise<Stat[]> {
  const end = Date.now() + timeoutMs;
  let last: Stat[] = [];
  while (Date.now() < end) {
    last = await stats(page);
    if (check(last)) return last;
    await page.waitForTimeout(200);
  }
  throw new Error(`${what}: not within ${timeoutMs} ms; last stats ${JSON.stringify(last)}`);
}

const of = (s: Stat[], userId: string, source: string) => s.find((x) => x.userId === userId && x.source === source);

async function me(page: Page): Promise<string> {
  const res = await page.request.post('/api/queryUserInfoByToken', { data: {} });
  return ((await res.json()) as { data: { userInfo: { userId: string } } }).data.userInfo.userId;
}

async function rename(page: Page, name: string): Promise<void> {
  await page.request.post('/api/updateUserName', { data: { userName: name } });
}

async function person(name: string): Promise<{ page: Page; id: string }> {
  const { page } = await world.person();
  await signIn(page, world.server);
  await rename(page, name);
  return { page, id: await me(page) };
}

beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world?.close();
});

describe('paid mini class with four people', () => {
  const people: Array<{ page: Page; id: string; name: string }> = [];
  let room = '';

  it('every tile decodes and every microphone is heard; join to first frame is printed', async () => {
    const teacher = await person('Teacher');
    await world.server.banshu.platform.services.billingRepo.grant(teacher.id, { vip_room_time: new Date(Date.now() + 86400_000) });
    const created = await teacher.page.request.post('/api/createAgoraRoom', { data: { roomType: 1, consumption: 'on' } });
    room = ((await created.json()) as { data: { roomInfo: { roomNumber: string } } }).data.roomInfo.roomNumber;
    await open(teacher.page, `/${room}`);
    await teacher.page.getByTestId('media-controls').and(teacher.page.locator('[data-status="live"]')).waitFor();
    people.push({ ...teacher, name: 'Teacher' });
    for (const name of ['Ann', 'Ben']) {
      const p = await person(name);
      await open(p.page, `/${room}`);
      people.push({ ...p, name });
    }
    // The fourth person: from opening the classroom to the first decoded frame of the teacher.
    // Timed in the page against its own navigation start, with the statistics read every 20 ms
    // there (reading them from the test every 200 ms would add up to 200 ms of polling).
    const last = await person('Cat');
    await last.page.goto(`/${room}`);
    const firstFrameMs = await last.page.evaluate(async (teacherId) => {
      const end = performance.now() + 20_000;
      while (performance.now() < end) {
        const s = window.banshuMedia ? await window.banshuMedia.stats() : [];
        if (s.some((x) => x.userId === teacherId && x.source === 'camera' && (x.framesDecoded ?? 0) > 0))
          return Math.round(performance.now());
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error('no first frame within 20 s');
    }, teacher.id);
    people.push({ ...last, name: 'Cat' });
    process.stdout.write(`\n  join to first frame (page open -> teacher's first decoded frame): ${firstFrameMs} ms\n`);

    for (const p of people) {
      const others = people.filter((o) => o !== p);
      const first = await until(
        p.page,
        (s) => others.every((o) => (of(s, o.id, 'camera')?.framesDecoded ?? 0) > 0 && (of(s, o.id, 'mic')?.totalSamplesReceived ?? 0) > 0),
        `${p.name} receives everyone`,
      );
      // Still flowing: every picture and every voice keeps growing (polled: a loaded machine stalls a decoder for a moment).
      await until(
        p.page,
        (later) =>
          others.every(
            (o) =>
              of(later, o.id, 'camera')!.framesDecoded > of(first, o.id, 'camera')!.framesDecoded &&
              of(later, o.id, 'mic')!.totalSamplesReceived > of(first, o.id, 'mic')!.totalSamplesReceived,
          ),
        `${p.name} keeps decoding and hearing everyone`,
        10_000,
      );
      await expect.poll(() => p.page.locator('[data-testid="media-tile"][data-has-video="true"]').count(), { timeout: 10_000 }).toBe(4);
    }
  });

  it('simulcast: three others are shown at 180p; the tile made speaker switches to 360p', async () => {
    const [, ann, ben] = people as [(typeof people)[0], (typeof people)[0], (typeof people)[0]];
    await until(ann.page, (s) => of(s, ben.id, 'camera')?.frameWidth === 320, "Ben's low layer at Ann");
    expect(await ann.page.evaluate(() => window.banshuMedia?.layers())).toMatchObject({ [ben.id]: 'l' });
    await ann.page.locator(`[data-testid="media-tile"][data-user="${ben.id}"] [data-testid="tile-pin"]`).click();
    await until(ann.page, (s) => of(s, ben.id, 'camera')?.frameWidth === 640, "Ben's 360p layer after the click");
    // Back to the room's profile when the speaker is cleared.
    await ann.page.locator(`[data-testid="media-tile"][data-user="${ben.id}"] [data-testid="tile-pin"]`).click();
    await until(ann.page, (s) => of(s, ben.id, 'camera')?.frameWidth === 320, "Ben's low layer again");
  });

  it('switches the camera from the device settings and the others keep decoding it', async () => {
    const [, ann, ben] = people as [(typeof people)[0], (typeof people)[0], (typeof people)[0]];
    await ann.page.getByTestId('device-settings-open').click();
    const picker = ann.page.getByTestId('device-settings').getByTestId('pick-videoinput');
    const id = await picker.locator('option').nth(1).getAttribute('value');
    await picker.selectOption(id);
    expect(JSON.parse((await ann.page.evaluate(() => localStorage.getItem('device-configure')))!)).toMatchObject({ videoDeviceId: id });
    await ann.page.keyboard.press('Escape');
    const before = of(await stats(ben.page), ann.id, 'camera')!.framesDecoded;
    await until(ben.page, (s) => of(s, ann.id, 'camera')!.framesDecoded > before + 10, "Ann's switched camera at Ben");
  });

  it('a shared screen is decoded by the others and ends when another view is chosen', async () => {
    const [teacher, ann] = people as [(typeof people)[0], (typeof people)[0]];
    await teacher.page.getByTestId('view-screen').click();
    await teacher.page.getByTestId('start-share').click();
    await until(ann.page, (s) => (of(s, teacher.id, 'screen')?.framesDecoded ?? 0) > 0, 'the screen decoded at Ann');
    await ann.page.getByTestId('screen-view').locator('video').waitFor();
    await ann.page.getByText('屏幕共享正在向所有人展示').waitFor();
    await teacher.page.getByTestId('view-video').click();
    await until(ann.page, (s) => !of(s, teacher.id, 'screen'), 'the share ended at Ann', 5000);
  });

  it('a student whose media connection drops comes back within the countdown and decodes again', async () => {
    const [teacher, ann] = people as [(typeof people)[0], (typeof people)[0]];
    const controls = ann.page.getByTestId('media-controls');
    // The media socket's transport dies as in a network drop (Chromium's offline emulation leaves
    // open WebSockets and UDP alone, so it cannot stand in for one).
    const media = world.server.banshu.web!.io.of('/media');
    const dropped = Date.now();
    for (const s of media.sockets.values()) if ((s.data as { userId?: string }).userId === ann.id) s.conn.close();
    await expect.poll(() => controls.getAttribute('data-status'), { timeout: 5000 }).toBe('offline');
    await expect.poll(() => controls.getAttribute('data-status'), { timeout: 15_000 }).toBe('live');
    expect(Date.now() - dropped).toBeLessThan(10_000);
    const back = await until(ann.page, (s) => (of(s, teacher.id, 'camera')?.framesDecoded ?? 0) > 0, 'decoding after the reconnect');
    const later = await until(
      ann.page,
      (s) => (of(s, teacher.id, 'camera')?.framesDecoded ?? 0) > of(back, teacher.id, 'camera')!.framesDecoded,
      'frames keep coming after the reconnect',
    );
    expect(of(later, teacher.id, 'camera')!.framesDecoded).toBeGreaterThan(of(back, teacher.id, 'camera')!.framesDecoded);
  });

  it('a mute stops that audio for everyone and shows on the tile; unmute brings it back', async () => {
    const [teacher, ann] = people as [(typeof people)[0], (typeof people)[0]];
    await teacher.page.getByTestId('toggle-mic').click();
    const tile = ann.page.locator(`[data-testid="media-tile"][data-user="${teacher.id}"] [data-testid="tile-mic"]`);
    await expect.poll(() => tile.getAttribute('data-muted'), { timeout: 10_000 }).toBe('true');
    // Packets already on their way still land: wait until two reads 200 ms apart agree.
    let previous = -1;
    const settled = await until(
      ann.page,
      (s) => {
        const now = of(s, teacher.id, 'mic')?.packetsReceived ?? -1;
        const same = now >= 0 && now === previous;
        previous = now;
        return same;
      },
      'the muted audio to stop arriving',
    );
    const before = of(settled, teacher.id, 'mic')!.packetsReceived;
    // The subject is a stretch of time in which nothing may arrive (audio runs at 50 packets a
    // second), so this one wait is fixed on purpose.
    await ann.page.waitForTimeout(1000);
    expect(of(await stats(ann.page), teacher.id, 'mic')!.packetsReceived).toBe(before);
    await teacher.page.getByTestId('toggle-mic').click();
    await expect.poll(() => tile.getAttribute('data-muted'), { timeout: 10_000 }).toBe('false');
    await until(ann.page, (s) => of(s, teacher.id, 'mic')!.packetsReceived > before + 10, 'audio after unmute');
  });

  it('a camera and a microphone the node loses (their connection failed there) are published again and decoded', async () => {
    const [teacher, ann] = people as [(typeof people)[0], (typeof people)[0]];
    const node = world.server.banshu.media!.server.rooms.get(room)!;
    const mine = () => [...node.publications.values()].filter((p) => p.userId === teacher.id && p.source !== 'screen');
    const lost = mine().map((p) => p.id);
    expect(lost).toHaveLength(2);
    for (const p of mine()) p.close();
    // New publications, and Ann subscribed to them with packets flowing.
    await expect
      .poll(
        () => {
          const now = mine();
          if (now.length !== 2 || now.some((p) => lost.includes(p.id))) return 'not yet published again';
          const annPeer = [...node.peers.values()].find((p) => p.userId === ann.id)!;
          const subs = [...annPeer.subscriptions.values()].filter((x) => now.some((p) => p.id === x.publication.id));
          return subs.length === 2 && subs.every((x) => x.packets > 0) ? 'flowing' : 'not yet subscribed';
        },
        { timeout: 20_000 },
      )
      .toBe('flowing');
    await until(
      ann.page,
      (s) => (of(s, teacher.id, 'camera')?.framesDecoded ?? 0) > 0 && (of(s, teacher.id, 'mic')?.totalSamplesReceived ?? 0) > 0,
      'Ann decodes and hears the teacher again',
    );
  });

  it('the teacher leaving shows "teacher not online"', async () => {
    const [teacher, ann] = people as [(typeof people)[0], (typeof people)[0]];
    await teacher.page.close();
    await ann.page.getByTestId('tile-teacher-absent').getByText('老师不在线').waitFor();
    await until(ann.page, (s) => !of(s, teacher.id, 'camera'), 'teacher tracks removed', 5000);
  });

  // The class is over: its three remaining browsers stop publishing, so the large class below does
  // not share the two cores with them (beside them, its student once received nothing in 20 s).
  afterAll(async () => {
    await Promise.allSettled(people.map((p) => p.page.context().close()));
  });
});

describe('large class', () => {
  it('a student cannot publish until brought on stage', async () => {
    const teacher = await person('Lead');
    const created = await teacher.page.request.post('/api/createRoom', { data: { roomType: 4 } });
    const room = ((await created.json()) as { data: { roomInfo: { roomNumber: string } } }).data.roomInfo.roomNumber;
    await open(teacher.page, `/live/${room}`);
    const student = await person('Dan');
    await open(student.page, `/live/${room}`);
    // The student sees and hears the teacher, has no microphone button, and sends nothing.
    await until(
      student.page,
      (s) => (of(s, teacher.id, 'camera')?.framesDecoded ?? 0) > 0 && (of(s, teacher.id, 'mic')?.totalSamplesReceived ?? 0) > 0,
      'student receives',
    ).catch(async (err: unknown) => {
      // What the node and the student's page held: where a class that shows nothing stopped.
      const status = await student.page
        .getByTestId('media-controls')
        .getAttribute('data-status')
        .catch(() => 'none');
      throw new Error(
        `${String(err)}; student media status ${String(status)}; node ${JSON.stringify(world.server.banshu.media!.server.serialize())}`,
      );
    });
    expect(await student.page.getByTestId('toggle-mic').count()).toBe(0);
    // A stretch of time in which nothing may arrive from the student is the subject: fixed on purpose.
    await teacher.page.waitForTimeout(1000);
    expect(of(await stats(teacher.page), student.id, 'mic')).toBeUndefined();

    await teacher.page.getByRole('tab', { name: /^成员（\d+）$/ }).click();
    await teacher.page.getByTestId('member-row').filter({ hasText: 'Dan' }).getByRole('button', { name: '邀请上台' }).click();
    await student.page.getByRole('dialog', { name: '上台邀请' }).getByRole('button', { name: '同意' }).click();
    await until(teacher.page, (s) => (of(s, student.id, 'mic')?.totalSamplesReceived ?? 0) > 0, 'the invited student is heard');
    // On stage, a large class's student is seen too (ADR 112).
    await until(teacher.page, (s) => (of(s, student.id, 'camera')?.framesDecoded ?? 0) > 0, 'the student on stage is seen');
  });
});
