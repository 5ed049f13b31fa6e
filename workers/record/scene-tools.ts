/**
 * The class tools as the recorder heard them (issue 30, ADR 115): the room's public `ClassTools`
 * from the join snapshot and each `tools` event, the server's clock from the time those carry, and
 * the last `rewarded` event. `panels()` answers the overlay the compositor copies over the frame:
 * yuv420p pictures of the panels of tools-overlay.ts, each drawn again only when what it shows
 * changes (an event, or the timer's next whole second); between changes it answers the same array,
 * so a frame costs a comparison. While breakout groups run (issue 31) it also shows their banner,
 * from the room's `groups` state.
 */
import type { Buffer } from 'node:buffer';
import { createCanvas } from '@napi-rs/canvas';
import type { ClassTools } from '#core/contracts/class-tools.ts';
import { rgbaToYuv420p } from './scene-pixels.ts';
import { drawPanel, layoutOverlay, nextChangeAt, type GroupsShown, type Panel, type RewardShown } from './tools-overlay.ts';
import type { OverlayPanel } from './types.ts';

export class SceneTools {
  readonly #area: { w: number; h: number };
  readonly #clock: () => number;
  #tools: ClassTools | null = null;
  /** The server's clock less this process's, from the last time the server told (ms). */
  #offset = 0;
  #reward: RewardShown | null = null;
  #groups: GroupsShown | null = null;
  /** Something was heard since the last layout. */
  #dirty = true;
  /** This process's time at which the layout may change by time alone (a timer's second, the banner's end). */
  #nextAt: number | null = null;
  #layoutKey = '';
  #panels: readonly OverlayPanel[] = [];
  /** Each panel's last picture, by kind: reused while its key is the same. */
  readonly #drawn = new Map<Panel['kind'], { key: string; w: number; h: number; yuv: Buffer }>();
  /** Panels drawn (tests and diagnostics: the timer's once a second, the others on change). */
  drawn = 0;

  constructor(area: { w: number; h: number }, clock: () => number = Date.now) {
    this.#area = area;
    this.#clock = clock;
  }

  /** The room's tools (the snapshot's, a `tools` event's) and the server time they were sent at. */
  heard(tools: ClassTools | null, serverTime?: number): void {
    this.#tools = tools;
    if (serverTime !== undefined && serverTime > 0) this.#offset = serverTime - this.#clock();
    this.#dirty = true;
  }

  /** The room's breakout groups (the snapshot's, a `groups` event's) and the server time they were sent at. */
  heardGroups(groups: GroupsShown | null, serverTime?: number): void {
    this.#groups = groups;
    if (serverTime !== undefined && serverTime > 0) this.#offset = serverTime - this.#clock();
    this.#dirty = true;
  }

  get groups(): GroupsShown | null {
    return this.#groups;
  }

  /** A `rewarded` event: its banner shows from the server time `at` for a few seconds. */
  rewarded(names: string[], at: number): void {
    this.#reward = { names, at };
    this.#dirty = true;
  }

  /** The server's time now, as this process reckons it from what the server told. */
  serverNow(): number {
    return this.#clock() + this.#offset;
  }

  get tools(): ClassTools | null {
    return this.#tools;
  }

  /** The overlay now: the same array while nothing shown changed. */
  panels(): readonly OverlayPanel[] {
    const local = this.#clock();
    if (!this.#dirty && (this.#nextAt === null || local < this.#nextAt)) return this.#panels;
    this.#dirty = false;
    const now = local + this.#offset;
    const layout = layoutOverlay(this.#tools, now, this.#reward, this.#area, this.#groups);
    const next = nextChangeAt(this.#tools, now, this.#reward, this.#groups);
    this.#nextAt = next === null ? null : next - this.#offset;
    if (this.#reward && now >= this.#reward.at + 60_000) this.#reward = null;
    const key = layout.map((p) => `${p.key}@${String(p.x)},${String(p.y)},${String(p.w)},${String(p.h)}`).join('\n');
    if (key === this.#layoutKey) return this.#panels;
    this.#layoutKey = key;
    this.#panels = layout.map((p) => ({ kind: p.kind, x: p.x, y: p.y, w: p.w, h: p.h, yuv: this.#picture(p) }));
    for (const kind of [...this.#drawn.keys()]) if (!layout.some((p) => p.kind === kind)) this.#drawn.delete(kind);
    return this.#panels;
  }

  #picture(p: Panel): Buffer {
    const held = this.#drawn.get(p.kind);
    if (held && held.key === p.key && held.w === p.w && held.h === p.h) return held.yuv;
    const canvas = createCanvas(p.w, p.h);
    drawPanel(canvas.getContext('2d') as unknown as CanvasRenderingContext2D, p);
    const yuv = rgbaToYuv420p(canvas.data(), p.w, p.h);
    this.#drawn.set(p.kind, { key: p.key, w: p.w, h: p.h, yuv });
    this.drawn++;
    return yuv;
  }
}
