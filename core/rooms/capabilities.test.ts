import { describe, expect, it } from 'vitest';
import { can, micHeldByMode, publishRights, rightsInMode } from './capabilities.ts';

/** The stage in the capability rule (ADR 112), room type by room type. */
describe('on stage', () => {
  it('a large-class student sends camera and microphone only while on stage, never a screen', () => {
    for (const role of ['member', 'tourist'] as const) {
      expect(publishRights({ roomType: 4, role })).toEqual([]);
      expect(publishRights({ roomType: 4, role, onStage: true })).toEqual(['mic', 'camera']);
      expect(publishRights({ roomType: 4, role, onStage: true, mode: 'lecture' })).toEqual(['mic', 'camera']);
    }
  });

  it('in the other room types the stage adds nothing to what the room type gives, it only lets lecture mode’s microphone open', () => {
    expect(publishRights({ roomType: 1, role: 'member', onStage: true })).toEqual(['mic', 'camera']);
    for (const roomType of [2, 3] as const) expect(publishRights({ roomType, role: 'member', onStage: true })).toEqual(['mic']);
    for (const roomType of [1, 2, 3] as const) {
      expect(can('mic', { roomType, role: 'member', mode: 'lecture' })).toBe(false);
      expect(can('mic', { roomType, role: 'member', mode: 'lecture', onStage: true })).toBe(true);
    }
  });

  it('on stage counts as invited for the media node’s hold in lecture mode', () => {
    expect(micHeldByMode({ role: 'member', mode: 'lecture' })).toBe(true);
    expect(micHeldByMode({ role: 'member', mode: 'lecture', onStage: true })).toBe(false);
    expect(rightsInMode(['mic', 'camera'], { role: 'member', mode: 'lecture' })).toEqual(['camera']);
    expect(rightsInMode(['mic', 'camera'], { role: 'member', mode: 'lecture', onStage: true })).toEqual(['mic', 'camera']);
  });

  it('observers and the recorder never send, on stage or not', () => {
    for (const roomType of [1, 2, 3, 4] as const) {
      expect(publishRights({ roomType, role: 'observer', onStage: true })).toEqual([]);
      expect(publishRights({ roomType, role: 'recorder', onStage: true })).toEqual([]);
    }
  });
});
