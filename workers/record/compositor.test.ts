/**
 * The compositor's layouts: the gallery of the room's video view ('cameras') over the whole frame,
 * and the tiles column beside the main area, both from cameras decoded at gallery size.
 */
import { describe, expect, it } from 'vitest';
import { Compositor, Yuv, double, halve, type Tracks } from './compositor.ts';
import type { AudioIn, VideoIn } from './intake.ts';
import { LAYOUT, galleryCells, type Scene, type SceneView } from './types.ts';

const CAM = LAYOUT.camera;

/** A flat yuv420p picture of one luma. */
function flat(w: number, h: number, y: number): Buffer {
  const b = Buffer.alloc((w * h * 3) / 2, 128);
  b.fill(y, 0, w * h);
  return b;
}

function camera(userId: string, luma: number, appearedAt: number): VideoIn {
  const frame = flat(CAM.w, CAM.h, luma);
  return { userId, source: 'camera', paused: false, appearedAt, frames: 1, pictureAt: () => frame } as unknown as VideoIn;
}

function sceneOf(view: SceneView): Scene & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    current: () => view,
    label: (userId, w, h) => {
      asked.push(`${userId}:${String(w)}x${String(h)}`);
      return flat(w, h, 230);
    },
    close: () => undefined,
  };
}

function tracksOf(cams: VideoIn[]): Tracks {
  return { videos: new Map(cams.map((c) => [c.userId, c])), audios: new Map<string, AudioIn>() };
}

describe('galleryCells', () => {
  it('fills the frame with one, puts two side by side, makes a 2x2 of three or four', () => {
    expect(galleryCells(0)).toEqual([]);
    expect(galleryCells(1)).toEqual([{ x: 0, y: 0, w: 1280, h: 720, strip: 64 }]);
    expect(galleryCells(2).map(({ x, y, w, h }) => [x, y, w, h])).toEqual([
      [0, 180, 640, 360],
      [640, 180, 640, 360],
    ]);
    expect(galleryCells(3).map(({ x, y }) => [x, y])).toEqual([
      [0, 0],
      [640, 0],
      [320, 360],
    ]);
    expect(galleryCells(4).map(({ x, y }) => [x, y])).toEqual([
      [0, 0],
      [640, 0],
      [0, 360],
      [640, 360],
    ]);
    // Every cell inside the frame, even (yuv420p), and no two overlapping.
    for (let n = 1; n <= 4; n++) {
      const cells = galleryCells(n);
      for (const c of cells) {
        expect(c.x + c.w).toBeLessThanOrEqual(1280);
        expect(c.y + c.h).toBeLessThanOrEqual(720);
        expect([c.x, c.y, c.w, c.h, c.strip].every((v) => v % 2 === 0)).toBe(true);
      }
      for (const a of cells)
        for (const b of cells) if (a !== b) expect(a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y).toBe(true);
    }
  });
});

describe('halve and double', () => {
  it('averages 2x2 blocks and repeats pixels, on every plane', () => {
    const src = flat(8, 4, 0);
    // Luma row 0: 0, 100, 0, 100 ...; row 1: 200, 100, ...: each 2x2 block averages to 100.
    for (let x = 0; x < 8; x++) {
      src[x] = x % 2 ? 100 : 0;
      src[8 + x] = x % 2 ? 100 : 200;
    }
    const h = halve(src, 8, 4);
    expect(h.length).toBe((4 * 2 * 3) / 2);
    expect([...h.subarray(0, 4)]).toEqual([100, 100, 100, 100]);
    expect([...h.subarray(8)]).toEqual([128, 128, 128, 128]);
    const d = double(Buffer.from([1, 2, 3, 4, 9, 7]), 2, 2);
    expect([...d.subarray(0, 16)]).toEqual([1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4]);
    expect([...d.subarray(16)]).toEqual([9, 9, 9, 9, 7, 7, 7, 7]);
  });
});

describe('Compositor', () => {
  const view = (showState: string): SceneView => ({
    version: 1,
    showState,
    main: showState === 'wb' ? flat(960, 720, 128) : null,
    video: null,
    creatorId: 'teacher',
  });

  it("shows the room's video view as a gallery over the whole frame, not a black main area", () => {
    const cams = [camera('student', 160, 2), camera('teacher', 100, 3)];
    const scene = sceneOf(view('cameras'));
    const c = new Compositor({ scene, tracks: tracksOf(cams) });
    const f = new Yuv(1280, 720, c.compose());
    // Two side by side, the creator first (left), black above and below.
    expect(f.luma(320, 300)).toBe(100);
    expect(f.luma(960, 300)).toBe(160);
    expect(f.luma(320, 100)).toBe(16);
    expect(f.luma(960, 600)).toBe(16);
    // Their name strips are the cells' bottom 32 px.
    expect(f.luma(320, 180 + 360 - 10)).toBe(230);
    expect(scene.asked).toContain('teacher:640x32');

    // A third arrives: a 2x2 with the third centred below; the old bars are gone.
    cams.push(camera('late', 60, 9));
    const tracks = tracksOf(cams);
    const c3 = new Compositor({ scene, tracks });
    c3.compose();
    tracks.videos.delete('student');
    tracks.videos.delete('late');
    // Down to one: the picture doubled over the whole frame.
    const one = new Yuv(1280, 720, c3.compose());
    expect(one.luma(10, 10)).toBe(100);
    expect(one.luma(1270, 600)).toBe(100);
    expect(one.luma(640, 720 - 20)).toBe(230);
  });

  it('puts the 2x2 of three with the third centred, and goes back to the tiles column for the board', () => {
    const cams = [camera('teacher', 100, 1), camera('a', 160, 2), camera('b', 60, 3)];
    let shown = view('cameras');
    const scene = { ...sceneOf(view('cameras')), current: () => shown };
    const c = new Compositor({ scene, tracks: tracksOf(cams) });
    const g = new Yuv(1280, 720, c.compose());
    expect([g.luma(300, 100), g.luma(900, 100), g.luma(640, 500), g.luma(100, 500), g.luma(1200, 500)]).toEqual([100, 160, 60, 16, 16]);

    shown = view('wb');
    const f = new Yuv(1280, 720, c.compose());
    // The board in the main area, the cameras halved in the 320x180 tiles.
    expect(f.luma(500, 100)).toBe(128);
    expect([f.luma(1100, 50), f.luma(1100, 230), f.luma(1100, 410), f.luma(1100, 600)]).toEqual([100, 160, 60, 16]);
  });

  it("puts the class tools' panels over the board and the gallery, and uncovers what was under them when they go (ADR 115)", () => {
    const cams = [camera('teacher', 100, 1)];
    const board = view('wb');
    let shown: SceneView = board;
    const scene = { ...sceneOf(board), current: () => shown };
    const c = new Compositor({ scene, tracks: tracksOf(cams) });
    const panel = { kind: 'timer', x: 16, y: 16, w: 240, h: 72, yuv: flat(240, 72, 200) };
    shown = { ...board, version: 2, overlay: [panel] };
    let f = new Yuv(1280, 720, c.compose());
    expect([f.luma(16, 16), f.luma(255, 87), f.luma(256, 88), f.luma(500, 300)]).toEqual([200, 200, 128, 128]);
    // The same panel over a board drawn again (a stroke): still on top.
    shown = { ...board, version: 3, main: flat(960, 720, 90), overlay: [panel] };
    f = new Yuv(1280, 720, c.compose());
    expect([f.luma(100, 50), f.luma(500, 300)]).toEqual([200, 90]);
    // Moved down and then gone: the board where it was.
    const moved = { ...panel, y: 200 };
    shown = { ...shown, version: 4, overlay: [moved] };
    f = new Yuv(1280, 720, c.compose());
    expect([f.luma(100, 50), f.luma(100, 230)]).toEqual([90, 200]);
    shown = { ...shown, version: 5, overlay: [] };
    f = new Yuv(1280, 720, c.compose());
    expect([f.luma(100, 50), f.luma(100, 230), f.luma(1100, 50)]).toEqual([90, 90, 100]);
    // Over the room's video view too.
    shown = { ...view('cameras'), overlay: [panel] };
    f = new Yuv(1280, 720, c.compose());
    expect([f.luma(100, 50), f.luma(600, 400)]).toEqual([200, 100]);
  });
});
