/**
 * The feedback captcha image: four digits drawn as an SVG with jittered glyphs, crossing curves and
 * dots. It keeps casual scripts out; the real brake is the per-user feedback limit.
 */
import { randomInt } from 'node:crypto';

export const CAPTCHA_LENGTH = 4;
export const CAPTCHA_WIDTH = 120;
export const CAPTCHA_HEIGHT = 40;

export const newCaptchaCode = (): string => Array.from({ length: CAPTCHA_LENGTH }, () => String(randomInt(10))).join('');

const COLOURS = ['#1f4e9c', '#b3261e', '#2e7d32', '#6a1b9a', '#c25e00', '#00695c'];
const pick = <T>(list: readonly T[]): T => list[randomInt(list.length)]!;

export function captchaSvg(code: string): string {
  if (!/^\d{4}$/.test(code)) throw new Error('captcha code must be 4 digits');
  const parts: string[] = [];
  parts.push(`<rect width="${CAPTCHA_WIDTH}" height="${CAPTCHA_HEIGHT}" fill="#f4f6fa"/>`);
  for (let i = 0; i < 3; i++) {
    const y1 = randomInt(4, CAPTCHA_HEIGHT - 4);
    const y2 = randomInt(4, CAPTCHA_HEIGHT - 4);
    const cy = randomInt(0, CAPTCHA_HEIGHT);
    parts.push(
      `<path d="M0 ${y1} Q ${CAPTCHA_WIDTH / 2} ${cy} ${CAPTCHA_WIDTH} ${y2}" stroke="${pick(COLOURS)}" stroke-width="1.2" fill="none" opacity="0.6"/>`,
    );
  }
  [...code].forEach((digit, i) => {
    const x = 14 + i * 27 + randomInt(-3, 4);
    const y = 29 + randomInt(-4, 5);
    const rotate = randomInt(-25, 26);
    const size = randomInt(22, 29);
    parts.push(
      `<text x="${x}" y="${y}" font-family="Verdana, DejaVu Sans, sans-serif" font-size="${size}" font-weight="bold" fill="${pick(COLOURS)}" transform="rotate(${rotate} ${x + 7} ${y - 9})">${digit}</text>`,
    );
  });
  for (let i = 0; i < 24; i++) {
    parts.push(
      `<circle cx="${randomInt(CAPTCHA_WIDTH)}" cy="${randomInt(CAPTCHA_HEIGHT)}" r="${randomInt(1, 3) / 2}" fill="${pick(COLOURS)}" opacity="0.7"/>`,
    );
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${CAPTCHA_WIDTH}" height="${CAPTCHA_HEIGHT}" viewBox="0 0 ${CAPTCHA_WIDTH} ${CAPTCHA_HEIGHT}" role="img">${parts.join('')}</svg>`;
}
