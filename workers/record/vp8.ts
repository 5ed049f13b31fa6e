/**
 * VP8 frames out of RTP (RFC 7741), for the recorder's video decoders. Packets are put back in
 * order and a frame is handed on the moment its last packet is in: ffmpeg's own RTP input held
 * each picture until the next one began, a frame late (67 ms at 15 fps), which put every camera
 * behind its sound. A frame that lost a packet waits a little for the SFU's retransmission (the
 * recorder NACKs), then is given up, and nothing but a keyframe goes on until one comes: an inter
 * frame decoded on a missing reference is a smeared picture until the next keyframe anyway.
 */

/** How long a frame with a packet missing waits for it (a NACK's retransmission on a loaded loopback). */
export const GAP_WAIT_MS = 150;
/** More frames than this waiting behind a broken one give it up at once. */
const MAX_PENDING = 8;
/** A frame of more packets than this is not a frame (a 1080p keyframe is a few hundred). */
const MAX_PACKETS = 4096;

/** Whether a VP8 RTP payload starts a keyframe: the first packet of partition 0, its P bit 0. */
export function vp8KeyframeStart(p: Uint8Array): boolean {
  const at = vp8PayloadStart(p);
  if (at < 0 || at >= p.length) return false;
  return (p[0]! & 0x10) !== 0 && (p[0]! & 0x07) === 0 && (p[at]! & 0x01) === 0;
}

/** Where the VP8 payload begins after the payload descriptor (-1 when the packet is too short). */
export function vp8PayloadStart(p: Uint8Array): number {
  if (p.length < 1) return -1;
  let i = 1;
  if (p[0]! & 0x80) {
    if (p.length < 2) return -1;
    const x = p[i++]!;
    if (x & 0x80) {
      if (i >= p.length) return -1;
      i += p[i]! & 0x80 ? 2 : 1; // picture id, 15 or 7 bits
    }
    if (x & 0x40) i++; // TL0PICIDX
    if (x & 0x30) i++; // TID / KEYIDX
  }
  return i <= p.length ? i : -1;
}

export interface Vp8Packet {
  sequenceNumber: number;
  timestamp: number;
  marker: boolean;
  payload: Buffer;
}

export interface Vp8Frame {
  data: Buffer;
  timestamp: number;
  key: boolean;
}

interface Pending {
  timestamp: number;
  packets: Map<number, Buffer>;
  /** The packet that starts the frame (S bit, partition 0), and the one with the marker. */
  first: number | null;
  last: number | null;
  since: number;
}

const seqAfter = (a: number, b: number) => ((a - b) & 0xffff) !== 0 && ((a - b) & 0xffff) < 0x8000;

/** Puts one RTP stream's VP8 back into whole frames, in order. */
export class Vp8Assembler {
  /** The sequence number the next frame should begin at (null before the first frame). */
  #next: number | null = null;
  #keyNeeded = true;
  readonly #pending: Pending[] = [];
  /** Frames given up (a packet never came, or they could not be decoded without a keyframe). */
  dropped = 0;
  readonly #onKeyframeNeeded: () => void;

  constructor(onKeyframeNeeded: () => void) {
    this.#onKeyframeNeeded = onKeyframeNeeded;
  }

  /** Starts again (a new subscription: new sequence numbers); the next frame must be a keyframe. */
  reset(): void {
    this.#pending.length = 0;
    this.#next = null;
    this.#keyNeeded = true;
  }

  get waitingForKeyframe(): boolean {
    return this.#keyNeeded;
  }

  /** Takes a packet; returns the frames it completed, in order (often none, usually one). */
  push(p: Vp8Packet, now: number): Vp8Frame[] {
    const seq = p.sequenceNumber & 0xffff;
    // Already handed on (a retransmission that came after all): nothing to do.
    if (this.#next !== null && !seqAfter(seq, this.#next) && seq !== this.#next) return this.#ready(now);
    let frame = this.#pending.find((f) => f.timestamp === p.timestamp);
    if (!frame) {
      frame = { timestamp: p.timestamp, packets: new Map(), first: null, last: null, since: now };
      // Frames go in by their first packet's order, so a late frame's packets sort before newer ones.
      const at = this.#pending.findIndex((f) => {
        const any = f.packets.keys().next().value;
        return any !== undefined && seqAfter(any, seq);
      });
      if (at < 0) this.#pending.push(frame);
      else this.#pending.splice(at, 0, frame);
    }
    if (frame.packets.size < MAX_PACKETS) frame.packets.set(seq, p.payload);
    if ((p.payload[0]! & 0x10) !== 0 && (p.payload[0]! & 0x07) === 0) frame.first = seq;
    if (p.marker) frame.last = seq;
    return this.#ready(now);
  }

  #complete(f: Pending): boolean {
    if (f.first === null || f.last === null) return false;
    for (let s = f.first, n = 0; n < MAX_PACKETS; s = (s + 1) & 0xffff, n++) {
      if (!f.packets.has(s)) return false;
      if (s === f.last) return true;
    }
    return false;
  }

  #ready(now: number): Vp8Frame[] {
    const out: Vp8Frame[] = [];
    while (this.#pending.length > 0) {
      const f = this.#pending[0]!;
      const complete = this.#complete(f);
      const contiguous = this.#next === null || f.first === this.#next;
      const key = complete && vp8KeyframeStart(f.packets.get(f.first!)!);
      if (complete && (key || (contiguous && !this.#keyNeeded))) {
        this.#pending.shift();
        out.push({ data: this.#join(f), timestamp: f.timestamp, key });
        this.#next = (f.last! + 1) & 0xffff;
        this.#keyNeeded = false;
        continue;
      }
      // Waiting for a keyframe, a whole inter frame cannot be used.
      if (complete && this.#keyNeeded) {
        this.#pending.shift();
        this.dropped++;
        this.#next = (f.last! + 1) & 0xffff;
        continue;
      }
      // A packet of this frame, or a frame before it, is missing: wait for it a little.
      if (now - f.since < GAP_WAIT_MS && this.#pending.length <= MAX_PENDING) break;
      this.#pending.shift();
      this.dropped++;
      if (f.last !== null) this.#next = (f.last + 1) & 0xffff;
      else this.#next = null;
      if (!this.#keyNeeded) {
        this.#keyNeeded = true;
        // Asked for unless one is here already.
        if (!this.#pending.some((p) => this.#complete(p) && vp8KeyframeStart(p.packets.get(p.first!)!))) this.#onKeyframeNeeded();
      }
    }
    return out;
  }

  #join(f: Pending): Buffer {
    const parts: Buffer[] = [];
    for (let s = f.first!; ; s = (s + 1) & 0xffff) {
      const p = f.packets.get(s)!;
      parts.push(p.subarray(vp8PayloadStart(p)));
      if (s === f.last) break;
    }
    return Buffer.concat(parts);
  }
}

/** The IVF file header for VP8 (32 bytes): what ffmpeg reads a stream of frames from. */
export function ivfHeader(width: number, height: number): Buffer {
  const h = Buffer.alloc(32);
  h.write('DKIF', 0, 'ascii');
  h.writeUInt16LE(0, 4); // version
  h.writeUInt16LE(32, 6); // header size
  h.write('VP80', 8, 'ascii');
  h.writeUInt16LE(width, 12);
  h.writeUInt16LE(height, 14);
  h.writeUInt32LE(90_000, 16); // time base: the RTP clock
  h.writeUInt32LE(1, 20);
  h.writeUInt32LE(0, 24); // frame count: unknown, a stream
  return h;
}

/** One IVF frame: its 12-byte header (size, 64-bit timestamp) and the frame. */
export function ivfFrame(data: Buffer, pts: number): Buffer {
  const h = Buffer.alloc(12);
  h.writeUInt32LE(data.length, 0);
  h.writeBigUInt64LE(BigInt(Math.max(0, Math.floor(pts))), 4);
  return Buffer.concat([h, data]);
}
