/**
 * The capability table (issue 27, ADR 099; ADR 112): room type 1-4 x role x mode x on stage,
 * for the trial, the screen, the camera and the microphone. Each row is decided three ways and all
 * three must agree:
 * - the table written out below (the product rule, docs/product/decisions.md and 02 §6);
 * - the server: the live service's trial decision, and the media node's rights for a token the
 *   web side signs for that person, after the node heard the room's mode and invitation;
 * - the classroom's buttons (app/classroom/media/controls.ts), from the room state the client holds.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { RoomType } from '#core/contracts/api.ts';
import type { MediaSource } from '#core/contracts/media-signaling.ts';
import { TokenSigner } from '#core/platform/secrets.ts';
import { MediaServer } from '#media/server.ts';
import { offeredControls } from '#app/classroom/media/controls.ts';
import type { ClassMode } from '#core/rooms/capabilities.ts';
import { trialDecision } from '#core/rooms/live.service.ts';
import { signMediaToken } from '#core/rooms/media-grant.ts';

type Role = 'creator' | 'member' | 'tourist' | 'observer';
type Cap = 'trial' | 'screen' | 'camera' | 'mic';

/**
 * The rule written out, in discuss mode without an invitation: T trial, S screen, C camera,
 * M microphone. A non-VIP creator of a type 1 or 4 room may take the trial; the audio and the
 * whiteboard classes send sound only; a large class's students are audience; observers never send.
 */
const DISCUSS: Record<RoomType, Record<Role, string>> = {
  1: { creator: 'TSCM', member: 'CM', tourist: 'CM', observer: '' },
  2: { creator: 'M', member: 'M', tourist: 'M', observer: '' },
  3: { creator: 'M', member: 'M', tourist: 'M', observer: '' },
  4: { creator: 'TSCM', member: '', tourist: '', observer: '' },
};
const LETTER: Record<Cap, string> = { trial: 'T', screen: 'S', camera: 'C', mic: 'M' };

/**
 * The written rule for any row: lecture closes a student's microphone unless on stage; the stage
 * gives a large-class student camera and microphone (ADR 112).
 */
function expected(roomType: RoomType, role: Role, mode: ClassMode, invited: boolean, cap: Cap): boolean {
  const base = DISCUSS[roomType][role].includes(LETTER[cap]);
  if (role === 'creator' || role === 'observer') return base;
  if (cap === 'camera') return base || (invited && roomType === 4);
  if (cap !== 'mic') return base;
  if (invited) return true;
  return base && mode === 'discuss';
}

const signer = new TokenSigner('t'.repeat(40));
const node = new MediaServer({ signer, rtc: { listenIp: '127.0.0.1', announcedAddress: '127.0.0.1', portRange: [40000, 40100] } });
afterAll(() => node.close());
let roomSeq = 100000;

/**
 * The server's rights for that person now: the web side signs the token (media-grant.ts) with the
 * room as it is, the node opens the room and then hears the mode and the invitation as control
 * commands, the way a class reaches them.
 */
function serverRights(roomType: RoomType, role: Role, mode: ClassMode, invited: boolean): MediaSource[] {
  const room = String(roomSeq++);
  const userId = '77';
  const token = signMediaToken(
    signer,
    { roomNumber: room, roomType, userId, role, userType: role === 'observer' ? '3' : '1', micConnected: invited },
    60,
    Date.now(),
  );
  const { peer } = node.join(token, () => undefined);
  node.apply({ op: 'mode', room, mode });
  if (invited) node.apply({ op: 'stage', room, userIds: [userId], off: [] });
  return peer.rights;
}

function serverSays(roomType: RoomType, role: Role, mode: ClassMode, invited: boolean): Record<Cap, boolean> {
  const rights = serverRights(roomType, role, mode, invited);
  const trial = trialDecision({ room_type: roomType, is_vip: '0', trial_started_at: null }, role) === 'ok';
  return { trial, screen: rights.includes('screen'), camera: rights.includes('camera'), mic: rights.includes('mic') };
}

function buttonsSay(roomType: RoomType, role: Role, mode: ClassMode, invited: boolean): Record<Cap, boolean> {
  const o = offeredControls({ roomType, role, isVip: false, mode, onStage: invited });
  return { trial: o.trial, screen: o.screen, camera: o.camera, mic: o.mic === 'open' };
}

const ROOM_TYPES = [1, 2, 3, 4] as const;
const ROLES = ['creator', 'member', 'tourist', 'observer'] as const;
const rows = ROOM_TYPES.flatMap((roomType) =>
  ROLES.flatMap((role) =>
    (['discuss', 'lecture'] as const).flatMap((mode) =>
      // Only a student can be brought on stage (the teacher is always on it; observers never publish).
      (role === 'member' || role === 'tourist' ? [false, true] : [false]).map((invited) => ({ roomType, role, mode, invited })),
    ),
  ),
);

describe('one rule per capability: the server and the buttons give the same answer', () => {
  it.each(rows)('type $roomType, $role, $mode, invited $invited', ({ roomType, role, mode, invited }) => {
    const want = Object.fromEntries(
      (['trial', 'screen', 'camera', 'mic'] as const).map((c) => [c, expected(roomType, role, mode, invited, c)]),
    );
    expect(serverSays(roomType, role, mode, invited)).toEqual(want);
    expect(buttonsSay(roomType, role, mode, invited)).toEqual(want);
  });

  it('the table covers every room type, role, mode and invitation (48 rows)', () => {
    // creator and observer: 4 types x 2 modes each; member and tourist: 4 types x 2 modes x invited or not.
    expect(rows).toHaveLength(2 * 4 * 2 + 2 * 4 * 2 * 2);
  });

  it('lecture mode shows a student the microphone button closed, not hidden, where the room type lets them speak', () => {
    for (const roomType of [1, 2, 3] as const) {
      expect(offeredControls({ roomType, role: 'member', mode: 'lecture' }).mic).toBe('closed');
      expect(offeredControls({ roomType, role: 'member', mode: 'discuss' }).mic).toBe('open');
    }
    // A large class's student has no microphone nor camera until on stage, in either mode.
    expect(offeredControls({ roomType: 4, role: 'member', mode: 'lecture' }).mic).toBe('hidden');
    expect(offeredControls({ roomType: 4, role: 'member', mode: 'lecture' }).camera).toBe(false);
    expect(offeredControls({ roomType: 4, role: 'member', mode: 'lecture', onStage: true }).mic).toBe('open');
    expect(offeredControls({ roomType: 4, role: 'member', mode: 'lecture', onStage: true }).camera).toBe(true);
  });

  it('the trial: a VIP room or a used trial is refused by the server and not offered', () => {
    for (const roomType of [1, 4] as const) {
      expect(trialDecision({ room_type: roomType, is_vip: '1', trial_started_at: null }, 'creator')).toBe('not-offered');
      expect(offeredControls({ roomType, role: 'creator', isVip: true }).trial).toBe(false);
      expect(trialDecision({ room_type: roomType, is_vip: '0', trial_started_at: new Date() }, 'creator')).toBe('used');
      expect(offeredControls({ roomType, role: 'creator', trialUsed: true }).trial).toBe(false);
    }
  });

  it('the media node gives a student the microphone back when the mode returns to discuss, and takes it when they leave the stage', () => {
    const room = String(roomSeq++);
    const token = signMediaToken(
      signer,
      { roomNumber: room, roomType: 1, userId: '5', role: 'member', userType: '1', micConnected: false },
      60,
      Date.now(),
    );
    const notes: string[] = [];
    const { peer } = node.join(token, (n) => notes.push(n.type === 'rightsChanged' ? `rights:${n.rights.join(',')}` : n.type));
    expect(peer.rights).toEqual(['mic', 'camera']);
    node.apply({ op: 'mode', room, mode: 'lecture' });
    expect(peer.rights).toEqual(['camera']);
    node.apply({ op: 'stage', room, userIds: ['9', '5'], off: [] });
    expect(peer.rights).toEqual(['mic', 'camera']);
    node.apply({ op: 'stage', room, userIds: ['9'], off: ['5'] });
    expect(peer.rights).toEqual(['camera']);
    node.apply({ op: 'mode', room, mode: 'discuss' });
    expect(peer.rights).toEqual(['mic', 'camera']);
    expect(notes).toEqual(['rights:camera', 'rights:mic,camera', 'rights:camera', 'rights:mic,camera']);
  });

  it('a token signed in lecture mode opens a room the node had not heard of in lecture mode', () => {
    const room = String(roomSeq++);
    const token = signMediaToken(
      signer,
      { roomNumber: room, roomType: 3, userId: '6', role: 'tourist', userType: '1', micConnected: false, mode: 'lecture' },
      60,
      Date.now(),
    );
    expect(node.join(token, () => undefined).peer.rights).toEqual([]);
    expect(node.modeOf(room).mode).toBe('lecture');
  });
});
