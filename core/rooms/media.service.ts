/**
 * Media access for the web role: which media node serves a room, and the short-lived signed token
 * that lets a person join it with exactly the rights the room type gives them now.
 */
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { DomainError, notAllowed, roomNotFound } from '../platform/errors.ts';
import type { TokenSigner } from '../platform/secrets.ts';
import type { JoinAnswer, RoomType } from '../contracts/api.ts';
import type { LiveRepository } from './live.repository.ts';
import { signMediaToken, signRecorderToken, type MediaGrantInput } from './media-grant.ts';
import { ROOM_NUMBER_RULE } from './room.schema.ts';

/** Where rooms' media is served. Embedded: this process. Distributed: the registry of media nodes. */
export interface MediaNodes {
  /**
   * The node serving the room (placing it on the least loaded node the first time). `failedUrl`:
   * a client lost the node at that URL; if the room is placed there, the node is checked first and
   * the room placed again when it does not answer (ADR 097). A claim alone never moves a room.
   */
  place(roomNumber: string, failedUrl?: string): Promise<{ nodeId: string; url: string }>;
  /** The node the room is on now, without placing it (revocations go there; ADR 032). */
  locate?(roomNumber: string): Promise<{ nodeId: string; url: string } | null>;
  /** Every live node: a revocation goes to all of them, held even where the room is not yet (ADR 066). */
  all?(): Promise<Array<{ nodeId: string; url: string }>>;
}

export interface MediaAccess {
  mediaToken: string;
  mediaUrl: string;
}

/** The placement key of the network check's probe (not a room number: those are digits). */
const PROBE_ROOM = 'network-probe';

type MediaConfig = Pick<Config, 'MEDIA_TOKEN_TTL_SECONDS'>;

export class MediaService {
  private readonly live: LiveRepository;
  private readonly signer: TokenSigner;
  private readonly nodes: MediaNodes;
  private readonly clock: Clock;
  private readonly config: MediaConfig;
  /** Where a person is among the breakout groups now (ADR 116; 0 the main room); set by the composition. */
  groups: { placeNow(roomNumber: string, uid: string): Promise<number> } | null = null;
  constructor(live: LiveRepository, signer: TokenSigner, nodes: MediaNodes, clock: Clock, config: MediaConfig) {
    this.live = live;
    this.signer = signer;
    this.nodes = nodes;
    this.clock = clock;
    this.config = config;
  }

  /** Media access for a join answer that was just made. */
  async forJoin(answer: Pick<JoinAnswer, 'roomInfo' | 'userIdForNumber' | 'role' | 'userType'>): Promise<MediaAccess> {
    const roomType = answer.roomInfo.roomType;
    // Who is on stage matters in every room type: a large class's student sends by it, and lecture
    // mode lets those on stage speak (ADR 099, ADR 112).
    // A student in a breakout group sends there as if on stage (ADR 116); the token names the place.
    const group = await this.#place(answer.roomInfo.roomNumber, answer.userIdForNumber, answer.role);
    const micConnected =
      answer.role !== 'creator' ? group > 0 || (await this.#onStage(answer.roomInfo.roomNumber, answer.userIdForNumber)) : false;
    return this.#access({
      roomNumber: answer.roomInfo.roomNumber,
      roomType,
      userId: answer.userIdForNumber,
      role: answer.role,
      userType: answer.userType,
      micConnected,
      mode: answer.roomInfo.mode,
      group,
    });
  }

  /**
   * A fresh token for someone already in the room (docs/product/02-live-classroom.md §7 `/api/createAgoraToken`): after a
   * stage invitation was accepted (or the carousel brought them up), or when a reconnect finds the old token expired.
   * `failedMediaUrl`: the media node this client lost (ADR 097), checked before it is trusted.
   */
  async renew(viewer: { userId: string }, roomNumber: string, screen = false, failedMediaUrl?: string): Promise<MediaAccess> {
    if (!ROOM_NUMBER_RULE.test(roomNumber)) throw roomNotFound();
    const room = await this.live.room(roomNumber);
    if (!room) throw roomNotFound();
    if (room.state !== 'open') throw new DomainError('31009');
    const isCreator = room.create_user === viewer.userId;
    let role: JoinAnswer['role'] = 'creator';
    if (!isCreator) {
      const m = await this.live.membership(room.id, viewer.userId);
      if (!m || m.kicked_at || m.left_at) throw notAllowed('not in the room');
      role = m.role;
    }
    if (screen && !isCreator) throw notAllowed('only the creator shares a screen');
    const group = await this.#place(roomNumber, viewer.userId, role);
    return this.#access(
      {
        roomNumber,
        roomType: room.room_type as RoomType,
        userId: viewer.userId,
        role,
        userType: screen ? '2' : role === 'observer' ? '3' : '1',
        micConnected: !isCreator && (group > 0 || (await this.live.onStage(room.id, viewer.userId))),
        mode: room.class_mode,
        group,
      },
      failedMediaUrl,
    );
  }

  /**
   * The cloud recorder's access to a room (issue 13): a token with role 'recorder' that publishes
   * nothing, for the node the room is placed on. The room must be open. The recorder asks again
   * after it lost its node, so the placed node is checked to answer first (ADR 097).
   */
  async forRecorder(roomNumber: string): Promise<MediaAccess> {
    if (!ROOM_NUMBER_RULE.test(roomNumber)) throw roomNotFound();
    const room = await this.live.room(roomNumber);
    if (!room) throw roomNotFound();
    if (room.state !== 'open') throw new DomainError('31009');
    const placed = await this.nodes.locate?.(roomNumber);
    const node = await this.nodes.place(roomNumber, placed?.url);
    const mediaToken = signRecorderToken(
      this.signer,
      { roomNumber, roomType: room.room_type as RoomType },
      this.config.MEDIA_TOKEN_TTL_SECONDS,
      this.clock.now().getTime(),
    );
    return { mediaToken, mediaUrl: node.url };
  }

  /** A node to probe for the network check (docs/product/01-account-and-lobby.md §2): where a new room would go. */
  probeNode(): Promise<{ nodeId: string; url: string }> {
    return this.nodes.place(PROBE_ROOM);
  }

  /** The person's place among the breakout groups (observers and the recorder: always the main room). */
  async #place(roomNumber: string, userId: string, role: JoinAnswer['role']): Promise<number> {
    if (!this.groups || role === 'observer') return 0;
    return this.groups.placeNow(roomNumber, userId);
  }

  async #onStage(roomNumber: string, userId: string): Promise<boolean> {
    const room = await this.live.room(roomNumber);
    return !!room && (await this.live.onStage(room.id, userId));
  }

  async #access(g: MediaGrantInput, failedUrl?: string): Promise<MediaAccess> {
    const node = await this.nodes.place(g.roomNumber, failedUrl);
    const mediaToken = signMediaToken(this.signer, g, this.config.MEDIA_TOKEN_TTL_SECONDS, this.clock.now().getTime());
    return { mediaToken, mediaUrl: node.url };
  }
}
