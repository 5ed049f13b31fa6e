/**
 * The class tools as the recording shows them (issue 30, ADR 115): the running countdown or
 * stopwatch, the quiz and poll while open (how many answered, never what), their results once
 * published, the buzzer and its winner, the last random pick, and a short banner when trophies are
 * given. Nothing of the teacher's own tally is ever here: the overlay reads only the room's public
 * `ClassTools` and the `rewarded` event, which every student receives too.
 *
 * Two steps, both free of the DOM (as core/board/draw): `layoutOverlay` decides which panels show
 * where, each with a `key` naming its content (pure: the tools, the server's now, the last reward);
 * `drawPanel` paints one panel into a 2D context of its own size. The scene draws a panel again only
 * when its key changes: the timer's once a second, the others when the room's tools change.
 *
 * Panels are opaque rectangles at even places and sizes (the compositor copies them into the
 * yuv420p frame over whatever is under them) inside the main area (960 x 720): timer and small
 * cards down the left, published results down the right, the reward banner at the bottom.
 *
 * While breakout groups run (issue 31, ADR 117) a banner at the top between the columns says so,
 * with how many groups and the time left when there is a limit or a return countdown: the
 * recording follows the main room, and a viewer should know why it went quiet.
 */
import type { ClassTools } from '#core/contracts/class-tools.ts';
import type { GroupsState } from '#core/contracts/groups.ts';

export type Tools = ClassTools;
/** The last `rewarded` event heard (its names and the server time it was given at). */
export interface RewardShown {
  names: string[];
  at: number;
}

/** The breakout groups as the recorder heard them (the room's `groups` event, the snapshot's). */
export type GroupsShown = Pick<GroupsState, 'status' | 'groups' | 'endsAt' | 'closingAt'>;

/** How long the reward banner stays, from the server time the trophies were given (the classroom's animation: 3.2 s). */
export const REWARD_BANNER_MS = 3200;

/**
 * The panels' colours: the name strips' dark surface (legible over any board, slide or camera), the
 * classroom's result bars (app/classroom/tools: #8fb9ad, the right answer in its ok green).
 */
export const OVERLAY_COLOURS = {
  surface: '#1f2329',
  edge: '#3b424c',
  text: '#ffffff',
  muted: '#aab2bd',
  track: '#343a43',
  bar: '#8fb9ad',
  correct: '#1e7d3a',
  /** The ok green lightened for text on the dark surface. */
  correctText: '#5cc485',
  paused: '#f2b233',
  zero: '#e5484d',
  trophy: '#f5c518',
} as const;

const FONT = '"Noto Sans CJK SC", "Noto Sans CJK JP", "DejaVu Sans", sans-serif';
const MARGIN = 16;
const GAP = 8;
const LEFT_W = 240;
const RIGHT_W = 360;
const TIMER_H = 72;
const CARD_H = 56;
const BANNER_W = 520;
const BANNER_H = 64;
const QUIZ_HEADER = 48;
const QUIZ_ROW = 32;
const POLL_HEADER = 44;
const LETTERS = 'ABCDEFGH';
const GROUPS_W = 312;
const GROUPS_H = 64;

/** Both languages on one line: the recording is watched in either (the product's default first). */
const LABEL = {
  quiz: '答题 Quiz',
  quizResult: '答题结果 Quiz result',
  collected: '已收卷 Closed',
  pollClosed: '已结束 Closed',
  poll: '投票 Poll',
  pollResult: '投票结果 Poll result',
  buzzer: '抢答 Buzzer',
  pick: '随机点名 Random pick',
  answered: '已答 Answered',
  voted: '已投 Voted',
  groupsLeft: '剩余 Left',
  groupsReturn: '返回 Return',
} as const;

/** The groups banner's two lines: the product's default language first, then English. */
export function groupsLines(count: number): [string, string] {
  return [`分组讨论中 · ${String(count)} 个小组`, `Groups running · ${String(count)} groups`];
}

type Area = { w: number; h: number };
interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export type Panel = Box &
  (
    | { kind: 'timer'; text: string; tone: 'running' | 'paused' | 'zero'; stopwatch: boolean }
    | { kind: 'quizOpen'; options: number; answered: number; left: string | null; collected: boolean }
    | { kind: 'pollOpen'; voters: number; closed: boolean }
    | { kind: 'buzzer'; winner: string | null }
    | { kind: 'pick'; name: string }
    | { kind: 'reward'; names: string[] }
    | { kind: 'groups'; count: number; left: string | null; closing: boolean }
    | {
        kind: 'quizResult';
        tally: number[];
        correct: string[];
        answered: number;
        right: number;
      }
    | {
        kind: 'pollResult';
        voters: number;
        rowH: number;
        questions: Array<{ text: string; options: string[]; counts: number[] }>;
      }
  ) & {
    /** What the panel shows: drawn again only when this changes. */
    key: string;
  };

/** `mm:ss` (or `h:mm:ss` from an hour) of whole seconds. */
export function clockText(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${String(h)}:${mm}:${ss}` : `${mm}:${ss}`;
}

/**
 * The timer's value at the server's `now` (ms): a countdown's time left, a stopwatch's time run
 * (the contract's rule: the run before `startedAt` plus, while running, the server time since).
 */
export function timerValueMs(timer: NonNullable<Tools['timer']>, now: number): number {
  const run = timer.elapsedMs + (timer.running && timer.startedAt > 0 ? Math.max(0, now - timer.startedAt) : 0);
  return timer.kind === 'countdown' ? Math.max(0, timer.durationMs - run) : run;
}

/**
 * The shown seconds: a countdown rounds up (a 5:00 countdown shows 05:00 at its start and 00:00
 * only once it is over), a stopwatch down.
 */
export function timerSeconds(timer: NonNullable<Tools['timer']>, now: number): number {
  const v = timerValueMs(timer, now);
  return timer.kind === 'countdown' ? Math.ceil(v / 1000) : Math.floor(v / 1000);
}

/** Keeps a box's place and size even (yuv420p: the compositor copies whole 2 x 2 blocks). */
function even(b: Box): Box {
  const e = (n: number) => Math.max(0, Math.floor(n / 2) * 2);
  return { x: e(b.x), y: e(b.y), w: e(b.w), h: e(b.h) };
}

/** The groups' deadline now: the return countdown while closing, else the time limit (0: none). */
function groupsDeadline(g: GroupsShown): number {
  return g.status === 'closing' ? g.closingAt : g.status === 'running' ? g.endsAt : 0;
}

/**
 * Which panels show and where, for the room's tools (and breakout groups) at the server's `now`.
 * `area` is the main area's size; everything stays inside it.
 */
export function layoutOverlay(
  tools: Tools | null,
  now: number,
  reward: RewardShown | null,
  area: Area = { w: 960, h: 720 },
  groups: GroupsShown | null = null,
): Panel[] {
  const panels: Panel[] = [];
  if (groups && groups.status !== 'off') {
    // At the top, between the left column and the right one (the published results).
    const from = MARGIN + LEFT_W + GAP;
    const to = area.w - MARGIN - RIGHT_W - GAP;
    const w = Math.min(GROUPS_W, to - from);
    const deadline = groupsDeadline(groups);
    const left = deadline > 0 ? clockText(Math.ceil(Math.max(0, deadline - now) / 1000)) : null;
    const closing = groups.status === 'closing';
    const count = groups.groups.length;
    panels.push({
      ...even({ x: from + (to - from - w) / 2, y: MARGIN, w, h: GROUPS_H }),
      kind: 'groups',
      count,
      left,
      closing,
      key: `groups|${String(count)}|${left ?? ''}|${String(closing)}`,
    });
  }
  if (!tools) return panels;
  // The left column: the timer, then the small cards, top down.
  let left = MARGIN;
  const leftCard = (h: number): Box => {
    const b = even({ x: MARGIN, y: left, w: LEFT_W, h });
    left += b.h + GAP;
    return b;
  };
  const t = tools.timer;
  if (t) {
    const seconds = timerSeconds(t, now);
    const tone = t.kind === 'countdown' && seconds === 0 ? 'zero' : t.running ? 'running' : 'paused';
    const text = clockText(seconds);
    panels.push({
      ...leftCard(TIMER_H),
      kind: 'timer',
      text,
      tone,
      stopwatch: t.kind === 'stopwatch',
      key: `timer|${text}|${tone}|${t.kind}`,
    });
  }
  const q = tools.quiz;
  if (q && q.status !== 'published') {
    const leftMs = q.status === 'open' && q.endsAt > 0 ? Math.max(0, q.endsAt - now) : null;
    const leftText = leftMs === null ? null : clockText(Math.ceil(leftMs / 1000));
    const collected = q.status === 'collected';
    panels.push({
      ...leftCard(CARD_H),
      kind: 'quizOpen',
      options: q.options,
      answered: q.answered,
      left: leftText,
      collected,
      key: `quizOpen|${String(q.options)}|${String(q.answered)}|${leftText ?? ''}|${String(collected)}`,
    });
  }
  const p = tools.poll;
  if (p && p.status !== 'published') {
    const closed = p.status === 'closed';
    panels.push({ ...leftCard(CARD_H), kind: 'pollOpen', voters: p.voters, closed, key: `pollOpen|${String(p.voters)}|${String(closed)}` });
  }
  const b = tools.buzzer;
  if (b) {
    const winner = b.status === 'won' && b.winner ? b.winner.name : null;
    panels.push({ ...leftCard(CARD_H), kind: 'buzzer', winner, key: `buzzer|${String(b.round)}|${winner ?? ''}` });
  }
  if (tools.pick) {
    panels.push({ ...leftCard(CARD_H), kind: 'pick', name: tools.pick.name, key: `pick|${String(tools.pick.at)}|${tools.pick.name}` });
  }

  // The right column: the published results.
  let right = MARGIN;
  const bottom = area.h - MARGIN;
  const rightX = area.w - MARGIN - RIGHT_W;
  if (q && q.status === 'published' && q.result) {
    const r = q.result;
    const tally = Array.from({ length: q.options }, (_, i) => r.tally[i] ?? 0);
    const h = Math.min(bottom - right, QUIZ_HEADER + tally.length * QUIZ_ROW + 12);
    const box = even({ x: rightX, y: right, w: RIGHT_W, h });
    right += box.h + GAP;
    panels.push({
      ...box,
      kind: 'quizResult',
      tally,
      correct: [...r.correct].sort(),
      answered: r.answered,
      right: r.right,
      key: `quizResult|${q.id}|${tally.join(',')}|${r.correct.join(',')}|${String(r.answered)}|${String(r.right)}`,
    });
  }
  if (p && p.status === 'published' && p.result) {
    const counts = p.result.counts;
    const avail = bottom - right;
    // Rows of text and bars, as many as fit: smaller rows first, then questions left out.
    const questions = p.questions.map((qq, i) => ({
      text: qq.text,
      options: qq.options,
      counts: qq.options.map((_, j) => counts[i]?.[j] ?? 0),
    }));
    const rowsOf = (qs: typeof questions) => qs.reduce((n, qq) => n + 1 + qq.options.length, 0);
    const rowH = Math.max(16, Math.min(28, Math.floor((avail - POLL_HEADER - 12) / Math.max(1, rowsOf(questions)))));
    while (questions.length > 1 && POLL_HEADER + 12 + rowsOf(questions) * rowH > avail) questions.pop();
    if (avail > POLL_HEADER + 12 + 3 * rowH) {
      const h = Math.min(avail, POLL_HEADER + 12 + rowsOf(questions) * rowH);
      const box = even({ x: rightX, y: right, w: RIGHT_W, h });
      panels.push({
        ...box,
        kind: 'pollResult',
        voters: p.voters,
        rowH,
        questions,
        key: `pollResult|${p.id}|${String(p.voters)}|${String(rowH)}|${JSON.stringify(questions)}`,
      });
    }
  }

  if (reward && reward.names.length > 0 && now >= reward.at - 1000 && now < reward.at + REWARD_BANNER_MS) {
    const box = even({ x: (area.w - BANNER_W) / 2, y: area.h - MARGIN - BANNER_H, w: BANNER_W, h: BANNER_H });
    panels.push({ ...box, kind: 'reward', names: reward.names, key: `reward|${String(reward.at)}|${reward.names.join('\u0000')}` });
  }
  return panels;
}

/** When the layout may next change by time alone (the next whole second of a timer, the banner's end); null: only an event changes it. */
export function nextChangeAt(
  tools: Tools | null,
  now: number,
  reward: RewardShown | null,
  groups: GroupsShown | null = null,
): number | null {
  let next: number | null = null;
  const at = (t: number) => {
    if (t > now && (next === null || t < next)) next = t;
  };
  // The groups' time left turns each whole second before its deadline.
  const deadline = groups ? groupsDeadline(groups) : 0;
  if (deadline > now) at(now + ((deadline - now) % 1000 || 1000));
  const t = tools?.timer;
  if (t?.running) {
    // The shown second turns when the value crosses a whole second.
    const v = timerValueMs(t, now);
    if (t.kind === 'countdown') {
      if (v > 0) at(now + (v % 1000 === 0 ? 1000 : v % 1000));
    } else at(now + (1000 - (v % 1000)));
  }
  const q = tools?.quiz;
  if (q && q.status === 'open' && q.endsAt > now) at(now + ((q.endsAt - now) % 1000 || 1000));
  if (reward) at(reward.at + REWARD_BANNER_MS);
  return next;
}

// ---- drawing ----------------------------------------------------------------------------------

type Ctx = CanvasRenderingContext2D;

/** Paints `panel` into `ctx`, whose canvas is the panel's size (0, 0 is its top left). */
export function drawPanel(ctx: Ctx, panel: Panel): void {
  const { w, h } = panel;
  ctx.save();
  ctx.globalCompositeOperation = 'source-over';
  ctx.fillStyle = OVERLAY_COLOURS.surface;
  ctx.fillRect(0, 0, w, h);
  ctx.strokeStyle = OVERLAY_COLOURS.edge;
  ctx.lineWidth = 2;
  ctx.strokeRect(1, 1, w - 2, h - 2);
  ctx.textBaseline = 'middle';
  switch (panel.kind) {
    case 'timer':
      drawTimer(ctx, panel);
      break;
    case 'quizOpen':
      icon(ctx, 'sheet', 28, h / 2);
      text(ctx, panel.collected ? `${LABEL.quiz} · ${LABEL.collected}` : LABEL.quiz, 52, 18, 14, OVERLAY_COLOURS.muted, w - 120);
      // The time left to answer, when the quiz has a limit.
      if (panel.left !== null) text(ctx, panel.left, w - 12, 18, 14, OVERLAY_COLOURS.paused, 60, 'right', 'bold');
      text(ctx, `${LABEL.answered} ${String(panel.answered)}`, 52, 38, 16, OVERLAY_COLOURS.text, w - 60);
      break;
    case 'pollOpen':
      icon(ctx, 'poll', 28, h / 2);
      text(ctx, panel.closed ? `${LABEL.poll} · ${LABEL.pollClosed}` : LABEL.poll, 52, 18, 14, OVERLAY_COLOURS.muted, w - 60);
      text(ctx, `${LABEL.voted} ${String(panel.voters)}`, 52, 38, 16, OVERLAY_COLOURS.text, w - 60);
      break;
    case 'buzzer':
      icon(ctx, 'bell', 28, h / 2);
      text(ctx, LABEL.buzzer, 52, 18, 14, OVERLAY_COLOURS.muted, w - 60);
      text(ctx, panel.winner ?? '…', 52, 38, 18, panel.winner ? OVERLAY_COLOURS.trophy : OVERLAY_COLOURS.text, w - 60, 'left', 'bold');
      break;
    case 'pick':
      icon(ctx, 'dice', 28, h / 2);
      text(ctx, LABEL.pick, 52, 18, 14, OVERLAY_COLOURS.muted, w - 60);
      text(ctx, panel.name, 52, 38, 18, OVERLAY_COLOURS.text, w - 60, 'left', 'bold');
      break;
    case 'reward':
      drawReward(ctx, panel);
      break;
    case 'groups':
      drawGroups(ctx, panel);
      break;
    case 'quizResult':
      drawQuizResult(ctx, panel);
      break;
    case 'pollResult':
      drawPollResult(ctx, panel);
      break;
  }
  ctx.restore();
}

/** The quiz result's bar of option `i` inside its panel (tests read its colour there). */
export function quizBarBox(panel: Extract<Panel, { kind: 'quizResult' }>, i: number): Box {
  const x = 48;
  const right = panel.w - 76;
  const max = Math.max(1, panel.answered, ...panel.tally);
  const full = right - x;
  const w = Math.round((full * (panel.tally[i] ?? 0)) / max);
  return { x, y: QUIZ_HEADER + i * QUIZ_ROW + 6, w, h: QUIZ_ROW - 12 };
}

/** The timer's digits inside its panel (tests compare this part of the frame). */
export const TIMER_DIGITS: Box = { x: 56, y: 8, w: 176, h: 56 };

function drawTimer(ctx: Ctx, panel: Extract<Panel, { kind: 'timer' }>): void {
  icon(ctx, panel.stopwatch ? 'stopwatch' : 'clock', 28, panel.h / 2);
  const colour = panel.tone === 'zero' ? OVERLAY_COLOURS.zero : panel.tone === 'paused' ? OVERLAY_COLOURS.paused : OVERLAY_COLOURS.text;
  const d = TIMER_DIGITS;
  text(ctx, panel.text, d.x + d.w / 2, d.y + d.h / 2 + 2, 40, colour, d.w, 'center', 'bold');
}

function drawQuizResult(ctx: Ctx, panel: Extract<Panel, { kind: 'quizResult' }>): void {
  const { w } = panel;
  text(ctx, LABEL.quizResult, 16, QUIZ_HEADER / 2, 16, OVERLAY_COLOURS.text, w - 130, 'left', 'bold');
  // Right / answered, as the class saw it.
  text(
    ctx,
    `✓ ${String(panel.right)}/${String(panel.answered)}`,
    w - 16,
    QUIZ_HEADER / 2,
    16,
    OVERLAY_COLOURS.correctText,
    110,
    'right',
    'bold',
  );
  for (const [i, count] of panel.tally.entries()) {
    const letter = LETTERS[i]!;
    const correct = panel.correct.includes(letter);
    const y = QUIZ_HEADER + i * QUIZ_ROW;
    const bar = quizBarBox(panel, i);
    // The letter, in a green disc when it is a right answer.
    if (correct) {
      ctx.fillStyle = OVERLAY_COLOURS.correct;
      ctx.beginPath();
      ctx.arc(26, y + QUIZ_ROW / 2, 12, 0, Math.PI * 2);
      ctx.fill();
    }
    text(ctx, letter, 26, y + QUIZ_ROW / 2 + 1, 16, OVERLAY_COLOURS.text, 24, 'center', 'bold');
    ctx.fillStyle = OVERLAY_COLOURS.track;
    ctx.fillRect(bar.x, bar.y, w - 76 - bar.x, bar.h);
    ctx.fillStyle = correct ? OVERLAY_COLOURS.correct : OVERLAY_COLOURS.bar;
    if (bar.w > 0) ctx.fillRect(bar.x, bar.y, bar.w, bar.h);
    const pct = panel.answered > 0 ? Math.round((100 * count) / panel.answered) : 0;
    text(ctx, `${String(count)} · ${String(pct)}%`, w - 12, y + QUIZ_ROW / 2 + 1, 14, OVERLAY_COLOURS.muted, 64, 'right');
  }
}

function drawPollResult(ctx: Ctx, panel: Extract<Panel, { kind: 'pollResult' }>): void {
  const { w, rowH } = panel;
  text(ctx, LABEL.pollResult, 16, POLL_HEADER / 2, 16, OVERLAY_COLOURS.text, w - 150, 'left', 'bold');
  text(ctx, `${LABEL.voted} ${String(panel.voters)}`, w - 16, POLL_HEADER / 2, 14, OVERLAY_COLOURS.muted, 130, 'right');
  const size = Math.max(11, Math.round(rowH * 0.55));
  let y = POLL_HEADER;
  for (const q of panel.questions) {
    text(ctx, q.text, 16, y + rowH / 2, size, OVERLAY_COLOURS.text, w - 32, 'left', 'bold');
    y += rowH;
    const total = Math.max(1, panel.voters, ...q.counts);
    for (const [j, option] of q.options.entries()) {
      const count = q.counts[j] ?? 0;
      text(ctx, option, 24, y + rowH / 2, size, OVERLAY_COLOURS.muted, 110);
      const bx = 140;
      const bw = w - 56 - bx;
      const bh = Math.max(4, rowH - 10);
      ctx.fillStyle = OVERLAY_COLOURS.track;
      ctx.fillRect(bx, y + (rowH - bh) / 2, bw, bh);
      ctx.fillStyle = OVERLAY_COLOURS.bar;
      const fw = Math.round((bw * count) / total);
      if (fw > 0) ctx.fillRect(bx, y + (rowH - bh) / 2, fw, bh);
      text(ctx, String(count), w - 12, y + rowH / 2, size, OVERLAY_COLOURS.muted, 40, 'right');
      y += rowH;
    }
  }
}

/** The groups banner's time left inside its panel (tests read its colour there). */
export const GROUPS_TIME: Box = { x: GROUPS_W - 78, y: 26, w: 68, h: 30 };

function drawGroups(ctx: Ctx, panel: Extract<Panel, { kind: 'groups' }>): void {
  // The accent of a running tool on its left edge: amber while everyone is being brought back.
  const accent = panel.closing ? OVERLAY_COLOURS.paused : OVERLAY_COLOURS.bar;
  ctx.fillStyle = accent;
  ctx.fillRect(0, 0, 4, panel.h);
  icon(ctx, 'groups', 24, panel.h / 2);
  const [zh, en] = groupsLines(panel.count);
  const textW = panel.w - 44 - (panel.left === null ? 10 : GROUPS_TIME.w + 14);
  text(ctx, zh, 44, 22, 15, OVERLAY_COLOURS.text, textW, 'left', 'bold');
  text(ctx, en, 44, 44, 13, OVERLAY_COLOURS.muted, textW);
  if (panel.left !== null) {
    const t = { ...GROUPS_TIME, x: panel.w - 10 - GROUPS_TIME.w };
    text(ctx, panel.closing ? LABEL.groupsReturn : LABEL.groupsLeft, t.x + t.w, 16, 11, OVERLAY_COLOURS.muted, t.w, 'right');
    // h:mm:ss (a limit of an hour or more) in smaller digits, so it fits.
    const size = panel.left.length > 5 ? 17 : 22;
    text(
      ctx,
      panel.left,
      t.x + t.w,
      t.y + t.h / 2,
      size,
      panel.closing ? OVERLAY_COLOURS.paused : OVERLAY_COLOURS.text,
      t.w,
      'right',
      'bold',
    );
  }
}

function drawReward(ctx: Ctx, panel: Extract<Panel, { kind: 'reward' }>): void {
  ctx.fillStyle = OVERLAY_COLOURS.trophy;
  ctx.fillRect(0, 0, panel.w, 4);
  icon(ctx, 'trophy', 36, panel.h / 2 + 2);
  const shown = panel.names.slice(0, 4).join('、');
  const more = panel.names.length > 4 ? ` +${String(panel.names.length - 4)}` : '';
  text(ctx, `${shown}${more}`, 72, panel.h / 2 + 2, 22, OVERLAY_COLOURS.text, panel.w - 140, 'left', 'bold');
  text(ctx, '+1', panel.w - 20, panel.h / 2 + 2, 22, OVERLAY_COLOURS.trophy, 56, 'right', 'bold');
}

/** Text at (x, y) (its middle), cut with an ellipsis to `max` pixels. */
function text(
  ctx: Ctx,
  value: string,
  x: number,
  y: number,
  size: number,
  colour: string,
  max: number,
  align: CanvasTextAlign = 'left',
  weight: 'normal' | 'bold' = 'normal',
): void {
  ctx.font = `${weight} ${String(size)}px ${FONT}`;
  ctx.fillStyle = colour;
  ctx.textAlign = align;
  let shown = value;
  if (ctx.measureText(shown).width > max) {
    const chars = [...value];
    while (chars.length > 0 && ctx.measureText(`${chars.join('')}…`).width > max) chars.pop();
    shown = `${chars.join('')}…`;
  }
  ctx.fillText(shown, x, y);
}

/** A small line icon (about 28 px) centred at (cx, cy). */
function icon(
  ctx: Ctx,
  kind: 'clock' | 'stopwatch' | 'sheet' | 'poll' | 'bell' | 'dice' | 'trophy' | 'groups',
  cx: number,
  cy: number,
): void {
  ctx.save();
  ctx.strokeStyle = OVERLAY_COLOURS.muted;
  ctx.fillStyle = OVERLAY_COLOURS.muted;
  ctx.lineWidth = 2.5;
  ctx.lineCap = 'round';
  ctx.lineJoin = 'round';
  ctx.beginPath();
  switch (kind) {
    case 'clock':
    case 'stopwatch':
      ctx.arc(cx, cy + 2, 11, 0, Math.PI * 2);
      ctx.moveTo(cx, cy + 2);
      ctx.lineTo(cx, cy - 5);
      ctx.moveTo(cx, cy + 2);
      ctx.lineTo(cx + 5, cy + 5);
      if (kind === 'stopwatch') {
        ctx.moveTo(cx - 3, cy - 13);
        ctx.lineTo(cx + 3, cy - 13);
      }
      ctx.stroke();
      break;
    case 'sheet':
      ctx.rect(cx - 9, cy - 12, 18, 24);
      ctx.moveTo(cx - 5, cy - 5);
      ctx.lineTo(cx + 5, cy - 5);
      ctx.moveTo(cx - 5, cy + 1);
      ctx.lineTo(cx + 5, cy + 1);
      ctx.moveTo(cx - 5, cy + 7);
      ctx.lineTo(cx + 1, cy + 7);
      ctx.stroke();
      break;
    case 'poll':
      ctx.fillRect(cx - 11, cy + 2, 5, 10);
      ctx.fillRect(cx - 3, cy - 10, 5, 22);
      ctx.fillRect(cx + 5, cy - 4, 5, 16);
      break;
    case 'bell':
      ctx.moveTo(cx - 10, cy + 7);
      ctx.lineTo(cx + 10, cy + 7);
      ctx.moveTo(cx - 8, cy + 7);
      ctx.quadraticCurveTo(cx - 8, cy - 11, cx, cy - 11);
      ctx.quadraticCurveTo(cx + 8, cy - 11, cx + 8, cy + 7);
      ctx.moveTo(cx - 3, cy + 11);
      ctx.lineTo(cx + 3, cy + 11);
      ctx.stroke();
      break;
    case 'dice':
      ctx.rect(cx - 11, cy - 11, 22, 22);
      ctx.stroke();
      for (const [dx, dy] of [
        [-5, -5],
        [5, 5],
        [0, 0],
      ] as const) {
        ctx.beginPath();
        ctx.arc(cx + dx, cy + dy, 2.2, 0, Math.PI * 2);
        ctx.fill();
      }
      break;
    case 'trophy':
      drawTrophy(ctx, cx, cy, 1);
      break;
    case 'groups':
      // Three people: two behind, one in front.
      for (const [dx, dy, r] of [
        [-8, -4, 4],
        [8, -4, 4],
        [0, 0, 5],
      ] as const) {
        ctx.beginPath();
        ctx.arc(cx + dx, cy + dy - 4, r, 0, Math.PI * 2);
        ctx.fill();
        ctx.beginPath();
        ctx.arc(cx + dx, cy + dy + 2 * r + 2, 1.6 * r, Math.PI, Math.PI * 2);
        ctx.fill();
      }
      break;
  }
  ctx.restore();
}

/** A gold trophy about 30 x 30 px at `scale` 1, centred at (cx, cy) (the banner's, and the name strips' small one). */
export function drawTrophy(ctx: Ctx, cx: number, cy: number, scale: number): void {
  ctx.save();
  ctx.translate(cx, cy);
  ctx.scale(scale, scale);
  ctx.fillStyle = OVERLAY_COLOURS.trophy;
  ctx.strokeStyle = OVERLAY_COLOURS.trophy;
  ctx.lineWidth = 2.5;
  // The cup, its handles, the stem and the base.
  ctx.beginPath();
  ctx.moveTo(-11, -14);
  ctx.lineTo(11, -14);
  ctx.lineTo(9, -2);
  ctx.quadraticCurveTo(0, 6, -9, -2);
  ctx.closePath();
  ctx.fill();
  for (const side of [-1, 1]) {
    ctx.beginPath();
    ctx.arc(side * 12, -8, 5, side < 0 ? Math.PI * 0.5 : Math.PI * 1.5, side < 0 ? Math.PI * 1.5 : Math.PI * 0.5);
    ctx.stroke();
  }
  ctx.fillRect(-2, 2, 4, 8);
  ctx.fillRect(-9, 10, 18, 5);
  ctx.restore();
}
