/**
 * VP8 frames from RTP (RFC 7741), and the IVF container they go to the decoder in (ADR 082).
 *
 * The recorder used to hand a video track's RTP to ffmpeg's RTP input. That input stops decoding
 * at a picture-id jump until the next keyframe, exits after 10 s without packets, and with the
 * low-delay flags its stream probing swallowed the first keyframe: a screen share, whose keyframes
 * are rare, was recorded as a few pictures or none. Here the recorder puts the frames together
 * itself and writes whole frames to the decoder's stdin: it knows where a frame is broken, waits
 * for the next keyframe only then, and asks for it at once.
 */

/** Where a VP8 RTP payload's descriptor ends, and what it says (null: too short to be one). */
export function vp8Descriptor(p: Uint8Array): { start: boolean; partition: number; headerLength: number } | null {
  if (p.length < 1) return null;
  const b0 = p[0]!;
  let i = 1;
  if (b0 & 0x80) {
    if (p.length < 2) return null;
    const x = p[i++]!;
    if (x & 0x80) {
      if (i >= p.length) return null;
      i += (p[i]! & 0x80) !== 0 ? 2 : 1; // picture id, 15 or 7 bits
    }
    if (x & 0x40) i++; // TL0PICIDX
    if (x & 0x30) i++; // TID / Y / KEYIDX
  }
  if (i > p.length) return null;
  return { start: (b0 & 0x10) !== 0, partition: b0 & 0x07, headerLength: i };
}

/** Whether a VP8 RTP payload starts a keyframe: the first packet of partition 0, whose payload header's P bit is 0. */
export function vp8KeyframeStart(p: Uint8Array): boolean {
  const d = vp8Descriptor(p);
  return !!d && d.start && d.partition === 0 && d.headerLength < p.length && (p[d.headerLength]! & 0x01) === 0;
}

export interface Vp8Packet {
  sequenceNumber: number;
  timestamp: number;
  marker: boolean;
  payload: Uint8Array;
}

export interface Vp8Frame {
  data: Buffer;
  key: boolean;
  /** The RTP timestamp (90 kHz) of the frame. */
  timestamp: number;
}

/**
 * Puts VP8 frames together from packets that come in sequence order (the intake's reorder has
 * waited for retransmissions; what it gave up shows here as a sequence gap). A frame is sent on
 * when its last packet (the marker) arrives and nothing of it is missing. After anything is
 * missing, frames are held back until the next keyframe: a frame decoded without its reference
 * smears the picture until then.
 */
export class Vp8Assembler {
  #parts: Uint8Array[] = [];
  #size = 0;
  #timestamp = -1;
  #key = false;
  /** Within a frame whose first packet was seen. */
  #inFrame = false;
  #lastSeq = -1;
  /** Only a keyframe may be sent on next (at first, and after a loss). */
  #needKey = true;
  /** Frames sent on, frames lost (a packet of them missing), frames held back waiting for a keyframe. */
  frames = 0;
  keyframes = 0;
  broken = 0;
  heldForKey = 0;
  /** Called when the stream breaks (a loss) while it was being decoded: the caller asks for a keyframe. */
  readonly #onLoss: () => void;

  constructor(onLoss: () => void = () => undefined) {
    this.#onLoss = onLoss;
  }

  /** Whether the next frame sent on must be a keyframe. */
  get waitingForKey(): boolean {
    return this.#needKey;
  }

  /** Starts over: the next frame sent on is a keyframe (a new decoder, a new leg). */
  reset(): void {
    this.#drop();
    this.#lastSeq = -1;
    this.#needKey = true;
  }

  /** Takes the next packet; returns the frame it completes, if any. */
  push(p: Vp8Packet): Vp8Frame | null {
    const gap = this.#lastSeq >= 0 && p.sequenceNumber !== ((this.#lastSeq + 1) & 0xffff);
    this.#lastSeq = p.sequenceNumber;
    if (gap) this.#lose();
    const d = vp8Descriptor(p.payload);
    if (!d || d.headerLength >= p.payload.length) return null;
    if (d.start && d.partition === 0) {
      // A new frame begins; one left unfinished lost its end.
      if (this.#inFrame) this.#lose();
      this.#inFrame = true;
      this.#timestamp = p.timestamp;
      this.#key = (p.payload[d.headerLength]! & 0x01) === 0;
    } else if (!this.#inFrame || p.timestamp !== this.#timestamp) {
      // The middle of a frame whose start was lost (or of another frame).
      if (this.#inFrame) this.#lose();
      return null;
    }
    const part = p.payload.subarray(d.headerLength);
    this.#parts.push(part);
    this.#size += part.length;
    if (!p.marker) return null;
    const frame: Vp8Frame = { data: Buffer.concat(this.#parts, this.#size), key: this.#key, timestamp: this.#timestamp };
    this.#drop();
    if (this.#needKey && !frame.key) {
      this.heldForKey++;
      return null;
    }
    this.#needKey = false;
    this.frames++;
    if (frame.key) this.keyframes++;
    return frame;
  }

  #drop(): void {
    this.#parts = [];
    this.#size = 0;
    this.#inFrame = false;
  }

  #lose(): void {
    if (this.#inFrame) this.broken++;
    this.#drop();
    if (!this.#needKey) {
      this.#needKey = true;
      this.#onLoss();
    }
  }
}

/** The 32-byte IVF file header for VP8 (the size is what the first keyframe will say; the decoder reads the frames' own). */
export function ivfHeader(width: number, height: number): Buffer {
  const h = Buffer.alloc(32);
  h.write('DKIF', 0, 'latin1');
  h.writeUInt16LE(0, 4); // version
  h.writeUInt16LE(32, 6); // header size
  h.write('VP80', 8, 'latin1');
  h.writeUInt16LE(width, 12);
  h.writeUInt16LE(height, 14);
  h.writeUInt32LE(90_000, 16); // time base: 1/90000 s, the RTP clock
  h.writeUInt32LE(1, 20);
  h.writeUInt32LE(0, 24); // frame count: unknown, a live stream
  return h;
}

/** An IVF frame: its 12-byte header (size, 64-bit presentation time) and the frame. */
export function ivfFrame(data: Buffer, pts: number): Buffer {
  const h = Buffer.alloc(12);
  h.writeUInt32LE(data.length, 0);
  h.writeBigUInt64LE(BigInt(Math.max(0, Math.floor(pts))), 4);
  return Buffer.concat([h, data]);
}
