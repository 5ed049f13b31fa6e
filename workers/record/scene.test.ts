/** The scene's pixel work without a room: the yuv420p conversion x264 takes, and the name strips. */
import { expect, it } from 'vitest';
import { drawLabel, registerSceneFonts, rgbaToYuv420p } from './scene.ts';

const solid = (w: number, h: number, r: number, g: number, b: number) => {
  const px = new Uint8Array(w * h * 4);
  for (let i = 0; i < w * h; i++) px.set([r, g, b, 255], i * 4);
  return px;
};

it('converts RGBA to yuv420p in BT.601 limited range: white 235, black 16, any colour within 1 of the exact formula', () => {
  const at = (r: number, g: number, b: number) => {
    const yuv = rgbaToYuv420p(solid(2, 2, r, g, b), 2, 2);
    return [yuv[0]!, yuv[4]!, yuv[5]!];
  };
  expect(at(255, 255, 255)).toEqual([235, 128, 128]);
  expect(at(0, 0, 0)).toEqual([16, 128, 128]);
  const exact = (r: number, g: number, b: number) => [
    16 + (219 * (0.299 * r + 0.587 * g + 0.114 * b)) / 255,
    128 + (224 * (-0.168736 * r - 0.331264 * g + 0.5 * b)) / 255,
    128 + (224 * (0.5 * r - 0.418688 * g - 0.081312 * b)) / 255,
  ];
  const colours = [
    [255, 0, 0],
    [0, 255, 0],
    [0, 0, 255],
    [229, 57, 53],
    [242, 242, 242],
    [72, 124, 255],
    ...Array.from({ length: 50 }, (_, i) => [(i * 97) % 256, (i * 57 + 13) % 256, (i * 31 + 200) % 256]),
  ];
  for (const [r, g, b] of colours) {
    const got = at(r!, g!, b!);
    exact(r!, g!, b!).forEach((want, k) => expect(Math.abs(got[k]! - want), `${r},${g},${b} plane ${k}`).toBeLessThanOrEqual(1));
  }
});

it('lays out the planes (Y, then U, then V), averages chroma over 2 x 2 blocks and rounds odd sizes up', () => {
  // Left column black, right column white: each 2 x 2 block is half and half.
  const px = new Uint8Array(2 * 2 * 4);
  for (const i of [1, 3]) px.set([255, 255, 255, 255], i * 4);
  for (const i of [0, 2]) px.set([0, 0, 0, 255], i * 4);
  const yuv = rgbaToYuv420p(px, 2, 2);
  expect([...yuv]).toEqual([16, 235, 16, 235, 128, 128]);
  const odd = rgbaToYuv420p(solid(3, 3, 255, 255, 255), 3, 3);
  expect(odd).toHaveLength(9 + 2 * 4);
  expect([...odd.subarray(0, 9)].every((y) => y === 235)).toBe(true);
  expect([...odd.subarray(9)].every((c) => c === 128)).toBe(true);
});

it('draws a name strip: dark, with the name in white, Chinese included, cut to fit', () => {
  registerSceneFonts();
  const bright = (b: Buffer, w: number, h: number) => b.subarray(0, w * h).filter((y) => y > 180).length;
  const empty = drawLabel('', 320, 24);
  expect(bright(empty, 320, 24)).toBe(0);
  expect(empty[0]).toBeLessThan(50);
  const cjk = drawLabel('王小明', 320, 24);
  expect(bright(cjk, 320, 24)).toBeGreaterThan(40);
  // A name far longer than the strip: text up to the right padding, never past it.
  const long = drawLabel('很长的名字'.repeat(20), 320, 24);
  let rightmost = 0;
  for (let y = 0; y < 24; y++) for (let x = 0; x < 320; x++) if (long[y * 320 + x]! > 180) rightmost = Math.max(rightmost, x);
  expect(rightmost).toBeGreaterThan(250);
  expect(rightmost).toBeLessThan(320 - 4);
});
