import { describe, expect, it } from 'vitest';
import { coverCrop, fitRect, FRAME_HEIGHT, FRAME_WIDTH, mapToFrame, pipRect } from './compositor.ts';

describe('the recorded picture', () => {
  it('fits a source inside the frame, centred, without cropping', () => {
    const full = { x: 0, y: 0, w: FRAME_WIDTH, h: FRAME_HEIGHT };
    expect(fitRect(1920, 1080, full)).toEqual(full);
    // A 4:3 camera (the 640x480 fallback): bars left and right.
    expect(fitRect(640, 480, full)).toEqual({ x: 160, y: 0, w: 960, h: 720 });
    // A portrait page: bars left and right.
    const page = fitRect(595, 842, full);
    expect(page.h).toBe(720);
    expect(page.x + page.w / 2).toBeCloseTo(640);
    // A very wide screen: bars above and below.
    expect(fitRect(3840, 1080, full)).toMatchObject({ x: 0, w: 1280, h: 360, y: 180 });
  });

  it('crops the corner camera to fill its 16:9 box', () => {
    expect(coverCrop(1280, 720, 320, 180)).toEqual({ x: 0, y: 0, w: 1280, h: 720 });
    expect(coverCrop(640, 480, 320, 180)).toEqual({ x: 0, y: 60, w: 640, h: 360 });
  });

  it('puts the corner camera bottom right, 320x180, 16 px in', () => {
    expect(pipRect()).toEqual({ x: 944, y: 524, w: 320, h: 180 });
  });

  it('maps an element on the stage into the frame', () => {
    const stage = { left: 100, top: 50, width: 640, height: 360 };
    expect(mapToFrame(stage, stage)).toEqual({ x: 0, y: 0, w: 1280, h: 720 });
    expect(mapToFrame({ left: 180, top: 50, width: 480, height: 360 }, stage)).toEqual({ x: 160, y: 0, w: 960, h: 720 });
  });
});
