import { describe, expect, it } from 'vitest';
import { RoomEndings } from './room-endings.ts';

describe('room endings', () => {
  it('tells every listener in order, and a failing one does not keep the next from stopping', async () => {
    const endings = new RoomEndings();
    const heard: string[] = [];
    endings.on(async (room, why) => {
      heard.push(`recording ${room} ${why}`);
      throw new Error('store down');
    });
    const off = endings.on(async (room, why) => {
      heard.push(`streaming ${room} ${why}`);
    });
    await expect(endings.ended('7', 'room closed')).rejects.toThrow('store down');
    expect(heard).toEqual(['recording 7 room closed', 'streaming 7 room closed']);
    off();
    heard.length = 0;
    await expect(endings.ended('8', 'creator left')).rejects.toThrow('store down');
    expect(heard).toEqual(['recording 8 creator left']);
  });
});
