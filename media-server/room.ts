/**
 * One room on this node: its peers and every publication in it. Publishing is checked against
 * the peer's rights; subscriptions only reach publications of this room, and of the peer's own
 * space while breakout groups run (spaces.ts, ADR 117). Every 300 ms the room tells its peers who
 * is speaking (in their space; the creator in every space), every 2 s how good each person's
 * network is.
 */
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { Layer, MediaNote, MediaSource, PublishedTrack, QualityReport } from '#core/contracts/media-signaling.ts';
import { kindOf } from '#core/contracts/media-signaling.ts';
import { DomainError, illegalParams } from '#core/platform/errors.ts';
import type { Peer } from './peer.ts';
import { Publication } from './publication.ts';
import { tellSilent, watchSilence } from './silence.ts';
import { checkAfterRestart, newPeerConnection, remoteSdp, type RtcSettings } from './rtc.ts';
import { Subscription } from './subscription.ts';
import { NO_SPACES, sees, spaceOf, spacesChange, type Someone, type Spaces } from './spaces.ts';

const LEVELS_EVERY_MS = 300;
const QUALITY_EVERY_MS = 2000;
/** Below this loudness (docs/product/02-live-classroom.md §9: volume thresholds 10, 25, 50, 75) nobody is speaking. */
const SPEAKING_LEVEL = 10;

/** Loss (0-1) to a network quality 1 (excellent) .. 6 (very bad); null means unknown (0). */
export function qualityFromLoss(loss: number | null): number {
  if (loss === null) return 0;
  if (loss < 0.01) return 1;
  if (loss < 0.03) return 2;
  if (loss < 0.06) return 3;
  if (loss < 0.1) return 4;
  if (loss < 0.2) return 5;
  return 6;
}

/** The m-lines of an offer: exactly one, of the kind the source needs, sending. */
function checkOffer(sdp: string, source: MediaSource): void {
  const media = sdp.split(/\r?\n/).filter((l) => l.startsWith('m='));
  if (media.length !== 1) throw new DomainError('33004', 'one m-line per publication');
  if (!media[0]!.startsWith(`m=${kindOf(source)} `)) throw new DomainError('33004', 'the m-line kind does not match the source');
  if (/^a=(recvonly|inactive)\s*$/m.test(sdp)) throw new DomainError('33004', 'a publication must send');
}

export class Room extends EventEmitter<{ closed: [] }> {
  readonly number: string;
  readonly peers = new Map<string, Peer>();
  readonly publications = new Map<string, Publication>();
  readonly #rtc: RtcSettings;
  readonly #lingerMs: number;
  #linger: NodeJS.Timeout | null = null;
  readonly #timers: NodeJS.Timeout[];
  /** The last levels note each audience got ('all' for the creator, `s{space}` for a space). */
  #lastLevels = new Map<string, string>();
  /** Who is in which breakout group (spaces.ts); empty when no groups run. */
  #spaces: Spaces = NO_SPACES;
  /** Each publication's publisher. */
  readonly #publisher = new WeakMap<Publication, Someone>();
  #closed = false;

  constructor(number: string, rtc: RtcSettings, lingerMs: number) {
    super();
    this.number = number;
    this.#rtc = rtc;
    this.#lingerMs = lingerMs;
    this.#timers = [setInterval(() => this.#levels(), LEVELS_EVERY_MS), setInterval(() => this.#quality(), QUALITY_EVERY_MS)];
    for (const t of this.#timers) t.unref();
  }

  get closed(): boolean {
    return this.#closed;
  }

  #broadcast(note: MediaNote): void {
    for (const p of this.peers.values()) p.notify(note);
  }

  /** A note about a publication: to the peers that see it (its space), but `except`. */
  #tell(pub: Publication, note: MediaNote, except?: Peer): void {
    for (const p of this.peers.values()) if (p !== except && this.sees(p, pub)) p.notify(note);
  }

  #publisherOf(pub: Publication): Someone {
    return this.#publisher.get(pub) ?? { userId: pub.userId, role: 'member' };
  }

  /** The space a peer is in now (0: the main room). */
  spaceOf(peer: Someone): number {
    return spaceOf(this.#spaces, peer);
  }

  /** Whether a peer sees (and may subscribe to) a publication: both in one space. */
  sees(peer: Someone, pub: Publication): boolean {
    return sees(this.#spaces, peer, this.#publisherOf(pub));
  }

  get spaces(): Spaces {
    return this.#spaces;
  }

  /**
   * The breakout groups changed (the whole map): each subscription that now crosses spaces is
   * closed and every peer that stops seeing a publication is told `trackRemoved`; a publication
   * newly in a peer's space is told as `trackAdded`. Nothing is forwarded across spaces after this.
   */
  setSpaces(next: Spaces): void {
    if (next === this.#spaces) return;
    const change = spacesChange(
      this.#spaces,
      next,
      this.peers.values(),
      this.publications.values(),
      (pub) => this.#publisherOf(pub),
      (peer, pub) => peer.publications.has(pub.id),
    );
    this.#spaces = next;
    for (const { peer, track } of change.hidden) {
      for (const sub of [...peer.subscriptions.values()]) if (sub.publication === track) sub.close();
      peer.notify({ type: 'trackRemoved', trackId: track.id, userId: track.userId });
    }
    for (const { peer, track } of change.shown) peer.notify({ type: 'trackAdded', track: track.describe() });
  }

  /** The publications a peer sees, its own left out. */
  tracks(peer: Peer): PublishedTrack[] {
    return [...this.publications.values()].filter((p) => !peer.publications.has(p.id) && this.sees(peer, p)).map((p) => p.describe());
  }

  addPeer(peer: Peer): void {
    if (this.#linger) clearTimeout(this.#linger);
    this.#linger = null;
    this.peers.set(peer.id, peer);
    peer.once('closed', () => {
      this.peers.delete(peer.id);
      if (this.peers.size === 0 && !this.#closed) {
        // A moment's grace, so a quick reconnect finds the room as it was.
        this.#linger = setTimeout(() => this.close(), this.#lingerMs);
        this.#linger.unref();
      }
    });
  }

  async publish(peer: Peer, source: MediaSource, sdp: string): Promise<{ trackId: string; sdp: string }> {
    if (!peer.may(source)) {
      // Granted by the token but closed by the room's lecture mode (ADR 099).
      throw new DomainError('33002', peer.granted.includes(source) ? `${source} closed in lecture mode` : `${source} not in the token`);
    }
    checkOffer(sdp, source);
    // One publication per source and person: a new camera replaces the old one.
    peer.publicationOf(source)?.close();
    const pc = newPeerConnection(this.#rtc);
    const pub = new Publication(randomUUID(), peer.userId, source, pc);
    try {
      await pc.setRemoteDescription({ type: 'offer', sdp: remoteSdp(sdp) });
      await pc.setLocalDescription(await pc.createAnswer());
    } catch (err) {
      pub.close();
      throw new DomainError('33004', err instanceof Error ? err.message : 'negotiation');
    }
    const answer = pc.localDescription?.sdp;
    if (!answer) {
      pub.close();
      throw new DomainError('33004', 'no answer');
    }
    peer.publications.set(pub.id, pub);
    this.publications.set(pub.id, pub);
    this.#publisher.set(pub, { userId: peer.userId, role: peer.role });
    pub.once('closed', () => {
      peer.publications.delete(pub.id);
      this.publications.delete(pub.id);
      this.#tell(pub, { type: 'trackRemoved', trackId: pub.id, userId: pub.userId });
    });
    pub.on('layer', () => this.#tell(pub, { type: 'trackAdded', track: pub.describe() }, peer));
    watchSilence(pub, (silent) =>
      tellSilent(
        [...this.peers.values()].filter((p) => this.sees(p, pub)),
        pub,
        silent,
      ),
    );
    this.#tell(pub, { type: 'trackAdded', track: pub.describe() }, peer);
    return { trackId: pub.id, sdp: answer };
  }

  #own(peer: Peer, trackId: string): Publication {
    const pub = peer.publications.get(trackId);
    if (!pub) throw new DomainError('33003', 'not your track');
    return pub;
  }

  unpublish(peer: Peer, trackId: string): void {
    this.#own(peer, trackId).close();
  }

  pause(peer: Peer, trackId: string, paused: boolean): void {
    const pub = this.#own(peer, trackId);
    if (pub.paused === paused) return;
    pub.paused = paused;
    if (!paused) pub.requestKeyframe(pub.layers[0] ?? '');
    this.#tell(pub, { type: 'trackPaused', trackId: pub.id, userId: pub.userId, paused });
  }

  async subscribe(peer: Peer, trackId: string, layer?: Layer): Promise<{ subscriptionId: string; sdp: string }> {
    const pub = this.publications.get(trackId);
    // A publication of another space (a breakout group) is as good as absent.
    if (!pub || !this.sees(peer, pub)) throw new DomainError('33003', 'no such track in this room');
    if (pub.userId === peer.userId && peer.publications.has(pub.id)) throw illegalParams('your own track');
    const wanted = layer ?? 'h';
    const pc = newPeerConnection(this.#rtc);
    const sub = new Subscription(randomUUID(), pub, pc, wanted);
    try {
      await pc.setLocalDescription(await pc.createOffer());
    } catch (err) {
      sub.close();
      throw new DomainError('33004', err instanceof Error ? err.message : 'offer');
    }
    const offer = pc.localDescription?.sdp;
    if (!offer) {
      sub.close();
      throw new DomainError('33004', 'no offer');
    }
    peer.subscriptions.set(sub.id, sub);
    sub.once('closed', () => peer.subscriptions.delete(sub.id));
    sub.on('layerChanged', (l) => peer.notify({ type: 'layerChanged', subscriptionId: sub.id, layer: l }));
    // The publication going away takes its subscriptions with it.
    const end = () => sub.close();
    pub.once('closed', end);
    sub.once('closed', () => pub.off('closed', end));
    return { subscriptionId: sub.id, sdp: offer };
  }

  #sub(peer: Peer, subscriptionId: string): Subscription {
    const sub = peer.subscriptions.get(subscriptionId);
    if (!sub) throw new DomainError('33003', 'no such subscription');
    return sub;
  }

  /** Subscriptions whose restart offer waits for its answer. */
  readonly #restarting = new WeakSet<Subscription>();

  async answer(peer: Peer, subscriptionId: string, sdp: string): Promise<void> {
    const sub = this.#sub(peer, subscriptionId);
    try {
      await sub.pc.setRemoteDescription({ type: 'answer', sdp: remoteSdp(sdp) });
      // The answer to a restart offer (a first answer has its checks under way already).
      if (this.#restarting.delete(sub)) checkAfterRestart(sub.pc);
    } catch (err) {
      throw new DomainError('33004', err instanceof Error ? err.message : 'answer');
    }
  }

  unsubscribe(peer: Peer, subscriptionId: string): void {
    this.#sub(peer, subscriptionId).close();
  }

  setLayer(peer: Peer, subscriptionId: string, layer: Layer): Layer {
    const sub = this.#sub(peer, subscriptionId);
    sub.setLayer(layer);
    return sub.layer;
  }

  /** ICE restart: a publication answers the peer's restart offer; a subscription makes one. */
  async restartIce(peer: Peer, req: { trackId: string; sdp: string } | { subscriptionId: string }): Promise<{ sdp: string }> {
    try {
      if ('trackId' in req) {
        const pub = this.#own(peer, req.trackId);
        checkOffer(req.sdp, pub.source);
        await pub.pc.setRemoteDescription({ type: 'offer', sdp: remoteSdp(req.sdp) });
        await pub.pc.setLocalDescription(await pub.pc.createAnswer());
        checkAfterRestart(pub.pc);
        return { sdp: pub.pc.localDescription!.sdp };
      }
      const sub = this.#sub(peer, req.subscriptionId);
      await sub.pc.setLocalDescription(await sub.pc.createOffer({ iceRestart: true }));
      this.#restarting.add(sub);
      return { sdp: sub.pc.localDescription!.sdp };
    } catch (err) {
      if (err instanceof DomainError) throw err;
      throw new DomainError('33004', err instanceof Error ? err.message : 'restart');
    }
  }

  /**
   * Rights changed (a new token, the web side took the microphone back, the class mode changed):
   * drop what is no longer allowed. `quiet`: say nothing when they are what they were.
   */
  setRights(peer: Peer, rights: MediaSource[], quiet = false): void {
    const same = rights.length === peer.rights.length && rights.every((s) => peer.rights.includes(s));
    peer.rights = [...rights];
    if (same && quiet) return;
    for (const pub of [...peer.publications.values()]) if (!peer.may(pub.source)) pub.close();
    peer.notify({ type: 'rightsChanged', rights: peer.rights });
  }

  /**
   * Who speaks: each peer hears of its own space's speakers; the room's creator of every space's
   * (the teacher's overview of the groups). An audience that heard nobody is not told so again.
   */
  #levels(): void {
    if (this.peers.size === 0) return;
    const all: Record<string, number> = {};
    const bySpace = new Map<number, Record<string, number>>();
    for (const pub of this.publications.values()) {
      if (pub.kind !== 'audio') continue;
      const level = pub.takeLevel();
      if (level < SPEAKING_LEVEL) continue;
      all[pub.userId] = Math.max(all[pub.userId] ?? 0, level);
      const space = spaceOf(this.#spaces, this.#publisherOf(pub));
      const levels = bySpace.get(space) ?? {};
      levels[pub.userId] = Math.max(levels[pub.userId] ?? 0, level);
      bySpace.set(space, levels);
    }
    const last = this.#lastLevels;
    this.#lastLevels = new Map();
    for (const peer of this.peers.values()) {
      const audience = peer.role === 'creator' ? 'all' : `s${this.spaceOf(peer)}`;
      const levels = peer.role === 'creator' ? all : (bySpace.get(this.spaceOf(peer)) ?? {});
      const key = JSON.stringify(levels);
      this.#lastLevels.set(audience, key);
      if (key === '{}' && last.get(audience) === '{}') continue;
      peer.notify({ type: 'audioLevels', levels });
    }
  }

  /** Uplink: loss on what a person publishes, as the node receives it. Downlink: the worst loss their receivers report. */
  qualityReports(): QualityReport[] {
    const byUser = new Map<string, { up: number | null; down: number | null }>();
    for (const peer of this.peers.values()) {
      // The recorder is nobody's business: its downlink is never graded or shown.
      if (peer.hidden) continue;
      const entry = byUser.get(peer.userId) ?? { up: null, down: null };
      for (const pub of peer.publications.values()) {
        const loss = pub.takeLoss();
        if (loss !== null) entry.up = Math.max(entry.up ?? 0, loss);
      }
      for (const sub of peer.subscriptions.values()) {
        if (sub.downLoss !== null) entry.down = Math.max(entry.down ?? 0, sub.downLoss);
      }
      byUser.set(peer.userId, entry);
    }
    return [...byUser].map(([userId, q]) => ({ userId, up: qualityFromLoss(q.up), down: qualityFromLoss(q.down) }));
  }

  #quality(): void {
    if (this.peers.size === 0) return;
    const reports = this.qualityReports().filter((r) => r.up || r.down);
    if (reports.length) this.#broadcast({ type: 'quality', reports });
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const t of this.#timers) clearInterval(t);
    if (this.#linger) clearTimeout(this.#linger);
    for (const p of [...this.peers.values()]) p.close();
    for (const p of [...this.publications.values()]) p.close();
    this.emit('closed');
  }

  serialize() {
    return { number: this.number, peers: [...this.peers.values()].map((p) => p.serialize()) };
  }
}
