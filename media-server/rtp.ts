/**
 * Reading just enough of RTP payloads to forward without decoding: whether a VP8 packet starts a
 * keyframe (a layer switch must wait for one), and audio levels from the ssrc-audio-level extension.
 */

/** RFC 7741: the VP8 payload descriptor, then the payload header's P bit (0 = keyframe). */
export function isVp8Keyframe(payload: Uint8Array): boolean {
  if (payload.length < 1) return false;
  const b0 = payload[0]!;
  const extended = (b0 & 0x80) !== 0;
  const start = (b0 & 0x10) !== 0;
  const partition = b0 & 0x07;
  if (!start || partition !== 0) return false;
  let i = 1;
  if (extended) {
    if (payload.length < 2) return false;
    const b1 = payload[1]!;
    i = 2;
    if (b1 & 0x80) {
      // PictureID: one byte, or two when its M bit is set.
      if (payload.length <= i) return false;
      i += payload[i]! & 0x80 ? 2 : 1;
    }
    if (b1 & 0x40) i += 1; // TL0PICIDX
    if (b1 & 0x30) i += 1; // TID/Y/KEYIDX
  }
  if (payload.length <= i) return false;
  return (payload[i]! & 0x01) === 0;
}

/**
 * The extension carries -dBov 0 (loudest) to 127 (silence). As a 0-100 loudness: 0 at -80 dBov
 * and below, 100 at 0 dBov.
 */
export function levelFromDbov(dbov: number): number {
  const d = Math.min(127, Math.max(0, dbov));
  return Math.max(0, Math.round(100 - (d * 100) / 80));
}

/** REMB carries a bitrate as an 18-bit mantissa and a 6-bit exponent. */
export function rembParts(bitrate: number): { brExp: number; brMantissa: number } {
  let exp = 0;
  let mantissa = Math.max(0, Math.floor(bitrate));
  while (mantissa >= 1 << 18) {
    mantissa = Math.floor(mantissa / 2);
    exp++;
  }
  return { brExp: exp, brMantissa: mantissa };
}

/** Where the picture id and TL0PICIDX sit in a VP8 payload descriptor (RFC 7741 §4.2), if present. */
export function vp8Ids(payload: Uint8Array): { pic: number; picBits: 7 | 15; picAt: number; tl0At: number } | null {
  if (payload.length < 2 || (payload[0]! & 0x80) === 0) return null;
  const b1 = payload[1]!;
  let i = 2;
  let picAt = -1;
  let picBits: 7 | 15 = 7;
  let pic = -1;
  if (b1 & 0x80) {
    if (payload.length <= i) return null;
    picAt = i;
    if (payload[i]! & 0x80) {
      if (payload.length <= i + 1) return null;
      picBits = 15;
      pic = ((payload[i]! & 0x7f) << 8) | payload[i + 1]!;
      i += 2;
    } else {
      pic = payload[i]! & 0x7f;
      i += 1;
    }
  }
  const tl0At = b1 & 0x40 && payload.length > i ? i : -1;
  if (picAt < 0 && tl0At < 0) return null;
  return { pic, picBits, picAt, tl0At };
}

/**
 * Keeps one subscriber's VP8 picture ids and TL0PICIDX continuous when its forwarded simulcast
 * layer changes. Each layer numbers its pictures on its own; a receiver that sees the numbers jump
 * back at a switch takes the new layer's frames for old ones and drops them, so the picture stays
 * frozen on the previous layer. At a switch the next picture gets the number after the last one
 * sent, and every later packet of the layer is shifted by the same amount (a copy: the packet is
 * shared by every subscriber of the layer).
 */
export class Vp8Continuity {
  #picOffset = 0;
  #tl0Offset = 0;
  #lastPic = -1;
  #lastTl0 = -1;

  /** Call with the keyframe that starts the new layer, before `apply`. */
  switchTo(payload: Uint8Array): void {
    const ids = vp8Ids(payload);
    if (!ids) return;
    if (ids.picAt >= 0 && this.#lastPic >= 0) {
      const mod = ids.picBits === 15 ? 0x8000 : 0x80;
      this.#picOffset = (((this.#lastPic + 1 - ids.pic) % mod) + mod) % mod;
    }
    if (ids.tl0At >= 0 && this.#lastTl0 >= 0) this.#tl0Offset = (((this.#lastTl0 + 1 - payload[ids.tl0At]!) % 256) + 256) % 256;
  }

  apply(payload: Uint8Array): Uint8Array {
    const ids = vp8Ids(payload);
    if (!ids) return payload;
    let out = payload;
    if (ids.picAt >= 0) {
      const mod = ids.picBits === 15 ? 0x8000 : 0x80;
      const pic = (ids.pic + this.#picOffset) % mod;
      if (this.#picOffset !== 0) {
        out = Uint8Array.from(payload);
        if (ids.picBits === 15) {
          out[ids.picAt] = 0x80 | (pic >> 8);
          out[ids.picAt + 1] = pic & 0xff;
        } else out[ids.picAt] = pic;
      }
      this.#lastPic = pic;
    }
    if (ids.tl0At >= 0) {
      const tl0 = (payload[ids.tl0At]! + this.#tl0Offset) & 0xff;
      if (this.#tl0Offset !== 0) {
        if (out === payload) out = Uint8Array.from(payload);
        out[ids.tl0At] = tl0;
      }
      this.#lastTl0 = tl0;
    }
    return out;
  }
}
