/**
 * The class tools' overlay of the recording (ADR 115): which panels show where, the timer's value
 * from the server's time, and the pixels of the drawn panels at their known places.
 */
import { writeFileSync } from 'node:fs';
import { createCanvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import type { ClassTools } from '#core/contracts/class-tools.ts';
import { drawLabel, registerSceneFonts } from './scene-pixels.ts';
import { SceneTools } from './scene-tools.ts';
import {
  GROUPS_TIME,
  OVERLAY_COLOURS,
  REWARD_BANNER_MS,
  groupsLines,
  TIMER_DIGITS,
  clockText,
  drawPanel,
  layoutOverlay,
  nextChangeAt,
  quizBarBox,
  timerSeconds,
  type GroupsShown,
  type Panel,
} from './tools-overlay.ts';

registerSceneFonts();
const NOW = 1_800_000_000_000;
const AREA = { w: 960, h: 720 };

const none: ClassTools = { quiz: null, poll: null, timer: null, buzzer: null, pick: null, rewards: {} };
const countdown = (o: Partial<NonNullable<ClassTools['timer']>> = {}): ClassTools['timer'] => ({
  kind: 'countdown',
  running: true,
  durationMs: 300_000,
  elapsedMs: 0,
  startedAt: NOW - 12_300,
  ...o,
});
const openQuiz: NonNullable<ClassTools['quiz']> = {
  id: 'q1',
  options: 4,
  multiple: false,
  status: 'open',
  startedAt: NOW - 5000,
  endsAt: 0,
  answered: 7,
  showOwn: false,
  result: null,
};
const published: NonNullable<ClassTools['quiz']> = {
  ...openQuiz,
  status: 'published',
  answered: 20,
  result: { tally: [2, 14, 4, 0], correct: ['B'], answered: 20, right: 14 },
};
const poll: NonNullable<ClassTools['poll']> = {
  id: 'p1',
  anonymous: true,
  status: 'published',
  questions: [{ text: '今天的课难吗？', options: ['难', '刚好', '简单'], multiple: false }],
  voters: 10,
  result: { counts: [[2, 6, 2]] },
};
const everything: ClassTools = {
  quiz: published,
  poll,
  timer: countdown(),
  buzzer: { round: 1, status: 'won', winner: { userId: '7', name: '王小明', at: NOW - 100 } },
  pick: { userId: '8', name: 'Alice', at: NOW - 50 },
  rewards: { '7': 2 },
};

/** The panel drawn alone: its RGBA and a reader of one pixel. */
function paint(panel: Panel) {
  const canvas = createCanvas(panel.w, panel.h);
  drawPanel(canvas.getContext('2d') as unknown as CanvasRenderingContext2D, panel);
  const data = canvas.data();
  return {
    data,
    at: (x: number, y: number) => [...data.subarray((y * panel.w + x) * 4, (y * panel.w + x) * 4 + 3)],
  };
}
const rgb = (hex: string) => [1, 3, 5].map((o) => parseInt(hex.slice(o, o + 2), 16));
const near = (got: number[], hex: string, tolerance = 3) => got.every((v, i) => Math.abs(v - rgb(hex)[i]!) <= tolerance);

describe('the timer', () => {
  it('is shown from the server time it is given: a countdown rounds up, a stopwatch down, a paused one stands', () => {
    expect(clockText(300)).toBe('05:00');
    expect(clockText(3725)).toBe('1:02:05');
    const t = countdown({ startedAt: NOW })!;
    expect(timerSeconds(t, NOW)).toBe(300);
    expect(timerSeconds(t, NOW + 1)).toBe(300);
    expect(timerSeconds(t, NOW + 12_300)).toBe(288);
    expect(timerSeconds(t, NOW + 400_000)).toBe(0);
    const paused = countdown({ running: false, elapsedMs: 61_500, startedAt: 0 })!;
    expect(timerSeconds(paused, NOW)).toBe(239);
    expect(timerSeconds(paused, NOW + 3_600_000)).toBe(239);
    const watch = { kind: 'stopwatch' as const, running: true, durationMs: 0, elapsedMs: 10_000, startedAt: NOW - 2_999 };
    expect(timerSeconds(watch, NOW)).toBe(12);
  });

  it('tells when its shown second turns next (the scene draws it again only then)', () => {
    const t: ClassTools = { ...none, timer: countdown({ startedAt: NOW - 12_300 }) };
    // 287.7 s left: shown 288 until 287 s left, 700 ms from now.
    expect(nextChangeAt(t, NOW, null)).toBe(NOW + 700);
    expect(nextChangeAt({ ...none, timer: countdown({ running: false }) }, NOW, null)).toBeNull();
    expect(nextChangeAt(none, NOW, { names: ['A'], at: NOW - 1000 })).toBe(NOW - 1000 + REWARD_BANNER_MS);
  });

  it('draws its digits in white while running, amber when paused, red at zero', () => {
    const tone = (timer: ClassTools['timer']) => {
      const panel = layoutOverlay({ ...none, timer }, NOW, null)[0]!;
      expect(panel.kind).toBe('timer');
      const { at } = paint(panel);
      // The brightest pixel of the digits says their colour.
      let best = [0, 0, 0];
      const d = TIMER_DIGITS;
      for (let y = d.y; y < d.y + d.h; y++)
        for (let x = d.x; x < d.x + d.w; x++) {
          const p = at(x, y);
          if (p[0]! + p[1]! + p[2]! > best[0]! + best[1]! + best[2]!) best = p;
        }
      return best;
    };
    expect(near(tone(countdown()), OVERLAY_COLOURS.text, 8)).toBe(true);
    expect(near(tone(countdown({ running: false, startedAt: 0 })), OVERLAY_COLOURS.paused, 8)).toBe(true);
    expect(near(tone(countdown({ startedAt: NOW - 400_000 })), OVERLAY_COLOURS.zero, 8)).toBe(true);
  });

  it('draws other digits for another second (the part of the frame the recording test compares)', () => {
    const digits = (startedAt: number) => {
      const panel = layoutOverlay({ ...none, timer: countdown({ startedAt }) }, NOW, null)[0]!;
      const { at } = paint(panel);
      const d = TIMER_DIGITS;
      const lit: boolean[] = [];
      for (let y = d.y; y < d.y + d.h; y++) for (let x = d.x; x < d.x + d.w; x++) lit.push(at(x, y)[0]! > 128);
      return lit;
    };
    const a = digits(NOW - 12_300);
    const b = digits(NOW - 13_300);
    expect(a.filter(Boolean).length).toBeGreaterThan(300);
    expect(a.filter((v, i) => v !== b[i]).length).toBeGreaterThan(50);
    expect(digits(NOW - 12_900)).toEqual(a);
  });
});

describe('the layout', () => {
  it('shows nothing without tools, and every panel inside the main area, at even places, none over another', () => {
    expect(layoutOverlay(null, NOW, null)).toEqual([]);
    expect(layoutOverlay(none, NOW, null)).toEqual([]);
    const panels = layoutOverlay(everything, NOW, { names: ['王小明'], at: NOW }, AREA);
    expect(panels.map((p) => p.kind).sort()).toEqual(['buzzer', 'pick', 'pollResult', 'quizResult', 'reward', 'timer']);
    for (const p of panels) {
      expect(
        [p.x, p.y, p.w, p.h].every((n) => n % 2 === 0),
        p.kind,
      ).toBe(true);
      expect(p.x >= 0 && p.y >= 0 && p.x + p.w <= AREA.w && p.y + p.h <= AREA.h, p.kind).toBe(true);
      for (const o of panels) {
        if (o === p) continue;
        const apart = o.x >= p.x + p.w || p.x >= o.x + o.w || o.y >= p.y + p.h || p.y >= o.y + o.h;
        expect(apart, `${p.kind} / ${o.kind}`).toBe(true);
      }
    }
  });

  it('an open quiz shows how many answered and never what: no tally, no right answer', () => {
    const panels = layoutOverlay({ ...none, quiz: { ...openQuiz, endsAt: NOW + 30_000 } }, NOW, null);
    expect(panels).toHaveLength(1);
    const p = panels[0]!;
    expect(p).toMatchObject({ kind: 'quizOpen', answered: 7, options: 4, left: '00:30' });
    expect(Object.keys(p).sort()).toEqual(['answered', 'collected', 'h', 'key', 'kind', 'left', 'options', 'w', 'x', 'y']);
    // Published: the result on the right.
    const shown = layoutOverlay({ ...none, quiz: published }, NOW, null);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({ kind: 'quizResult', tally: [2, 14, 4, 0], correct: ['B'], answered: 20, right: 14 });
    expect(shown[0]!.x + shown[0]!.w).toBe(AREA.w - 16);
  });

  it('a poll in progress shows how many voted, and says when it is closed; its result only once published', () => {
    const open = layoutOverlay({ ...none, poll: { ...poll, status: 'open', result: null } }, NOW, null);
    expect(open.map((p) => p.kind)).toEqual(['pollOpen']);
    expect(open[0]).toMatchObject({ voters: 10, closed: false });
    const closed = layoutOverlay({ ...none, poll: { ...poll, status: 'closed', result: null } }, NOW, null);
    expect(closed[0]).toMatchObject({ kind: 'pollOpen', closed: true });
    expect(closed[0]!.key).not.toBe(open[0]!.key);
    expect(layoutOverlay({ ...none, poll }, NOW, null).map((p) => p.kind)).toEqual(['pollResult']);
  });

  it('a poll too long for the frame keeps the questions that fit', () => {
    const question = { text: 'Q', options: ['1', '2', '3', '4', '5', '6', '7', '8'], multiple: false };
    const big = {
      ...poll,
      questions: Array.from({ length: 5 }, () => question),
      result: { counts: Array.from({ length: 5 }, () => [1, 1, 1, 1, 1, 1, 1, 1]) },
    };
    const [p] = layoutOverlay({ ...none, quiz: published, poll: big }, NOW, null).filter((x) => x.kind === 'pollResult');
    expect(p).toBeDefined();
    if (p?.kind !== 'pollResult') throw new Error('no poll');
    expect(p.questions.length).toBeGreaterThan(0);
    expect(p.questions.length).toBeLessThan(5);
    expect(p.y + p.h).toBeLessThanOrEqual(AREA.h - 16);
  });

  it('the reward banner shows for a few seconds from the server time it was given', () => {
    const reward = { names: ['王小明', 'Alice'], at: NOW };
    const banner = (now: number) => layoutOverlay(none, now, reward).find((p) => p.kind === 'reward');
    expect(banner(NOW + 100)).toMatchObject({ names: ['王小明', 'Alice'] });
    expect(banner(NOW + REWARD_BANNER_MS - 1)).toBeDefined();
    expect(banner(NOW + REWARD_BANNER_MS)).toBeUndefined();
  });
});

describe('the drawing', () => {
  it('the quiz result: each bar in its place, as long as its share, the right answer green, the others in the accent', () => {
    const panel = layoutOverlay({ ...none, quiz: published }, NOW, null)[0]!;
    if (panel.kind !== 'quizResult') throw new Error('no result');
    const { at } = paint(panel);
    const bars = [0, 1, 2, 3].map((i) => quizBarBox(panel, i));
    // B (right) in green, A and C in the accent, D empty (only the track).
    const mid = (i: number) => at(bars[i]!.x + 2, bars[i]!.y + bars[i]!.h / 2);
    expect(near(mid(1), OVERLAY_COLOURS.correct)).toBe(true);
    expect(near(mid(0), OVERLAY_COLOURS.bar)).toBe(true);
    expect(near(mid(2), OVERLAY_COLOURS.bar)).toBe(true);
    expect(near(mid(3), OVERLAY_COLOURS.track)).toBe(true);
    // Lengths in proportion to the tally (14 of 20 against 2 of 20), and the track after each bar.
    expect(bars[1]!.w / bars[0]!.w).toBeCloseTo(7, 0);
    const b = bars[1]!;
    expect(near(at(b.x + b.w - 2, b.y + b.h / 2), OVERLAY_COLOURS.correct)).toBe(true);
    expect(near(at(b.x + b.w + 2, b.y + b.h / 2), OVERLAY_COLOURS.track)).toBe(true);
    // The panel's surface around.
    expect(near(at(panel.w / 2, 4), OVERLAY_COLOURS.surface)).toBe(true);
  });

  it('names and the buzzer winner are written (Chinese included), the banner carries the trophy colour', () => {
    const panels = layoutOverlay(everything, NOW, { names: ['王小明'], at: NOW });
    const count = (p: Panel, hex: string) => {
      const { data } = paint(p);
      let n = 0;
      for (let i = 0; i < data.length; i += 4) if (near([data[i]!, data[i + 1]!, data[i + 2]!], hex, 24)) n++;
      return n;
    };
    const buzzer = panels.find((p) => p.kind === 'buzzer')!;
    expect(count(buzzer, OVERLAY_COLOURS.trophy)).toBeGreaterThan(40);
    const reward = panels.find((p) => p.kind === 'reward')!;
    expect(count(reward, OVERLAY_COLOURS.trophy)).toBeGreaterThan(200);
    expect(count(reward, OVERLAY_COLOURS.text)).toBeGreaterThan(60);
  });
});

describe('SceneTools', () => {
  it('reckons the server time from what the server told, draws the timer once a second and answers the same overlay between', () => {
    let local = 5_000; // this process's clock: nothing like the server's
    const tools = new SceneTools(AREA, () => local);
    expect(tools.panels()).toEqual([]);
    tools.heard({ ...none, timer: countdown({ startedAt: NOW - 12_300 }) }, NOW);
    expect(tools.serverNow()).toBe(NOW);
    const first = tools.panels();
    expect(first).toHaveLength(1);
    expect(tools.drawn).toBe(1);
    // 30 frames over 600 ms: the same array, nothing drawn.
    for (let i = 0; i < 30; i++) {
      local += 20;
      expect(tools.panels()).toBe(first);
    }
    expect(tools.drawn).toBe(1);
    local += 100; // 700 ms after: 287 s left
    const second = tools.panels();
    expect(second).not.toBe(first);
    expect(tools.drawn).toBe(2);
    expect(second[0]!.yuv).not.toEqual(first[0]!.yuv);
    // A quiz published: its panel drawn, the timer's picture reused.
    tools.heard({ ...none, timer: countdown({ startedAt: NOW - 12_300 }), quiz: published }, NOW + 720);
    const third = tools.panels();
    expect(third).toHaveLength(2);
    expect(third[0]!.yuv).toBe(second[0]!.yuv);
    expect(tools.drawn).toBe(3);
    tools.heard(none, NOW + 800);
    expect(tools.panels()).toEqual([]);
  });
});

describe('the breakout groups banner (issue 31)', () => {
  const group = (no: number) => ({ no, name: String(no), leader: null, page: no + 2, members: [String(no)], helpAt: 0 });
  const running = (o: Partial<GroupsShown> = {}): GroupsShown => ({
    status: 'running',
    groups: [group(1), group(2), group(3)],
    endsAt: 0,
    closingAt: 0,
    ...o,
  });
  const banner = (g: GroupsShown | null, tools: ClassTools | null = null, now = NOW) =>
    layoutOverlay(tools, now, null, AREA, g).find((p) => p.kind === 'groups');

  it('shows while groups run or close, with how many groups and the time left of a limit or a return countdown; nothing when they are off', () => {
    expect(banner(null)).toBeUndefined();
    expect(banner(running({ status: 'off' }))).toBeUndefined();
    expect(banner(running())).toMatchObject({ kind: 'groups', count: 3, left: null, closing: false });
    // A time limit: the time left, rounded up as the timer's countdown.
    expect(banner(running({ endsAt: NOW + 12 * 60_000 + 300 }))).toMatchObject({ left: '12:01', closing: false });
    // "Return all" with a countdown: that, whatever the limit said.
    expect(banner(running({ status: 'closing', endsAt: NOW + 600_000, closingAt: NOW + 30_000 }))).toMatchObject({
      left: '00:30',
      closing: true,
    });
    expect(groupsLines(3)).toEqual(['分组讨论中 · 3 个小组', 'Groups running · 3 groups']);
  });

  it('keeps to the top between the columns, apart from every tool’s panel, even and inside the area', () => {
    const panels = layoutOverlay(everything, NOW, { names: ['王小明'], at: NOW }, AREA, running({ endsAt: NOW + 60_000 }));
    expect(panels.map((p) => p.kind).sort()).toEqual(['buzzer', 'groups', 'pick', 'pollResult', 'quizResult', 'reward', 'timer']);
    for (const p of panels) {
      expect([p.x, p.y, p.w, p.h].every((n) => n % 2 === 0)).toBe(true);
      expect(p.x >= 0 && p.y >= 0 && p.x + p.w <= AREA.w && p.y + p.h <= AREA.h, p.kind).toBe(true);
      for (const o of panels) {
        if (o === p) continue;
        expect(o.x >= p.x + p.w || p.x >= o.x + o.w || o.y >= p.y + p.h || p.y >= o.y + o.h, `${p.kind} / ${o.kind}`).toBe(true);
      }
    }
    // Alone it is the same place: nothing moves when a tool comes or goes.
    expect(banner(running())).toMatchObject({ x: 264, y: 16, w: 312, h: 64 });
  });

  it('tells when its time left turns next', () => {
    expect(nextChangeAt(null, NOW, null, running({ endsAt: NOW + 5_250 }))).toBe(NOW + 250);
    expect(nextChangeAt(null, NOW, null, running({ status: 'closing', closingAt: NOW + 3000 }))).toBe(NOW + 1000);
    expect(nextChangeAt(null, NOW, null, running())).toBeNull();
    expect(nextChangeAt(null, NOW, null, running({ endsAt: NOW - 10 }))).toBeNull();
  });

  it('draws its time left in white for a limit and amber for the return countdown, and other digits for another second', () => {
    const brightest = (panel: Panel) => {
      const { at } = paint(panel);
      let best = [0, 0, 0];
      const t = GROUPS_TIME;
      for (let y = t.y; y < t.y + t.h; y++)
        for (let x = t.x; x < t.x + t.w; x++) {
          const p = at(x, y);
          if (p[0]! + p[1]! + p[2]! > best[0]! + best[1]! + best[2]!) best = p;
        }
      return best;
    };
    const limit = banner(running({ endsAt: NOW + 90_000 }))!;
    const closing = banner(running({ status: 'closing', closingAt: NOW + 90_000 }))!;
    expect(near(brightest(limit), OVERLAY_COLOURS.text, 8)).toBe(true);
    expect(near(brightest(closing), OVERLAY_COLOURS.paused, 8)).toBe(true);
    // The banner's accent edge: the result green running, amber closing.
    expect(near(paint(limit).at(1, 30), OVERLAY_COLOURS.bar)).toBe(true);
    expect(near(paint(closing).at(1, 30), OVERLAY_COLOURS.paused)).toBe(true);
    const lit = (panel: Panel) => {
      const { at } = paint(panel);
      const out: boolean[] = [];
      for (let y = GROUPS_TIME.y; y < GROUPS_TIME.y + GROUPS_TIME.h; y++)
        for (let x = GROUPS_TIME.x; x < GROUPS_TIME.x + GROUPS_TIME.w; x++) out.push(at(x, y)[0]! > 128);
      return out;
    };
    const a = lit(limit);
    const b = lit(banner(running({ endsAt: NOW + 89_000 }))!);
    expect(a.filter(Boolean).length).toBeGreaterThan(100);
    expect(a.filter((v, i) => v !== b[i]).length).toBeGreaterThan(20);
    // Both lines of text are there: the left half of the panel has bright (zh) and grey (en) ink.
    const { at } = paint(banner(running())!);
    let white = 0;
    for (let y = 8; y < 32; y++) for (let x = 44; x < 250; x++) if (at(x, y)[0]! > 200) white++;
    expect(white).toBeGreaterThan(100);
    if (process.env['SHOTS']) {
      const canvas = createCanvas(closing.w, closing.h * 4 + 12);
      const ctx = canvas.getContext('2d') as unknown as CanvasRenderingContext2D;
      const twelve = banner(running({ groups: Array.from({ length: 12 }, (_, i) => group(i + 1)), endsAt: NOW + 3_600_000 }))!;
      for (const [i, p] of [banner(running())!, limit, closing, twelve].entries()) {
        ctx.save();
        ctx.translate(0, i * (p.h + 4));
        drawPanel(ctx, p);
        ctx.restore();
      }
      writeFileSync(`${process.env['SHOTS']}/groups-banner.png`, canvas.toBuffer('image/png'));
    }
  });

  it('SceneTools shows it from the groups heard, by the server’s time, drawn again once a second while it counts', () => {
    let local = 5_000;
    const tools = new SceneTools(AREA, () => local);
    tools.heardGroups(running({ endsAt: NOW + 10_500 }), NOW);
    const first = tools.panels();
    expect(first.map((p) => p.kind)).toEqual(['groups']);
    expect(tools.drawn).toBe(1);
    local += 400;
    expect(tools.panels()).toBe(first);
    local += 200;
    expect(tools.panels()).not.toBe(first);
    expect(tools.drawn).toBe(2);
    tools.heardGroups(running({ status: 'off' }), NOW + 700);
    expect(tools.panels()).toEqual([]);
  });
});

describe('the name strips', () => {
  it("carry the person's trophies at their right end in gold, the name still there", () => {
    const w = 320;
    const h = 24;
    // Gold is far from grey in U (blue-yellow): count the chroma samples that are.
    const gold = (strip: Buffer, fromX: number, toX: number) => {
      const cw = w / 2;
      let n = 0;
      for (let y = 0; y < h / 2; y++) for (let x = fromX / 2; x < toX / 2; x++) if (strip[w * h + y * cw + x]! < 100) n++;
      return n;
    };
    const bright = (strip: Buffer) => strip.subarray(0, w * h).filter((y) => y > 180).length;
    const plain = drawLabel('王小明', w, h);
    const rewarded = drawLabel('王小明', w, h, 3);
    expect(gold(plain, 0, w)).toBe(0);
    expect(gold(rewarded, w - 60, w)).toBeGreaterThan(10);
    expect(gold(rewarded, 0, w / 2)).toBe(0);
    expect(bright(rewarded)).toBeGreaterThan(40);
  });
});
