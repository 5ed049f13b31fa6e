import { describe, expect, it } from 'vitest';
import type { Role } from '../contracts/room-events.ts';
import { mayDraw, mayOperate } from './permissions.ts';
import { imageType } from './board.service.ts';
import { STENCILS, stencilById, teachingPictureList } from './stencils.ts';

const room = (roomType: number, wbPower: '0' | '1') => ({ roomType, createUser: 't', wbPower });
const who = (uid: string, role: Role) => ({ uid, role });

describe('board permission', () => {
  it('the creator always; members and tourists only with wbPower on outside type 4; observers never', () => {
    for (const type of [1, 2, 3, 4]) {
      for (const power of ['0', '1'] as const) {
        const r = room(type, power);
        expect(mayDraw(who('t', 'creator'), r)).toBe(true);
        for (const role of ['member', 'tourist'] as const)
          expect(mayDraw(who('m', role), r), `${role} ${type} ${power}`).toBe(power === '1' && type !== 4);
        expect(mayDraw(who('o', 'observer'), r)).toBe(false);
        expect(mayDraw(who('x', 'recorder'), r)).toBe(false);
      }
    }
    // A creator role claimed for another user's room is not the creator.
    expect(mayDraw(who('someone', 'creator'), room(2, '0'))).toBe(false);
  });

  it("only the creator moves everyone's viewport", () => {
    expect(mayOperate(who('t', 'creator'), room(2, '1'), 'move_by_presenter')).toBe(true);
    expect(mayOperate(who('m', 'member'), room(2, '1'), 'move_by_presenter')).toBe(false);
    expect(mayOperate(who('m', 'member'), room(2, '1'), 'clear')).toBe(true);
  });

  it('while breakout groups run (ADR 116): a group member writes on the group page only, in any room type and wbPower; the leader clears it', () => {
    const inGroup = (leader = false) => ({ page: 3, leader, groupPages: [3, 4] });
    const mainRoom = { page: null, leader: false, groupPages: [3, 4] };
    for (const type of [1, 2, 3, 4]) {
      for (const power of ['0', '1'] as const) {
        const r = room(type, power);
        const m = who('m', 'tourist');
        expect(mayDraw(m, r, inGroup()), `${type} ${power}`).toBe(true);
        expect(mayOperate(m, r, 'create', 'wb:3', inGroup())).toBe(true);
        expect(mayOperate(m, r, 'undo', 'wb:3', inGroup())).toBe(true);
        for (const page of ['wb:0', 'wb:4', 'doc:d1:1']) expect(mayOperate(m, r, 'create', page, inGroup())).toBe(false);
        expect(mayOperate(m, r, 'clear', 'wb:3', inGroup())).toBe(false);
        expect(mayOperate(m, r, 'clear', 'wb:3', inGroup(true))).toBe(true);
        expect(mayOperate(m, r, 'move_by_presenter', 'wb:3', inGroup(true))).toBe(false);
        // The main room: the usual rules, but never on a group's page.
        expect(mayOperate(m, r, 'create', 'wb:0', mainRoom)).toBe(power === '1' && type !== 4);
        expect(mayOperate(m, r, 'create', 'wb:3', mainRoom)).toBe(false);
        // The teacher: everything; observers: nothing.
        for (const page of ['wb:0', 'wb:3', 'wb:4']) expect(mayOperate(who('t', 'creator'), r, 'clear', page, mainRoom)).toBe(true);
        expect(mayOperate(who('o', 'observer'), r, 'create', 'wb:3', inGroup())).toBe(false);
      }
    }
  });
});

describe('board files', () => {
  it('tells jpg and png by their first bytes, nothing else', () => {
    expect(imageType(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]))).toBe('image/png');
    expect(imageType(Uint8Array.from([0xff, 0xd8, 0xff, 0xdb, 0]))).toBe('image/jpeg');
    for (const bad of [[], [0xff, 0xd8], [0x47, 0x49, 0x46, 0x38, 0x39, 0x61], [0x3c, 0x73, 0x76, 0x67], [0x89, 0x50, 0x4e, 0x47]]) {
      expect(imageType(Uint8Array.from(bad))).toBeNull();
    }
  });

  it('lists stencils of the three subjects with unique ids and their URLs', () => {
    expect(new Set(STENCILS.map((s) => s.id)).size).toBe(STENCILS.length);
    for (const subject of [2, 3, 4]) expect(STENCILS.filter((s) => s.subjectId === subject).length).toBeGreaterThanOrEqual(5);
    expect(stencilById('physics-battery')?.subjectId).toBe(3);
    expect(stencilById('nope')).toBeUndefined();
    expect(teachingPictureList()[0]!.imageUrl).toBe(`/stencils/${STENCILS[0]!.id}.svg`);
  });
});
