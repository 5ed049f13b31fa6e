/**
 * The media node: rooms by number, each with its peers. It trusts nothing but the signed media
 * token; the web side can also take rights back (a stopped microphone), remove a person (kick-out)
 * or close a room through the methods below.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { GROUPS_MAX } from '#core/contracts/groups.ts';
import type { MediaControlCommand } from '#core/contracts/media-control.ts';
import type { MediaNote, MediaSource, MediaTokenPayload } from '#core/contracts/media-signaling.ts';
import { MEDIA_SOURCES } from '#core/contracts/media-signaling.ts';
import { DomainError } from '#core/platform/errors.ts';
import type { TokenSigner } from '#core/platform/secrets.ts';
import { CLASS_MODES, rightsInMode, type ClassMode } from '#core/rooms/capabilities.ts';
import { Peer } from './peer.ts';
import { Revocations } from './revocations.ts';
import { Room } from './room.ts';
import { leftGroups, NO_SPACES, spaceOf, withClaim, type Spaces } from './spaces.ts';
import type { RtcSettings } from './rtc.ts';

export interface MediaServerOptions {
  signer: TokenSigner;
  rtc: RtcSettings;
  now?: () => number;
  /** How long an empty room is kept for a quick reconnect. */
  roomLingerMs?: number;
  /** The media token lifetime: revocations are held this long (default 120; ADR 066). */
  tokenTtlSeconds?: number;
}

export interface MediaLoad {
  rooms: number;
  peers: number;
  publications: number;
  subscriptions: number;
}

interface RoomMode {
  mode: ClassMode;
  /** Who is on the room's stage (ADR 112): they speak in lecture mode; a large class's students among them send. */
  stage: ReadonlySet<string>;
  /** The web side told this node the stage (a control command); until then tokens that say "on stage" add to it. */
  told: boolean;
  /** Who is in which breakout group (issue 31, ADR 117): a group counts as on stage. */
  spaces: Spaces;
  /** The web side told this node the groups (a control command); until then each token's `grp` claim places its holder. */
  spacesTold: boolean;
  /** The server time of the groups map applied last: an older one arriving late is ignored. */
  spacesAt: number;
}

const MAX_MODES = 50_000;

const ROOM_RULE = /^[A-Za-z0-9]{6,10}$/;

/** A token's claim by its schema (a valid signature over a wrong shape is still refused). */
const mediaClaim = z.object({
  scope: z.literal('media'),
  room: z.string().regex(ROOM_RULE),
  uid: z.string(),
  role: z.enum(['creator', 'member', 'tourist', 'observer', 'recorder']),
  rt: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)]),
  pub: z.array(z.enum(MEDIA_SOURCES)),
  mode: z.enum(CLASS_MODES).optional(),
  mic: z.boolean().optional(),
  grp: z.number().int().min(0).max(GROUPS_MAX).optional(),
  exp: z.number(),
});

export class MediaServer {
  readonly rooms = new Map<string, Room>();
  readonly #opts: MediaServerOptions;
  /** Kick-outs, ended classes and microphones taken back, held for the token lifetime (ADR 066). */
  readonly revocations: Revocations;
  /**
   * Each room's class mode and who is on its stage (ADR 099, ADR 112), as the web side last said
   * (control commands), else as the tokens that opened the room here said. Kept
   * whether or not the room is on this node, like the revocations; bounded like them.
   */
  readonly #modes = new Map<string, RoomMode>();
  #closed = false;

  constructor(opts: MediaServerOptions) {
    this.#opts = opts;
    this.revocations = new Revocations(opts.tokenTtlSeconds ?? 120);
  }

  verify(token: string): MediaTokenPayload & { exp: number } {
    const claim = mediaClaim.safeParse(this.#opts.signer.verify(token, (this.#opts.now ?? Date.now)()));
    if (!claim.success) throw new DomainError('33001');
    return claim.data;
  }

  /** A peer for a signaling connection; `send` carries notes back to it. */
  join(token: string, send: (note: MediaNote) => void): { peer: Peer; room: Room } {
    if (this.#closed) throw new DomainError('33005');
    const claim = this.verify(token);
    // A recorder never publishes, whatever its token says.
    const pub = claim.role === 'recorder' ? [] : this.revocations.check(claim, (this.#opts.now ?? Date.now)());
    let room = this.rooms.get(claim.room);
    if (!room || room.closed) {
      room = new Room(claim.room, this.#opts.rtc, this.#opts.roomLingerMs ?? 5000);
      const created = room;
      this.rooms.set(claim.room, created);
      created.once('closed', () => {
        if (this.rooms.get(claim.room) === created) this.rooms.delete(claim.room);
      });
    }
    // The room's mode: as the web side said, or as this token says when the node heard nothing yet.
    const known = this.#modes.get(claim.room);
    // A token signed in a breakout group says "on stage" for the group's sake (ADR 117): the stage is not told by it.
    const onStage = !!claim.mic && !claim.grp;
    if (!known)
      this.#setMode(claim.room, {
        mode: claim.mode ?? 'discuss',
        stage: new Set(onStage ? [claim.uid] : []),
        told: false,
        spaces: NO_SPACES,
        spacesTold: false,
        spacesAt: 0,
      });
    else if (!known.told && onStage && !known.stage.has(claim.uid))
      this.#setMode(claim.room, { ...known, stage: new Set([...known.stage, claim.uid]) });
    this.#spacesFromToken(claim);
    // Before the peer is in: those of the room see what the map says; the newcomer's view follows.
    room.setSpaces(this.modeOf(claim.room).spaces);
    const peer = new Peer(randomUUID(), { ...claim, pub }, send);
    peer.rights = this.#rightsNow(claim.room, peer);
    room.addPeer(peer);
    return { peer, room };
  }

  /** The room's mode as this node knows it (ADR 099); discuss when it knows nothing. */
  modeOf(roomNumber: string): RoomMode {
    return (
      this.#modes.get(roomNumber) ?? { mode: 'discuss', stage: new Set(), told: false, spaces: NO_SPACES, spacesTold: false, spacesAt: 0 }
    );
  }

  /** Until the web side tells the room's groups, a token's `grp` claim places its holder (a new token's word is the latest). */
  #spacesFromToken(claim: MediaTokenPayload): void {
    const m = this.modeOf(claim.room);
    if (m.spacesTold) return;
    const spaces = withClaim(m.spaces, { userId: claim.uid, role: claim.role }, claim.grp);
    if (spaces !== m.spaces) this.#setMode(claim.room, { ...m, spaces });
  }

  #setMode(roomNumber: string, m: RoomMode): void {
    this.#modes.delete(roomNumber);
    this.#modes.set(roomNumber, m);
    while (this.#modes.size > MAX_MODES) this.#modes.delete(this.#modes.keys().next().value!);
  }

  /** What a peer may send now: its granted rights as the room's mode leaves them (core/rooms/capabilities.ts). */
  #rightsNow(roomNumber: string, peer: Peer): MediaSource[] {
    if (peer.hidden) return [];
    const m = this.modeOf(roomNumber);
    // In a breakout group counts as on stage (ADR 117): the group talks whatever the main room's mode.
    const onStage = m.stage.has(peer.userId) || spaceOf(m.spaces, peer) > 0;
    return rightsInMode(peer.granted, { role: peer.role, mode: m.mode, onStage });
  }

  /** The mode or the stage changed: every peer of the room gets its rights again (told only when they changed). */
  #applyMode(roomNumber: string): void {
    const room = this.rooms.get(roomNumber);
    if (!room) return;
    for (const peer of room.peers.values()) room.setRights(peer, this.#rightsNow(roomNumber, peer), true);
  }

  /** A new token for a joined peer: same room and person only. */
  refresh(peer: Peer, room: Room, token: string): MediaSource[] {
    const claim = this.verify(token);
    if (claim.room !== room.number || claim.uid !== peer.userId || (claim.role === 'recorder') !== peer.hidden)
      throw new DomainError('33001', 'token for another room or person');
    peer.granted = peer.hidden ? [] : this.revocations.check(claim, (this.#opts.now ?? Date.now)());
    this.#spacesFromToken(claim);
    room.setSpaces(this.modeOf(room.number).spaces);
    room.setRights(peer, this.#rightsNow(room.number, peer));
    return peer.rights;
  }

  /** The web side took rights back (a large-class student left the stage): those people stop publishing them. */
  revoke(roomNumber: string, userId: string, sources: MediaSource[]): void {
    const room = this.rooms.get(roomNumber);
    if (!room) return;
    for (const peer of room.peers.values()) {
      if (peer.userId !== userId) continue;
      peer.granted = peer.granted.filter((s) => !sources.includes(s));
      room.setRights(peer, this.#rightsNow(roomNumber, peer));
    }
  }

  /** Kick-out: every peer of that person leaves the room now. */
  removeUser(roomNumber: string, userId: string): void {
    // Their token stays valid for a while: it must not bring them back.
    this.revocations.add({ op: 'removeUser', room: roomNumber, userId }, (this.#opts.now ?? Date.now)());
    const room = this.rooms.get(roomNumber);
    if (!room) return;
    for (const peer of [...room.peers.values()]) {
      if (peer.userId !== userId) continue;
      peer.notify({ type: 'closed', reason: 'kicked' });
      peer.close();
    }
  }

  closeRoom(roomNumber: string): void {
    // The number may be reused by a new class, which starts in discuss.
    this.#modes.delete(roomNumber);
    const room = this.rooms.get(roomNumber);
    if (!room) return;
    for (const peer of room.peers.values()) peer.notify({ type: 'closed', reason: 'roomClosed' });
    room.close();
  }

  /**
   * A revocation from the web side (in-process, or a signed control call, ADR 032). Returns
   * whether the room is on this node; either way it is held for the token lifetime (ADR 066).
   */
  apply(cmd: MediaControlCommand): boolean {
    const now = (this.#opts.now ?? Date.now)();
    if (cmd.op === 'mode') {
      this.#setMode(cmd.room, { ...this.modeOf(cmd.room), mode: cmd.mode });
      this.#applyMode(cmd.room);
      return this.rooms.has(cmd.room);
    }
    if (cmd.op === 'stage') {
      // Those taken off: a token they hold from before cannot bring a large class's camera and
      // microphone back; one in a breakout group keeps them there (a group counts as the stage).
      const spaces = this.modeOf(cmd.room).spaces;
      const off = cmd.off.filter((userId) => !cmd.userIds.includes(userId) && !((spaces.get(userId) ?? 0) > 0));
      for (const userId of off) this.revocations.add({ op: 'stageOff', room: cmd.room, userId }, now);
      this.#setMode(cmd.room, { ...this.modeOf(cmd.room), stage: new Set(cmd.userIds), told: true });
      if (!this.rooms.has(cmd.room)) return false;
      this.#applyMode(cmd.room);
      this.#takeStageRights(cmd.room, off);
      return true;
    }
    if (cmd.op === 'groups') {
      // The whole map (ADR 117). Those who left a group for the main room and are not on stage
      // lose a large class's camera and microphone at once, held like a stage's revocation.
      const before = this.modeOf(cmd.room);
      if (cmd.serverTime < before.spacesAt) return this.rooms.has(cmd.room);
      const spaces: Spaces = new Map(cmd.spaces);
      const off = leftGroups(before.spaces, spaces).filter((userId) => !before.stage.has(userId));
      for (const userId of off) this.revocations.add({ op: 'stageOff', room: cmd.room, userId }, now);
      this.#setMode(cmd.room, { ...before, spaces, spacesTold: true, spacesAt: cmd.serverTime });
      const room = this.rooms.get(cmd.room);
      if (!room) return false;
      room.setSpaces(spaces);
      this.#applyMode(cmd.room);
      this.#takeStageRights(cmd.room, off);
      return true;
    }
    this.revocations.add(cmd, now);
    if (cmd.op === 'closeRoom') this.#modes.delete(cmd.room);
    const room = this.rooms.get(cmd.room);
    if (!room) return false;
    if (cmd.op === 'removeUser') this.removeUser(cmd.room, cmd.userId);
    else this.closeRoom(cmd.room);
    return true;
  }

  /** A large class's students who left the stage (or a group): camera and microphone go now. */
  #takeStageRights(roomNumber: string, userIds: string[]): void {
    const room = this.rooms.get(roomNumber);
    if (!room) return;
    for (const userId of userIds) {
      const affected = [...room.peers.values()].some((p) => p.userId === userId && p.roomType === 4 && p.role !== 'creator');
      if (affected) this.revoke(roomNumber, userId, ['mic', 'camera']);
    }
  }

  load(): MediaLoad {
    let peers = 0;
    let publications = 0;
    let subscriptions = 0;
    for (const room of this.rooms.values()) {
      peers += room.peers.size;
      publications += room.publications.size;
      for (const p of room.peers.values()) subscriptions += p.subscriptions.size;
    }
    return { rooms: this.rooms.size, peers, publications, subscriptions };
  }

  serialize() {
    return { load: this.load(), rooms: [...this.rooms.values()].map((r) => r.serialize()) };
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const room of [...this.rooms.values()]) {
      for (const peer of room.peers.values()) peer.notify({ type: 'closed', reason: 'shutdown' });
      room.close();
    }
    this.rooms.clear();
  }
}
