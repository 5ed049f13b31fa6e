/**
 * A real class and every page of the product, visited at 1280x720 and 390x844 in Chinese and
 * English (ADR 087): one module for the layout suite (tests/e2e/layout.test.ts, which checks each
 * stop) and `npm run screenshots` (scripts/screenshots.ts, which photographs each stop). The class
 * is a paid mini class of a teacher, a student at a computer and a student on a phone, with ink on
 * the board, a converted PDF and chat lines.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { simplePdf, testMp4, writeFixture } from '#tests/fixtures/courseware.ts';
import { newMobile, open, signIn, UA, type World } from './helpers.ts';

export type Lang = 'zh' | 'en';
export type Size = '1280' | '390';
export const VIEWPORTS: Record<Size, { width: number; height: number }> = {
  '1280': { width: 1280, height: 720 },
  '390': { width: 390, height: 844 },
};
/** The operator's contact settings (ADR 087): the landing page shows them. */
export const CONTACT = { CONTACT_EMAIL: 'school@banshu.example', CONTACT_PHONE: '400-820-1234', CONTACT_WECHAT: 'banshu-class' };
/** The class's teacher's number: the operator too (ADMIN_MOBILES), so the tour reaches the operator's page. */
const TEACHER_MOBILE = newMobile();
/** The world's settings for the tour: the contact details and the operator. */
export const TOUR_ENV = { ...CONTACT, ADMIN_MOBILES: TEACHER_MOBILE };
export const PHONE = { userAgent: UA.iphone, viewport: VIEWPORTS['390'], hasTouch: true, isMobile: true } as const;

/** Names under 10 characters: shown whole everywhere. */
export const NAMES = { teacher: '王老师', student: '李小明', phone: 'Emma Chen' };

export interface Person {
  context: BrowserContext;
  page: Page;
  id: string;
  mobile: string;
}

export interface Cast {
  room: string;
  teacher: Person;
  student: Person;
  phone: Person;
  /** Not signed in, at a computer and on a phone. */
  visitor: Page;
  visitorPhone: Page;
  /** The teacher signed in again, at a computer and on a phone, for the account pages (the pre-join is not passed there). */
  teacherDesk: Page;
  teacherPhone: Page;
  /** A share link of the teacher's newest recording: its watch page's path. */
  watch: string;
  /** The teacher's phone picture page for the board, as its QR code opens it (with a board token). */
  upload: string;
}

async function me(page: Page): Promise<string> {
  const res = await page.request.post('/api/queryUserInfoByToken', { data: {} });
  return ((await res.json()) as { data: { userInfo: { userId: string } } }).data.userInfo.userId;
}

export async function setLang(context: BrowserContext, url: string, lang: Lang): Promise<void> {
  await context.addCookies([{ name: 'lang', value: lang, url }]);
}

async function person(world: World, name: string, phone: boolean, mobile = newMobile()): Promise<Person> {
  const { context, page } = await world.person(phone ? PHONE : {});
  context.setDefaultTimeout(20_000);
  await signIn(page, world.server, mobile);
  await page.request.post('/api/updateUserName', { data: { userName: name } });
  return { context, page, id: await me(page), mobile };
}

export const slideReady = (page: Page) => page.locator('[data-testid="courseware-loaded"][data-slide-ready="1"]');

/** The view every classroom page shows now is `view`. */
export async function showView(cast: Cast, view: 'video' | 'wb' | 'ppt'): Promise<void> {
  const { teacher, student, phone } = cast;
  await teacher.page.getByTestId(`view-${view}`).click();
  for (const p of [teacher.page, student.page, phone.page]) await p.locator(`[data-testid="view-area"][data-view="${view}"]`).waitFor();
  if (view === 'ppt') for (const p of [teacher.page, student.page, phone.page]) await slideReady(p).waitFor({ timeout: 30_000 });
}

/** A few strokes of ink on the teacher's board (a shape like a written sum). */
async function ink(page: Page): Promise<void> {
  const box = (await page.getByTestId('board-overlay').boundingBox())!;
  const strokes: Array<Array<[number, number]>> = [
    [
      [0.12, 0.2],
      [0.2, 0.35],
      [0.28, 0.2],
    ],
    [
      [0.34, 0.28],
      [0.44, 0.28],
    ],
    [
      [0.39, 0.22],
      [0.39, 0.34],
    ],
    [
      [0.5, 0.2],
      [0.58, 0.2],
      [0.5, 0.36],
      [0.6, 0.36],
    ],
    [
      [0.15, 0.55],
      [0.75, 0.5],
    ],
  ];
  for (const s of strokes) {
    const [x0, y0] = s[0]!;
    await page.mouse.move(box.x + box.width * x0, box.y + box.height * y0);
    await page.mouse.down();
    for (const [x, y] of s.slice(1)) await page.mouse.move(box.x + box.width * x, box.y + box.height * y, { steps: 8 });
    await page.mouse.up();
  }
}

/**
 * The class: the teacher (VIP, so three may take part) opens a mini class and shows a converted
 * PDF, writes on the board, the two students enter (the pre-join passed by the world's persons),
 * and everyone chats. Needs a world with `jobs: true` (the conversion).
 */
export async function makeClass(world: World, dir: string): Promise<Cast> {
  const pdf = await writeFixture(dir, 'lesson.pdf', simplePdf(3));
  const [teacher, student, phone] = await Promise.all([
    person(world, NAMES.teacher, false, TEACHER_MOBILE),
    person(world, NAMES.student, false),
    person(world, NAMES.phone, true),
  ]);
  await world.server.banshu.platform.services.billingRepo.grant(teacher.id, { vip_room_time: new Date(Date.now() + 30 * 86400_000) });
  // Earlier classes in the teacher's list: two ended, two still open.
  for (const [i, type] of [2, 3, 2, 3].entries()) {
    const made = await teacher.page.request.post('/api/createRoom', { data: { roomType: type } });
    const number = ((await made.json()) as { data: { roomInfo: { roomNumber: string } } }).data.roomInfo.roomNumber;
    if (i < 2) await teacher.page.request.post('/api/endMyRoom', { data: { roomNumber: number } });
  }
  // A paid mini class (the VIP's 1-to-3), made as the lobby's card makes it.
  const created = await teacher.page.request.post('/api/createAgoraRoom', { data: { roomType: 1, consumption: 'on' } });
  const room = ((await created.json()) as { data: { roomInfo: { roomNumber: string } } }).data.roomInfo.roomNumber;
  await open(teacher.page, `/${room}`);
  await teacher.page.getByTestId('top-bar').waitFor({ timeout: 30_000 });
  await teacher.page.getByTestId('view-ppt').click();
  await teacher.page.getByTestId('courseware-file').setInputFiles(pdf);
  await teacher.page.locator('[data-testid="courseware-loaded"][data-total="3"][data-slide-ready="1"]').waitFor({ timeout: 120_000 });
  await teacher.page.getByTestId('view-wb').click();
  await teacher.page.locator('[data-testid="board"][data-status="live"]').waitFor();
  await ink(teacher.page);
  for (const p of [student.page, phone.page]) {
    await open(p, `/${room}`);
    await p.getByTestId('view-area').waitFor({ timeout: 30_000 });
  }
  // Everyone's camera on everyone's stage.
  for (const p of [teacher.page, student.page])
    await p.locator('[data-testid="media-tile"][data-has-video="true"]').nth(2).waitFor({ timeout: 30_000 });
  await chat(teacher.page, '同学们好，今天讲分数的加法。');
  await chat(student.page, '老师好！');
  await chat(phone.page, 'Hello from my phone');
  for (const p of [teacher.page, student.page]) await p.getByTestId('chat-line').filter({ hasText: 'Hello from my phone' }).waitFor();

  const newest = await seedRecordings(world, teacher.id, room, dir);
  const shared = await teacher.page.request.post('/api/createRecordShareLink', { data: { fileId: newest } });
  const watch = new URL(((await shared.json()) as { data: { url: string } }).data.url).pathname;
  const minted = await teacher.page.request.post('/api/createWbToken', { data: { userId: teacher.id, channelId: room } });
  const boardToken = ((await minted.json()) as { data: { token: string } }).data.token;
  const upload = `/upload/${teacher.id}/${room}?t=${encodeURIComponent(boardToken)}&p=0`;
  const manual = { preJoin: 'manual' } as const;
  const visitor = (await world.person({}, manual)).page;
  const visitorPhone = (await world.person(PHONE, manual)).page;
  const teacherDesk = (await world.person({}, manual)).page;
  const teacherPhone = (await world.person(PHONE, manual)).page;
  // The teacher's session in two more browsers (a second code would wait out the resend interval).
  const session = await teacher.context.cookies();
  for (const p of [teacherDesk, teacherPhone]) await p.context().addCookies(session);
  return { room, teacher, student, phone, visitor, visitorPhone, teacherDesk, teacherPhone, watch, upload };
}

/**
 * Past classes' recordings in the teacher's library (rows as the recorder leaves them; making real
 * ones takes their length in real time), so the library is photographed as a teacher sees it. The
 * newest has a real video in the store (a short test clip, for the watch page); returns its id.
 */
async function seedRecordings(world: World, userId: string, room: string, dir: string): Promise<string> {
  const db = world.server.banshu.platform.database.db;
  const lessons = ['分数的加法', '分数的减法', '小数的认识', '几何入门：三角形'];
  const now = Date.now();
  const clip = new Uint8Array(await readFile(await testMp4(path.join(dir, 'lesson.mp4'), 4)));
  const key = `records/${userId}/seed/0.mp4`;
  await world.server.banshu.platform.objects.put(key, clip, 'video/mp4');
  let newest = '';
  for (const [i, name] of lessons.entries()) {
    const row = await db
      .insertInto('records')
      .values({
        user_id: userId,
        type: 2,
        room_number: room,
        file_name: name,
        // The newest says what its clip is; the others as past lessons would be.
        file_size: i === 0 ? clip.byteLength : (38 + i * 7) * 1024 * 1024,
        duration_ms: i === 0 ? 4000 : (40 + i * 3) * 60_000,
        created_at: new Date(now - (i + 1) * 86400_000),
        object_key: `records/${userId}/seed/${String(i)}.mp4`,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (i === 0) newest = String(row.id);
  }
  return newest;
}

async function chat(page: Page, text: string): Promise<void> {
  let input = page.getByTestId('chat-input');
  if (!(await input.isVisible())) {
    await page
      .getByRole('tab', { name: /聊天|Chat/ })
      .first()
      .click();
    input = page.getByTestId('chat-input');
  }
  await input.fill(text);
  await input.press('Enter');
  await page.getByTestId('chat-line').filter({ hasText: text }).first().waitFor();
}

/** A page of the site: who opens it (signed-in teacher or nobody) and the element that says it is ready. */
export interface PageStop {
  name: string;
  path: (cast: Cast) => string;
  who: 'teacher' | 'visitor';
  ready?: string;
  /** A page that does not hydrate (the error boundary). */
  static?: boolean;
}

export const PAGES: PageStop[] = [
  { name: 'home', path: () => '/home', who: 'visitor', ready: '[data-testid="home-room"]' },
  { name: 'login', path: () => '/login', who: 'visitor', ready: '[data-testid="login-room"]' },
  { name: 'lobby', path: () => '/', who: 'teacher' },
  { name: 'my-classrooms', path: () => '/profile/room', who: 'teacher', ready: '[data-testid="room-list"], [data-testid="rooms-empty"]' },
  { name: 'recordings', path: () => '/profile/record', who: 'teacher', ready: '[data-testid="record-row"]' },
  { name: 'personal', path: () => '/profile/personal', who: 'teacher' },
  { name: 'payment', path: () => '/profile/payment', who: 'teacher' },
  { name: 'messages', path: () => '/profile/message', who: 'teacher' },
  { name: 'feedback', path: () => '/profile/feedback', who: 'teacher' },
  { name: 'devices', path: () => '/profile/device', who: 'teacher' },
  { name: 'help', path: () => '/help/web', who: 'visitor' },
  { name: 'download', path: () => '/download/pc', who: 'visitor' },
  // The download page for a phone, and /download (the visitor's own system's page); ADR 103.
  { name: 'download-ios', path: () => '/download/ios', who: 'visitor', ready: '[data-testid="download-phone-browser"]' },
  { name: 'download-default', path: () => '/download', who: 'visitor', ready: '[data-testid="download-computer"]' },
  { name: 'visitor-name', path: (c) => `/userName/${c.room}`, who: 'visitor' },
  { name: 'prejoin', path: (c) => `/${c.room}`, who: 'teacher', ready: '[data-testid="prejoin"][data-ready="true"]' },
  { name: 'studio', path: () => '/rec/20261126', who: 'teacher', ready: '[data-testid="studio-stage"], [data-testid="studio-phone"]' },
  { name: 'refused', path: (c) => `/refused/removed?room=${c.room}`, who: 'visitor', ready: '[data-testid="refusal"]' },
  // Without an account (ADR 098): `/` as the front door with its number box, and the page after leaving a class.
  { name: 'front-door', path: () => '/', who: 'visitor', ready: '[data-testid="front-room"]' },
  { name: 'left', path: (c) => `/left/${c.room}`, who: 'visitor', ready: '[data-testid="left-page"]' },
  { name: 'refused-time-up', path: (c) => `/refused/time-up?room=${c.room}`, who: 'visitor', ready: '[data-testid="refusal"]' },
  { name: 'create-demo', path: () => '/createDemo', who: 'visitor', ready: '[data-testid="demo-start"]' },
  // The creator's slide view (with its tools) and a read-only board view of the class (ADR 093, 094).
  { name: 'slide-view', path: (c) => `/ppt/${c.room}`, who: 'teacher', ready: '[data-testid="slide-view"]' },
  { name: 'board-view', path: (c) => `/wb/${c.room}/${c.student.id}`, who: 'teacher', ready: '[data-testid="slide-view"]' },
  // The teacher's document library, the class's board review and the phone's picture upload for the board.
  { name: 'documents', path: () => '/profile/book', who: 'teacher', ready: '[data-testid="library-row"]' },
  { name: 'board-review', path: (c) => `/wbreview/${c.room}`, who: 'teacher', ready: '[data-testid="wbreview"]' },
  { name: 'board-upload', path: (c) => c.upload, who: 'teacher', ready: '.photo-upload__pick' },
  // A shared recording, without an account; the mobile download page; the operator's page.
  { name: 'watch', path: (c) => c.watch, who: 'visitor', ready: '[data-testid="watch-name"]' },
  { name: 'mobile-download', path: () => '/h5down', who: 'visitor' },
  { name: 'operators', path: () => '/admin', who: 'teacher' },
  // The operator's client-event log of the class's room (issue 27, ADR 102).
  { name: 'operators-logs', path: (c) => `/admin?logRoom=${c.room}`, who: 'teacher', ready: '[data-testid="admin-log"]' },
  // The root error boundary: rendered by the server, never hydrated.
  { name: 'not-found', path: () => '/no/such/page', who: 'visitor', ready: 'h1', static: true },
];

/** The page a stop opens in, for a size: the classroom's people stay in their room. */
export function pageFor(cast: Cast, stop: PageStop, size: Size): Page {
  if (stop.who === 'visitor') return size === '1280' ? cast.visitor : cast.visitorPhone;
  return size === '1280' ? cast.teacherDesk : cast.teacherPhone;
}

/** What the layout rules of ADR 087 find wrong on the page showing now, as readable lines (empty when all is well). */
export async function layoutProblems(page: Page, opts: { topBarOneRow: boolean; tilesBeside: boolean }): Promise<string[]> {
  return page.evaluate((o) => {
    const problems: string[] = [];
    interface R {
      l: number;
      t: number;
      r: number;
      b: number;
    }
    const rectOf = (d: DOMRect): R => ({ l: d.left, t: d.top, r: d.right, b: d.bottom });
    const cut = (a: R, b: R) => Math.min(a.r, b.r) - Math.max(a.l, b.l) > 1 && Math.min(a.b, b.b) - Math.max(a.t, b.t) > 1;
    const label = (el: Element) => {
      const id = el.getAttribute('data-testid');
      const name = el.getAttribute('aria-label') ?? el.textContent?.trim().replace(/\s+/g, ' ').slice(0, 24) ?? '';
      return `${el.tagName.toLowerCase()}${id ? `[${id}]` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ')[0]}` : ''} "${name}"`;
    };
    const px = (r: R) => `${Math.round(r.l)},${Math.round(r.t)} ${Math.round(r.r - r.l)}x${Math.round(r.b - r.t)}`;
    /** The part of an element on screen: clipped by every scrolling or clipping ancestor. */
    const visibleRect = (el: Element): R | null => {
      let r = rectOf(el.getBoundingClientRect());
      for (let p = el.parentElement; p; p = p.parentElement) {
        const cs = getComputedStyle(p);
        if (cs.overflowX !== 'visible' || cs.overflowY !== 'visible') {
          const c = rectOf(p.getBoundingClientRect());
          r = { l: Math.max(r.l, c.l), t: Math.max(r.t, c.t), r: Math.min(r.r, c.r), b: Math.min(r.b, c.b) };
        }
        if (cs.position === 'fixed') break;
      }
      return r.r - r.l > 1 && r.b - r.t > 1 ? r : null;
    };
    const shown = (el: Element) => {
      const cs = getComputedStyle(el);
      if (cs.visibility === 'hidden' || cs.display === 'none' || Number(cs.opacity) === 0) return false;
      if (el.closest('[hidden], [inert], .visually-hidden, [aria-hidden="true"]')) return false;
      // Screen-reader-only words (a 1 px box clipped away on purpose) are not shown, so not cut either.
      if (cs.clipPath === 'inset(50%)' && el.getBoundingClientRect().width <= 1) return false;
      return el.getClientRects().length > 0;
    };

    // 1. No horizontal overflow. The window's width is the page's client width: a phone browser
    // widens its layout viewport (innerWidth) to content that overflows, which would hide it.
    const vw = Math.min(window.innerWidth, document.documentElement.clientWidth);
    const sw = document.documentElement.scrollWidth;
    if (sw > vw) problems.push(`horizontal overflow: scrollWidth ${sw} > ${vw}`);

    // 2. No control over another (nested ones aside): on the screen as it is, scrolled to the top.
    const modal = document.querySelector('dialog:modal');
    const controls = [
      ...document.querySelectorAll<HTMLElement>(
        'button, a[href], input:not([type="hidden"]), select, textarea, [role="button"], [role="tab"], [tabindex]:not([tabindex="-1"])',
      ),
    ]
      .filter((el) => shown(el) && !el.closest('.board__surface, [data-testid="board-overlay"]'))
      // An open modal dialog makes the rest of the page inert: only its own controls can be reached.
      .filter((el) => !modal || modal.contains(el))
      .map((el) => ({ el, r: visibleRect(el) }))
      .filter((c): c is { el: HTMLElement; r: R } => c.r !== null);
    const pairs: string[] = [];
    controls.forEach((a, i) => {
      for (const b of controls.slice(i + 1)) {
        if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
        // A label and its input are one control.
        if (a.el.tagName === 'LABEL' || b.el.tagName === 'LABEL') continue;
        if (cut(a.r, b.r)) pairs.push(`${label(a.el)} @${px(a.r)} / ${label(b.el)} @${px(b.r)}`);
      }
    });
    for (const p of pairs.slice(0, 8)) problems.push(`controls overlap: ${p}`);

    // 2b. No control cut off: each lies whole inside the window's width and inside every clipping
    // box around it, unless a box around it scrolls that way (the person can bring it into view).
    const scrollsAround = (el: Element, axis: 'x' | 'y') => {
      for (let p = el.parentElement; p; p = p.parentElement) {
        if (axis === 'x' && (p === document.body || p === document.documentElement)) continue; // rule 1 covers the page
        const cs = getComputedStyle(p);
        const overflow = axis === 'x' ? cs.overflowX : cs.overflowY;
        const more = axis === 'x' ? p.scrollWidth > p.clientWidth : p.scrollHeight > p.clientHeight;
        if (/auto|scroll/.test(overflow) && more) return true;
      }
      return false;
    };
    for (const { el, r } of controls) {
      const full = rectOf(el.getBoundingClientRect());
      const cutX = full.r > vw + 1 || full.l < -1 || r.r - r.l < full.r - full.l - 2;
      const cutY = r.b - r.t < full.b - full.t - 2;
      if ((cutX && !scrollsAround(el, 'x')) || (cutY && !scrollsAround(el, 'y')))
        problems.push(`control cut off: ${label(el)} @${px(full)}, shown ${px(r)}`);
    }

    // 3. No control over the page of the board or the slide.
    const content: Array<{ what: string; r: R; owner: Element }> = [];
    const hook = (window as unknown as { __banshuBoard?: { renderer: () => { origin: { x: number; y: number }; scale: number } | null } })
      .__banshuBoard;
    const overlay = document.querySelector('[data-testid="view-area"][data-view="wb"] [data-testid="board-overlay"]');
    const renderer = hook?.renderer();
    if (overlay && renderer && shown(overlay)) {
      const s = overlay.getBoundingClientRect();
      const l = s.left + renderer.origin.x;
      const t = s.top + renderer.origin.y;
      const page = { l, t, r: l + 1024 * renderer.scale, b: t + 768 * renderer.scale };
      // Only what is on screen of the page.
      const onScreen = {
        l: Math.max(page.l, s.left),
        t: Math.max(page.t, s.top),
        r: Math.min(page.r, s.right),
        b: Math.min(page.b, s.bottom),
      };
      content.push({ what: 'board page', r: onScreen, owner: overlay });
    }
    const slide = document.querySelector('[data-testid="view-area"][data-view="ppt"] [data-testid="courseware-loaded"] img');
    if (slide && shown(slide)) {
      const r = visibleRect(slide);
      if (r) content.push({ what: 'slide', r, owner: slide });
    }
    for (const c of content) {
      for (const k of controls) {
        if (k.el.contains(c.owner) || c.owner.contains(k.el)) continue;
        if (cut(k.r, c.r)) problems.push(`control over the ${c.what} @${px(c.r)}: ${label(k.el)} @${px(k.r)}`);
      }
    }

    // 4. The teacher's top bar on one row.
    if (o.topBarOneRow) {
      const bar = document.querySelector('[data-testid="top-bar"]');
      if (bar) {
        const inBar = controls.filter((c) => bar.contains(c.el));
        const first = Math.min(...inBar.map((c) => c.r.t));
        const firstBottom = Math.min(...inBar.filter((c) => c.r.t === first).map((c) => c.r.b));
        const below = inBar.filter((c) => c.r.t >= firstBottom - 1);
        if (below.length) problems.push(`top bar on more than one row: ${below.map((c) => `${label(c.el)} @${px(c.r)}`).join('; ')}`);
      }
    }

    // 4b. Nothing in the classroom's top bar cut short (a badge, the room's name).
    const header = document.querySelector('[data-testid="top-bar"]') ?? document.querySelector('.room header, .classroom header');
    if (header) {
      for (const el of header.querySelectorAll<HTMLElement>('*')) {
        if (!shown(el) || el.children.length > 0 || !(el.textContent ?? '').trim()) continue;
        const box = el.getBoundingClientRect();
        const seen = visibleRect(el);
        const text = (el.textContent ?? '').trim();
        // Clipped by an ancestor (e.g. a squeezed row with overflow hidden)…
        if (!seen || seen.r - seen.l < box.width - 1) {
          problems.push(
            `text cut in the top bar: "${text}" shows ${seen ? Math.round(seen.r - seen.l) : 0} of ${Math.round(box.width)} px (${label(el)})`,
          );
          continue;
        }
        if (getComputedStyle(el).display === 'inline') continue; // …or overflowing its own box
        if (el.scrollWidth > el.clientWidth + 1)
          problems.push(`text cut in the top bar: "${(el.textContent ?? '').trim()}" ${el.scrollWidth} > ${el.clientWidth} (${label(el)})`);
      }
    }

    // 5. Tiles beside the board or slide at least 200x112.
    if (o.tilesBeside) {
      const view = document.querySelector('[data-testid="view-area"]')?.getAttribute('data-view');
      if (view === 'wb' || view === 'ppt') {
        const tiles = [...document.querySelectorAll('[data-testid="media-tile"]')].filter(shown);
        if (tiles.length === 0) problems.push('no video tiles beside the content');
        for (const t of tiles) {
          const r = t.getBoundingClientRect();
          if (r.width < 199.5 || r.height < 111.5)
            problems.push(`tile under 200x112: ${t.getAttribute('data-user') ?? ''} ${Math.round(r.width)}x${Math.round(r.height)}`);
        }
      }
    }

    // 6. Names under 10 characters shown whole.
    for (const n of document.querySelectorAll<HTMLElement>('[data-testid="tile-name"]')) {
      if (!shown(n)) continue;
      const text = n.textContent?.trim() ?? '';
      if ([...text].length < 10 && n.scrollWidth > n.clientWidth + 1)
        problems.push(`name cut: "${text}" ${n.scrollWidth} > ${n.clientWidth}`);
    }
    return problems;
  }, opts);
}

/** axe-core on the page showing now: its serious and critical violations, as readable lines. */
export async function axeProblems(page: Page, axeSource: string): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            ctx: Document,
            o: object,
          ) => Promise<{ violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown[] }> }> }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `axe ${v.impact ?? ''} ${v.id}: ${v.targets.join(' ')}`);
}
