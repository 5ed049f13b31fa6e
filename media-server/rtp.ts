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
