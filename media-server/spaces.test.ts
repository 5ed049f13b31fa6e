/**
 * The breakout groups' rules on the media node (ADR 117): who is in which space, who sees which
 * publication, what a change of the map tells whom, and how the node's rights follow the groups
 * (a group counts as the stage; leaving it takes a large class's camera and microphone). The
 * media itself (no packet across spaces) is proven with real peers in
 * tests/integration/media-groups.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { MediaNote, MediaTokenPayload } from '#core/contracts/media-signaling.ts';
import { TokenSigner } from '#core/platform/secrets.ts';
import { leftGroups, sees, spaceOf, spacesChange, withClaim, type Someone } from './spaces.ts';
import { MediaServer } from './server.ts';

const member = (userId: string): Someone => ({ userId, role: 'member' });

describe('spaces', () => {
  const spaces = new Map([
    ['1', 1],
    ['2', 1],
    ['3', 2],
    ['9', 2],
    ['obs', 1],
  ]);

  it('places each person by the map; observers and the recorder always in the main room', () => {
    expect(spaceOf(spaces, member('1'))).toBe(1);
    expect(spaceOf(spaces, member('3'))).toBe(2);
    expect(spaceOf(spaces, member('5'))).toBe(0);
    expect(spaceOf(spaces, { userId: '9', role: 'creator' })).toBe(2);
    expect(spaceOf(spaces, { userId: 'obs', role: 'observer' })).toBe(0);
    expect(spaceOf(spaces, { userId: 'obs', role: 'recorder' })).toBe(0);
  });

  it('a peer sees only publications of its own space', () => {
    expect(sees(spaces, member('1'), member('2'))).toBe(true);
    expect(sees(spaces, member('1'), member('3'))).toBe(false);
    expect(sees(spaces, member('5'), member('6'))).toBe(true);
    expect(sees(spaces, member('5'), member('1'))).toBe(false);
    // The teacher visiting group 2 is heard there, not in the main room.
    expect(sees(spaces, member('3'), { userId: '9', role: 'creator' })).toBe(true);
    expect(sees(spaces, { userId: 'rec', role: 'recorder' }, { userId: '9', role: 'creator' })).toBe(false);
    expect(sees(new Map(), member('1'), member('3'))).toBe(true);
  });

  it('a token’s claim replaces its holder’s place, leaves the map as it was when it says the same, and never places an observer', () => {
    const m = new Map([['1', 1]]);
    expect(withClaim(m, member('1'), 1)).toBe(m);
    expect([...withClaim(m, member('1'), 3)]).toEqual([['1', 3]]);
    expect([...withClaim(m, member('1'), 0)]).toEqual([]);
    expect([...withClaim(m, member('1'), undefined)]).toEqual([]);
    expect([...withClaim(m, member('2'), 2)]).toEqual([
      ['1', 1],
      ['2', 2],
    ]);
    expect(withClaim(m, { userId: '7', role: 'observer' }, 2)).toBe(m);
    expect([...m]).toEqual([['1', 1]]);
  });

  it('those who left a group for the main room', () => {
    const before = new Map([
      ['1', 1],
      ['2', 1],
      ['3', 2],
    ]);
    const after = new Map([
      ['1', 2],
      ['4', 1],
    ]);
    expect(leftGroups(before, after).sort()).toEqual(['2', '3']);
    expect(leftGroups(before, new Map())).toEqual(['1', '2', '3']);
    expect(leftGroups(new Map(), after)).toEqual([]);
  });

  it('a change of the map: each peer is told the tracks it stops and starts seeing, never its own', () => {
    const peers = ['1', '2', '3', '9'].map(member);
    const tracks = [
      { id: 'a', by: '1' },
      { id: 'b', by: '3' },
      { id: 'c', by: '9' },
    ];
    const change = (before: Map<string, number>, after: Map<string, number>) => {
      const c = spacesChange(
        before,
        after,
        peers,
        tracks,
        (t) => member(t.by),
        (p, t) => p.userId === t.by,
      );
      const pairs = (l: typeof c.hidden) => l.map(({ peer, track }) => `${peer.userId}:${track.id}`).sort();
      return { hidden: pairs(c.hidden), shown: pairs(c.shown) };
    };
    // Groups start: 1 and 2 in group 1, 3 in group 2; the teacher (9) stays in the main room.
    const running = new Map([
      ['1', 1],
      ['2', 1],
      ['3', 2],
    ]);
    expect(change(new Map(), running)).toEqual({
      hidden: ['1:b', '1:c', '2:b', '2:c', '3:a', '3:c', '9:a', '9:b'],
      shown: [],
    });
    // 2 moves to group 2 and the teacher visits group 2.
    const moved = new Map([
      ['1', 1],
      ['2', 2],
      ['3', 2],
      ['9', 2],
    ]);
    expect(change(running, moved)).toEqual({ hidden: ['2:a'], shown: ['2:b', '2:c', '3:c', '9:b'] });
    // The groups end: everyone sees everyone again.
    expect(change(moved, new Map())).toEqual({ hidden: [], shown: ['1:b', '1:c', '2:a', '3:a', '9:a'] });
    expect(change(moved, moved)).toEqual({ hidden: [], shown: [] });
  });
});

describe('the node’s rights in groups', () => {
  const signer = new TokenSigner('g'.repeat(40));
  const rtc = { listenIp: '127.0.0.1', announcedAddress: '127.0.0.1', portRange: [40000, 40100] as [number, number] };
  let seq = 300000;
  /** The groups events' server times, in order. */
  let told = 1_000;
  const token = (over: Partial<MediaTokenPayload>, now = Date.now()) =>
    signer.sign({ scope: 'media', room: '0', uid: '1', role: 'member', rt: 4, pub: [], ...over }, 120, now);

  function largeClass() {
    const node = new MediaServer({ signer, rtc });
    const room = String(seq++);
    const notes = new Map<string, MediaNote[]>();
    const join = (uid: string, over: Partial<MediaTokenPayload> = {}) => {
      const list: MediaNote[] = [];
      notes.set(uid, list);
      return node.join(token({ room, uid, ...over }), (n) => list.push(n)).peer;
    };
    return { node, room, notes, join };
  }

  it('a large-class student in a group sends camera and microphone, and loses them at once on leaving it (held against the old token)', () => {
    const { node, room, notes, join } = largeClass();
    try {
      join('9', { role: 'creator', pub: ['mic', 'camera', 'screen'] });
      // Signed in group 1 (as if on stage): camera and microphone.
      const student = join('5', { pub: ['mic', 'camera'], mic: true, grp: 1 });
      const other = join('6', { pub: ['mic', 'camera'], mic: true, grp: 1 });
      expect(student.rights).toEqual(['mic', 'camera']);
      node.apply({
        op: 'groups',
        room,
        serverTime: ++told,
        spaces: [
          ['5', 1],
          ['6', 2],
        ],
      });
      expect(student.rights).toEqual(['mic', 'camera']);
      expect(other.rights).toEqual(['mic', 'camera']);
      // 5 goes back to the main room, not on stage: camera and microphone go now, and are told.
      node.apply({ op: 'groups', room, serverTime: ++told, spaces: [['6', 2]] });
      expect(student.rights).toEqual([]);
      expect(notes.get('5')!.at(-1)).toEqual({ type: 'rightsChanged', rights: [] });
      expect(other.rights).toEqual(['mic', 'camera']);
      // The token from before cannot bring them back.
      const again = node.join(token({ room, uid: '5', pub: ['mic', 'camera'], mic: true, grp: 1 }, Date.now() - 5000), () => undefined);
      expect(again.peer.rights).toEqual([]);
      // On stage, leaving a group takes nothing.
      node.apply({ op: 'stage', room, userIds: ['6'], off: [] });
      node.apply({ op: 'groups', room, serverTime: ++told, spaces: [] });
      expect(other.rights).toEqual(['mic', 'camera']);
    } finally {
      node.close();
    }
  });

  it('taken off the stage while in a group: the group keeps the student’s camera and microphone', () => {
    const { node, room, join } = largeClass();
    try {
      const student = join('5', { pub: ['mic', 'camera'], mic: true });
      node.apply({ op: 'stage', room, userIds: ['5'], off: [] });
      node.apply({ op: 'groups', room, serverTime: ++told, spaces: [['5', 3]] });
      node.apply({ op: 'stage', room, userIds: [], off: ['5'] });
      expect(student.rights).toEqual(['mic', 'camera']);
      node.apply({ op: 'groups', room, serverTime: ++told, spaces: [] });
      expect(student.rights).toEqual([]);
    } finally {
      node.close();
    }
  });

  it('lecture mode holds a student’s microphone in the main room, not in a group', () => {
    const { node, room, join } = largeClass();
    try {
      const student = join('5', { rt: 1, pub: ['mic', 'camera'], mode: 'lecture' });
      expect(student.rights).toEqual(['camera']);
      node.apply({ op: 'groups', room, serverTime: ++told, spaces: [['5', 2]] });
      expect(student.rights).toEqual(['mic', 'camera']);
      node.apply({ op: 'groups', room, serverTime: ++told, spaces: [] });
      expect(student.rights).toEqual(['camera']);
    } finally {
      node.close();
    }
  });

  it('until told, tokens’ grp claims place their holders; once told, the web side’s map is the word', () => {
    const { node, room, join } = largeClass();
    try {
      join('5', { rt: 1, pub: ['mic'], grp: 2 });
      join('6', { rt: 1, pub: ['mic'] });
      const r = node.rooms.get(room)!;
      expect([...r.spaces]).toEqual([['5', 2]]);
      node.apply({ op: 'groups', room, serverTime: ++told, spaces: [['6', 1]] });
      expect([...r.spaces]).toEqual([['6', 1]]);
      // A token signed before the change says otherwise: the told map stands.
      join('7', { rt: 1, pub: ['mic'], grp: 4 });
      expect([...r.spaces]).toEqual([['6', 1]]);
      // An observer is never in a group, whatever the map says.
      const observer = join('6', { rt: 1, pub: [], role: 'observer' });
      expect(r.spaceOf(observer)).toBe(0);
    } finally {
      node.close();
    }
  });

  it('a map older than the last applied (calls that crossed on the way to a remote node) changes nothing', () => {
    const { node, room, join } = largeClass();
    try {
      const student = join('5', { pub: ['mic', 'camera'], mic: true, grp: 1 });
      const r = node.rooms.get(room)!;
      node.apply({ op: 'groups', room, serverTime: 2000, spaces: [['5', 2]] });
      // The start's call (older) arrives after the move's: ignored, nobody revoked.
      node.apply({ op: 'groups', room, serverTime: 1999, spaces: [] });
      expect([...r.spaces]).toEqual([['5', 2]]);
      expect(student.rights).toEqual(['mic', 'camera']);
      // The same call again (a retry) is applied as before.
      node.apply({ op: 'groups', room, serverTime: 2000, spaces: [['5', 2]] });
      expect([...r.spaces]).toEqual([['5', 2]]);
      node.apply({ op: 'groups', room, serverTime: 2001, spaces: [] });
      expect([...r.spaces]).toEqual([]);
      expect(student.rights).toEqual([]);
    } finally {
      node.close();
    }
  });

  it('refuses a token whose grp is out of range', () => {
    const { node, join } = largeClass();
    try {
      expect(() => join('5', { grp: 13 })).toThrow(expect.objectContaining({ code: '33001' }));
      expect(() => join('5', { grp: -1 })).toThrow(expect.objectContaining({ code: '33001' }));
    } finally {
      node.close();
    }
  });
});
