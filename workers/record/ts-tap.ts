/**
 * The encoder's second output, its H.264 + AAC as an MPEG-TS stream (ADR 084), read packet by
 * packet so that a live push can join it at a keyframe: `TsTap` keeps the latest PAT and PMT and
 * every packet since the last video packet that starts a keyframe (the muxer marks it with the
 * adaptation field's random_access_indicator). A reader that joins gets the tables and those
 * packets at once, then every packet: a push that starts again does not wait up to a keyframe
 * interval for the next one (an RTMP server's "GOP cache", here on the sending side).
 */
const PACKET = 188;
const SYNC = 0x47;
/** PMT stream types of H.264 and H.265: the stream whose keyframes a reader joins at. */
const VIDEO_TYPES = new Set([0x1b, 0x24]);
/** The packets kept since the last keyframe, at most (2 s at 4 Mbit/s is 1 MB). */
const GOP_LIMIT_BYTES = 16 * 1024 * 1024;

export interface TsPacketInfo {
  pid: number;
  /** payload_unit_start_indicator */
  start: boolean;
  /** random_access_indicator of the adaptation field */
  randomAccess: boolean;
}

export function tsPacketInfo(p: Buffer): TsPacketInfo {
  const pid = ((p[1]! & 0x1f) << 8) | p[2]!;
  const start = (p[1]! & 0x40) !== 0;
  const afc = (p[3]! >> 4) & 3;
  const randomAccess = (afc === 2 || afc === 3) && p[4]! > 0 && (p[5]! & 0x40) !== 0;
  return { pid, start, randomAccess };
}

/** The section of a PSI packet (after its pointer field), or null. */
function section(p: Buffer): Buffer | null {
  const afc = (p[3]! >> 4) & 3;
  let at = 4;
  if (afc === 2) return null;
  if (afc === 3) at += 1 + p[4]!;
  if (at >= PACKET) return null;
  at += 1 + p[at]!; // pointer_field
  return at < PACKET ? p.subarray(at) : null;
}

/** PAT: the PMT's PID of the first program. */
export function patPmtPid(p: Buffer): number | null {
  const s = section(p);
  if (!s || s[0] !== 0x00) return null;
  const length = ((s[1]! & 0x0f) << 8) | s[2]!;
  for (let at = 8; at + 4 <= Math.min(3 + length - 4, s.length); at += 4) {
    const program = (s[at]! << 8) | s[at + 1]!;
    if (program !== 0) return ((s[at + 2]! & 0x1f) << 8) | s[at + 3]!;
  }
  return null;
}

/** PMT: the PID of its video stream. */
export function pmtVideoPid(p: Buffer): number | null {
  const s = section(p);
  if (!s || s[0] !== 0x02) return null;
  const length = ((s[1]! & 0x0f) << 8) | s[2]!;
  const end = Math.min(3 + length - 4, s.length);
  let at = 12 + (((s[10]! & 0x0f) << 8) | s[11]!);
  while (at + 5 <= end) {
    const type = s[at]!;
    const pid = ((s[at + 1]! & 0x1f) << 8) | s[at + 2]!;
    if (VIDEO_TYPES.has(type)) return pid;
    at += 5 + (((s[at + 3]! & 0x0f) << 8) | s[at + 4]!);
  }
  return null;
}

type Reader = (chunk: Buffer) => void;

export class TsTap {
  #rest: Buffer = Buffer.alloc(0);
  #pat: Buffer | null = null;
  #pmt: Buffer | null = null;
  #pmtPid = -1;
  #videoPid = -1;
  /** The packets from the last keyframe on (empty before the first, or past the limit). */
  #gop: Buffer[] = [];
  #gopBytes = 0;
  #readers = new Set<Reader>();
  /** Readers that joined when there was no whole keyframe interval to give: they start at the next keyframe. */
  #pending = new Set<Reader>();
  /** Bytes that were not whole packets in sync (diagnostics). */
  skipped = 0;
  keyframes = 0;

  /** Takes the encoder's output as it comes, cut anywhere. */
  write(chunk: Buffer): void {
    const data = this.#rest.length ? Buffer.concat([this.#rest, chunk]) : chunk;
    let at = 0;
    const out: Buffer[] = [];
    while (at + PACKET <= data.length) {
      if (data[at] !== SYNC) {
        at++;
        this.skipped++;
        continue;
      }
      const p = Buffer.from(data.subarray(at, at + PACKET));
      at += PACKET;
      if (this.#packet(p) && this.#pending.size && this.#pat && this.#pmt) {
        // What came before this keyframe goes to the readers there were; the waiting ones start here.
        if (out.length && this.#readers.size) {
          const whole = Buffer.concat(out);
          for (const r of this.#readers) r(whole);
        }
        out.length = 0;
        for (const r of this.#pending) {
          r(Buffer.concat([this.#pat, this.#pmt]));
          this.#readers.add(r);
        }
        this.#pending.clear();
      }
      out.push(p);
    }
    this.#rest = Buffer.from(data.subarray(at));
    if (out.length && this.#readers.size) {
      const whole = Buffer.concat(out);
      for (const r of this.#readers) r(whole);
    }
  }

  /** Notes what the packet says; true when it starts a keyframe. */
  #packet(p: Buffer): boolean {
    const info = tsPacketInfo(p);
    if (info.pid === 0 && info.start) {
      const pmtPid = patPmtPid(p);
      if (pmtPid !== null) {
        this.#pat = p;
        this.#pmtPid = pmtPid;
      }
    } else if (info.pid === this.#pmtPid && info.start) {
      const video = pmtVideoPid(p);
      if (video !== null) {
        this.#pmt = p;
        this.#videoPid = video;
      }
    }
    const key = info.pid === this.#videoPid && info.start && info.randomAccess;
    if (key) {
      this.keyframes++;
      this.#gop = [];
      this.#gopBytes = 0;
    }
    if (this.keyframes > 0 && this.#gopBytes <= GOP_LIMIT_BYTES) {
      this.#gop.push(p);
      this.#gopBytes += PACKET;
    }
    return key;
  }

  /**
   * Feeds `reader` from the last keyframe on: the tables first, then what came since, then every
   * packet as it comes (before the first keyframe, or after an interval too long to keep, from the
   * next keyframe). Returns a function that stops it.
   */
  join(reader: Reader): () => void {
    if (this.#pat && this.#pmt && this.#gop.length && this.#gopBytes <= GOP_LIMIT_BYTES) {
      reader(Buffer.concat([this.#pat, this.#pmt, ...this.#gop]));
      this.#readers.add(reader);
    } else this.#pending.add(reader);
    return () => {
      this.#pending.delete(reader);
      this.#readers.delete(reader);
    };
  }
}
