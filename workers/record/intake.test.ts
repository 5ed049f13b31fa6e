import { describe, expect, it } from 'vitest';
import type { PublishedTrack } from '#core/contracts/media-signaling.ts';
import { VideoIn } from './intake.ts';
import { LAYOUT } from './types.ts';

describe("VideoIn reads the decoder's YUV4MPEG2", () => {
  const camera: PublishedTrack = { trackId: 'v', userId: 'u', source: 'camera', kind: 'video', paused: false, layers: [] };
  const { w, h } = LAYOUT.camera;
  const size = (w * h * 3) / 2;
  const header = Buffer.from(`YUV4MPEG2 W${String(w)} H${String(h)} F15:1 Ip A1:1 C420jpeg XYSCSS=420JPEG\n`);
  const picture = (value: number) => Buffer.concat([Buffer.from('FRAME\n'), Buffer.alloc(size, value)]);

  it('takes each picture whole, however the pipe cuts the stream', () => {
    const v = new VideoIn(camera);
    const stream = Buffer.concat([header, picture(1), picture(2), picture(3)]);
    // Cuts inside the header, inside a FRAME line and inside a picture.
    for (const [from, to] of [
      [0, 7],
      [7, header.length + 3],
      [header.length + 3, header.length + 1000],
      [header.length + 1000, stream.length - 5],
      [stream.length - 5, stream.length],
    ] as const)
      v.onData(stream.subarray(from, to));
    expect(v.frames).toBe(3);
    expect(v.frame?.length).toBe(size);
    expect(v.frame?.every((b) => b === 3)).toBe(true);
    expect(v.pictureAt(performance.now())).toBe(v.frame);
  });

  it("starts again at a new decoder's header, and refuses a stream of another size", () => {
    const v = new VideoIn(camera);
    v.onData(Buffer.concat([header, picture(1)]).subarray(0, header.length + 100)); // a decoder cut short
    v.resetPartial();
    v.onData(Buffer.concat([header, picture(9)]));
    expect(v.frames).toBe(1);
    expect(v.frame?.every((b) => b === 9)).toBe(true);
    v.resetPartial();
    expect(() => v.onData(Buffer.from('YUV4MPEG2 W320 H180 F15:1\n'))).toThrow(/is not 640x360/);
  });
});
