/**
 * One connected person (one signaling socket): their rights from the token, their publications
 * and subscriptions. Closing a peer closes everything it owns; it tells its owner by events.
 */
import { EventEmitter } from 'node:events';
import type { MediaNote, MediaSource, MediaTokenPayload } from '#core/contracts/media-signaling.ts';
import type { Publication } from './publication.ts';
import type { Subscription } from './subscription.ts';

export class Peer extends EventEmitter<{ closed: [] }> {
  readonly id: string;
  readonly userId: string;
  readonly role: MediaTokenPayload['role'];
  readonly roomType: MediaTokenPayload['rt'];
  /** What the token grants (after this node's revocations): the room type's rights, in any mode. */
  granted: MediaSource[];
  /** What the peer may send now: `granted` as the room's mode leaves it (ADR 099). */
  rights: MediaSource[];
  readonly publications = new Map<string, Publication>();
  readonly subscriptions = new Map<string, Subscription>();
  readonly #send: (note: MediaNote) => void;
  #closed = false;

  constructor(id: string, claim: MediaTokenPayload, send: (note: MediaNote) => void) {
    super();
    this.id = id;
    this.userId = claim.uid;
    this.role = claim.role;
    this.roomType = claim.rt;
    this.granted = [...claim.pub];
    this.rights = [...claim.pub];
    this.#send = send;
  }

  /** The cloud recorder: it subscribes only, and the room never reports it to anyone. */
  get hidden(): boolean {
    return this.role === 'recorder';
  }

  get closed(): boolean {
    return this.#closed;
  }

  notify(note: MediaNote): void {
    if (!this.#closed) this.#send(note);
  }

  may(source: MediaSource): boolean {
    return !this.hidden && this.rights.includes(source);
  }

  publicationOf(source: MediaSource): Publication | undefined {
    for (const p of this.publications.values()) if (p.source === source) return p;
    return undefined;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const s of this.subscriptions.values()) s.close();
    for (const p of this.publications.values()) p.close();
    this.subscriptions.clear();
    this.publications.clear();
    this.emit('closed');
  }

  serialize() {
    return {
      id: this.id,
      userId: this.userId,
      role: this.role,
      rights: this.rights,
      publications: [...this.publications.values()].map((p) => ({ ...p.describe(), packets: p.packets, subscribers: p.subscriberCount })),
      subscriptions: [...this.subscriptions.values()].map((s) => ({
        id: s.id,
        trackId: s.publication.id,
        layer: s.layer,
        ...s.forwarding,
        packets: s.packets,
      })),
    };
  }
}
