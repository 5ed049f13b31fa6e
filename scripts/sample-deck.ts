/**
 * Draws the sample courseware deck every demo room shows (ADR 092): a few 1280x720 slides about
 * using Banshu, in Chinese and English, written as small JPEGs to core/courseware/sample-deck/.
 * Run after changing the words: `node scripts/sample-deck.ts` (the files are committed).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createCanvas, GlobalFonts } from '@napi-rs/canvas';
import { SAMPLE_DECK_SIZE, SAMPLE_DECK_SLIDES } from '#core/courseware/sample-deck.ts';

const OUT = path.resolve(import.meta.dirname, '../core/courseware/sample-deck');
const FONT = 'Noto Sans CJK SC';

if (!GlobalFonts.has(FONT) && !GlobalFonts.registerFromPath('/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc', FONT)) {
  throw new Error('the CJK font (fonts-noto-cjk) is needed to draw the sample deck');
}

const ACCENTS = ['#2f6fed', '#11998e', '#e67e22', '#8e44ad'];

mkdirSync(OUT, { recursive: true });
SAMPLE_DECK_SLIDES.forEach((slide, i) => {
  const { width, height } = SAMPLE_DECK_SIZE;
  const canvas = createCanvas(width, height);
  const g = canvas.getContext('2d');
  const accent = ACCENTS[i % ACCENTS.length]!;
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, width, height);
  g.fillStyle = accent;
  g.fillRect(0, 0, width, 16);
  g.fillRect(0, height - 64, width, 64);
  g.fillStyle = '#1d2433';
  g.font = `bold 60px "${FONT}"`;
  g.fillText(slide.zh.title, 96, 170);
  g.fillStyle = '#5b6478';
  g.font = `40px "${FONT}"`;
  g.fillText(slide.en.title, 96, 230);
  g.font = `32px "${FONT}"`;
  slide.zh.points.forEach((point, n) => {
    const y = 330 + n * 100;
    g.fillStyle = accent;
    g.beginPath();
    g.arc(112, y - 11, 9, 0, Math.PI * 2);
    g.fill();
    g.fillStyle = '#1d2433';
    g.fillText(point, 140, y);
    g.fillStyle = '#7a8296';
    g.font = `24px "${FONT}"`;
    g.fillText(slide.en.points[n] ?? '', 140, y + 38);
    g.font = `32px "${FONT}"`;
  });
  g.fillStyle = '#ffffff';
  g.font = `26px "${FONT}"`;
  g.fillText(`板书 Banshu · ${String(i + 1)} / ${String(SAMPLE_DECK_SLIDES.length)}`, 96, height - 22);
  const jpeg = canvas.encodeSync('jpeg', 80);
  const file = path.join(OUT, `${String(i + 1)}.jpg`);
  writeFileSync(file, jpeg);
  console.log(`${file}: ${String(jpeg.byteLength)} bytes`);
});
