/**
 * The scene's pixel work (ADR 075): RGBA to yuv420p as x264 takes it, the tiles' name strips, and
 * the CJK font the names and the board's text need.
 */
import { Buffer } from 'node:buffer';
import { createCanvas, GlobalFonts } from '@napi-rs/canvas';
import type { Logger } from '#core/platform/logger.ts';
import { OVERLAY_COLOURS, drawTrophy } from './tools-overlay.ts';

/** Strip colours: the classroom's dark tile text background, white text. */
const STRIP_BACKGROUND = '#1f2329';
const STRIP_TEXT = '#ffffff';
const LABEL_FONT = '"Noto Sans CJK SC", "Noto Sans CJK JP", "DejaVu Sans", sans-serif';

let fontsReady = false;
/**
 * The board's text and the names ask for "Noto Sans CJK SC"; the distribution's collection
 * (fonts-noto-cjk, infra/setup) may register its faces under another region's name.
 */
export function registerSceneFonts(logger?: Logger): void {
  if (fontsReady) return;
  fontsReady = true;
  if (GlobalFonts.has('Noto Sans CJK SC')) return;
  for (const family of ['Noto Sans CJK JP', 'Noto Sans CJK TC', 'Noto Sans CJK KR', 'Noto Sans CJK HK']) {
    if (GlobalFonts.has(family) && GlobalFonts.setAlias(family, 'Noto Sans CJK SC')) return;
  }
  const key = GlobalFonts.registerFromPath('/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc', 'Noto Sans CJK SC');
  if (!key) logger?.warn('no CJK font found (fonts-noto-cjk): Chinese names and board text may not show in recordings');
}

/**
 * RGBA (straight or premultiplied opaque) to yuv420p, BT.601 limited range (what x264 takes by
 * default): Y 16..235, U and V 16..240 around 128, chroma the mean of each 2 x 2 block. Odd sizes
 * round the chroma planes up, as ffmpeg does.
 */
export function rgbaToYuv420p(rgba: Uint8Array, width: number, height: number, out?: Buffer): Buffer {
  const cw = (width + 1) >> 1;
  const ch = (height + 1) >> 1;
  const ySize = width * height;
  const size = ySize + 2 * cw * ch;
  const yuv = out && out.length === size ? out : Buffer.allocUnsafe(size);
  let u = ySize;
  let v = ySize + cw * ch;
  for (let y = 0; y < height; y += 2) {
    // The row below (the same row again at an odd bottom edge).
    const down = y + 1 < height ? width : 0;
    for (let x = 0; x < width; x += 2) {
      const right = x + 1 < width ? 1 : 0;
      const p0 = y * width + x;
      const p1 = p0 + right;
      const p2 = p0 + down;
      const p3 = p2 + right;
      const i0 = p0 << 2;
      const i1 = p1 << 2;
      const i2 = p2 << 2;
      const i3 = p3 << 2;
      const r0 = rgba[i0]!;
      const g0 = rgba[i0 + 1]!;
      const b0 = rgba[i0 + 2]!;
      const r1 = rgba[i1]!;
      const g1 = rgba[i1 + 1]!;
      const b1 = rgba[i1 + 2]!;
      const r2 = rgba[i2]!;
      const g2 = rgba[i2 + 1]!;
      const b2 = rgba[i2 + 2]!;
      const r3 = rgba[i3]!;
      const g3 = rgba[i3 + 1]!;
      const b3 = rgba[i3 + 2]!;
      yuv[p0] = ((66 * r0 + 129 * g0 + 25 * b0 + 128) >> 8) + 16;
      yuv[p1] = ((66 * r1 + 129 * g1 + 25 * b1 + 128) >> 8) + 16;
      yuv[p2] = ((66 * r2 + 129 * g2 + 25 * b2 + 128) >> 8) + 16;
      yuv[p3] = ((66 * r3 + 129 * g3 + 25 * b3 + 128) >> 8) + 16;
      const r = (r0 + r1 + r2 + r3) >> 2;
      const g = (g0 + g1 + g2 + g3) >> 2;
      const b = (b0 + b1 + b2 + b3) >> 2;
      yuv[u++] = ((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128;
      yuv[v++] = ((112 * r - 94 * g - 18 * b + 128) >> 8) + 128;
    }
  }
  return yuv;
}

/**
 * A dark strip with the name in white, cut with an ellipsis when too long; with `trophies` (the
 * class's rewards, ADR 115), a gold trophy and the count at its right end, as the member list shows.
 */
export function drawLabel(name: string, w: number, h: number, trophies = 0): Buffer {
  const canvas = createCanvas(w, h);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = STRIP_BACKGROUND;
  ctx.fillRect(0, 0, w, h);
  const text = name.trim();
  const size = Math.max(8, Math.round(h * 0.58));
  const pad = Math.max(4, Math.round(h / 3));
  let right = w - pad;
  if (trophies > 0) {
    ctx.font = `bold ${String(size)}px ${LABEL_FONT}`;
    ctx.fillStyle = OVERLAY_COLOURS.trophy;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'right';
    const count = String(trophies);
    ctx.fillText(count, right, h / 2);
    right -= ctx.measureText(count).width + size * 0.9;
    drawTrophy(ctx as unknown as CanvasRenderingContext2D, right + size * 0.35, h / 2, (size * 0.85) / 30);
    right -= size * 0.9;
    ctx.textAlign = 'left';
  }
  if (text) {
    ctx.font = `${String(size)}px ${LABEL_FONT}`;
    ctx.fillStyle = STRIP_TEXT;
    ctx.textBaseline = 'middle';
    const room = right - pad;
    let shown = text;
    if (ctx.measureText(shown).width > room) {
      const chars = [...text];
      while (chars.length > 0 && ctx.measureText(`${chars.join('')}…`).width > room) chars.pop();
      shown = `${chars.join('')}…`;
    }
    ctx.fillText(shown, pad, h / 2);
  }
  return rgbaToYuv420p(canvas.data(), w, h);
}
