import { describe, expect, it } from 'vitest';
import { roomPatchSchema } from './room-events.ts';
import { readRoomExtend, roomExtendTextSchema, writeRoomExtend } from './room-extend.ts';

describe('roomExtend, read in one place', () => {
  it('reads the board’s fields, with colour 0, page 0 and no follow for anything missing, odd or out of range', () => {
    expect(readRoomExtend('{"color":3,"pageIndex":20,"follow":1,"screenOwner":"u1"}')).toEqual({
      color: 3,
      pageIndex: 20,
      follow: true,
      fields: { color: 3, pageIndex: 20, follow: 1, screenOwner: 'u1' },
    });
    const blank = { color: 0, pageIndex: 0, follow: false };
    for (const odd of [
      '',
      'not json',
      '[1,2]',
      'null',
      '"text"',
      '{"color":9,"pageIndex":21,"follow":true}',
      '{"color":-1,"pageIndex":1.5}',
    ])
      expect(readRoomExtend(odd)).toMatchObject(blank);
    // Numbers written as text by older clients still read.
    expect(readRoomExtend('{"color":"2","pageIndex":"4"}')).toMatchObject({ color: 2, pageIndex: 4 });
  });

  it('writes changed fields over the object and keeps every other field', () => {
    expect(JSON.parse(writeRoomExtend('{"screenOwner":"u1","color":1}', { pageIndex: 4 }))).toEqual({
      screenOwner: 'u1',
      color: 1,
      pageIndex: 4,
    });
    expect(JSON.parse(writeRoomExtend('broken', { follow: 1 }))).toEqual({ follow: 1 });
  });

  it('a patch takes only a JSON object of at most 4 KiB', () => {
    expect(roomExtendTextSchema.safeParse('{"a":1}').success).toBe(true);
    for (const bad of ['', '[1]', 'null', 'nope', `{"a":"${'x'.repeat(4096)}"}`])
      expect(roomExtendTextSchema.safeParse(bad).success).toBe(false);
    expect(roomPatchSchema.safeParse({ roomExtend: '[]' }).success).toBe(false);
    expect(roomPatchSchema.safeParse({ roomExtend: '{"pageIndex":2}' }).success).toBe(true);
  });
});
