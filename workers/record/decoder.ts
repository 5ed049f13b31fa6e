/**
 * One ffmpeg per track. Audio: RTP arrives on a loopback UDP port described by an SDP file. Video:
 * whole VP8 frames arrive on stdin in IVF, put together by the recorder (vp8.ts, ADR 082). The
 * decoded media leaves on stdout: video as YUV4MPEG2 (yuv420p at the tile's size), audio s16le
 * 48 kHz mono. Not rawvideo: ffmpeg 5.1 writes a rawvideo picture to a pipe only when the next one
 * comes (a frame late, 67 ms at 15 fps), a y4m picture at once (ADR 080).
 * A decoder dies with the recorder: its stdout is a pipe to us, so a write after we are gone
 * fails (EPIPE) and it exits; `stop` kills it too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AUDIO_RATE } from './types.ts';
import { ivfFrame, ivfHeader } from './vp8.ts';

/** Flags that keep the decoder from waiting: no probing, no buffering, no reordering window. */
const LOW_DELAY = ['-fflags', 'nobuffer', '-flags', 'low_delay', '-analyzeduration', '0', '-probesize', '32', '-reorder_queue_size', '0'];
/**
 * The video decoder's: no `nobuffer`, which throws away what the stream's probing read, the first
 * keyframe (measured: 0 of 10 pictures decoded with it, 10 of 10 without, ADR 082).
 */
const VIDEO_LOW_DELAY = ['-flags', 'low_delay', '-analyzeduration', '0', '-probesize', '32'];
/** Frames queued for a video decoder beyond this: it is not keeping up, and is started again. */
const VIDEO_QUEUE_LIMIT = 8 * 1024 * 1024;

/** The SDP ffmpeg reads an audio track's RTP by (Opus, as the SFU forwards it). */
export function audioSdp(port: number): string {
  const media = [`m=audio ${String(port)} RTP/AVP 111`, 'a=rtpmap:111 opus/48000/2', 'a=fmtp:111 minptime=10;useinbandfec=1'];
  return ['v=0', 'o=- 0 0 IN IP4 127.0.0.1', 's=banshu-recorder', 'c=IN IP4 127.0.0.1', 't=0 0', ...media, 'a=recvonly', ''].join('\r\n');
}

/** An even loopback UDP port that is free now, with its odd neighbour (ffmpeg takes port+1 for RTCP). */
export async function freeRtpPort(): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const port = await new Promise<number>((resolve, reject) => {
      const s = createSocket('udp4');
      s.once('error', reject);
      s.bind(0, '127.0.0.1', () => {
        const p = s.address().port;
        s.close(() => resolve(p));
      });
    });
    const even = port & ~1;
    if (even < 1024 || even + 1 > 65535) continue;
    const free = await Promise.all([even, even + 1].map(isFree));
    if (free.every(Boolean)) return even;
  }
  throw new Error('no free UDP port pair');
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createSocket('udp4');
    s.once('error', () => resolve(false));
    s.bind(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * Whether a UDP socket of this machine is bound to `port` (/proc/net/udp and udp6: the local
 * address column ends in the port in hex); null where the table cannot be read.
 */
export async function udpPortBound(port: number): Promise<boolean | null> {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let read = false;
  for (const table of ['/proc/net/udp', '/proc/net/udp6']) {
    const text = await readFile(table, 'utf8').catch(() => null);
    if (text === null) continue;
    read = true;
    for (const line of text.split('\n').slice(1)) if (line.trim().split(/\s+/)[1]?.endsWith(hex)) return true;
  }
  return read ? false : null;
}

export interface DecoderOptions {
  kind: 'audio' | 'video';
  /** Where the SDP file goes. */
  dir: string;
  name: string;
  /** Video: the size of the output (scaled keeping the aspect, padded black). */
  width?: number;
  height?: number;
  /**
   * Each chunk of output, as it comes (video: the caller reads the y4m stream). One it cannot read
   * (it throws) ends this decoder, reported as an exit.
   */
  onData: (chunk: Buffer) => void;
  onExit: (code: number | null, stderrTail: string) => void;
}

export class Decoder {
  /** Audio: the UDP port its RTP goes to (0 for video). */
  readonly port: number;
  readonly child: ChildProcess;
  readonly #sdpFile: string;
  #stopped = false;
  /** Audio: ffmpeg has bound its UDP port, what is sent now reaches it (before, it is lost). Video: always. */
  listening = false;
  /** Video: the presentation time of the last frame written (90 kHz, always rising) and its RTP timestamp. */
  #pts = -1;
  #rtpTs = 0;
  /** Video: frames written, and bytes written that ffmpeg has not taken yet (diagnostics). */
  written = 0;
  get queuedBytes(): number {
    return this.child.stdin?.writableLength ?? 0;
  }

  private constructor(port: number, sdpFile: string, child: ChildProcess) {
    this.port = port;
    this.#sdpFile = sdpFile;
    this.child = child;
  }

  static async start(o: DecoderOptions): Promise<Decoder> {
    const video = o.kind === 'video';
    const port = video ? 0 : await freeRtpPort();
    const sdpFile = video ? '' : path.join(o.dir, `${o.name}.sdp`);
    if (!video) await writeFile(sdpFile, audioSdp(port));
    // One decoding thread for video: frame threads would hold each picture back a frame or two.
    const threads = video ? ['-threads', '1'] : [];
    const output = video
      ? [
          '-map',
          '0:v:0',
          '-vf',
          `scale=${String(o.width)}:${String(o.height)}:force_original_aspect_ratio=decrease,pad=${String(o.width)}:${String(o.height)}:(ow-iw)/2:(oh-ih)/2,format=yuv420p`,
          '-fps_mode',
          'passthrough',
          '-f',
          'yuv4mpegpipe',
        ]
      : ['-map', '0:a:0', '-ac', '1', '-ar', String(AUDIO_RATE), '-f', 's16le', '-flush_packets', '1'];
    const child = spawn(
      'ffmpeg',
      [
        '-hide_banner',
        '-nostdin',
        '-nostats',
        '-loglevel',
        'error',
        ...(video
          ? [...VIDEO_LOW_DELAY, ...threads, '-f', 'ivf', '-i', 'pipe:0']
          : ['-protocol_whitelist', 'file,udp,rtp', ...LOW_DELAY, '-i', sdpFile]),
      ]
        .concat(output)
        .concat(['pipe:1']),
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const d = new Decoder(port, sdpFile, child);
    if (video) {
      // A write after ffmpeg is gone fails (EPIPE): its exit is reported by 'close'.
      child.stdin.on('error', () => undefined);
      child.stdin.write(ivfHeader(o.width ?? 0, o.height ?? 0));
      d.listening = true;
    } else child.stdin.end();
    let tail = '';
    child.stderr.on('data', (c: Buffer) => {
      tail = (tail + c.toString()).slice(-2000);
    });
    child.stdout.on('data', (c: Buffer) => {
      if (d.#stopped) return;
      try {
        o.onData(c);
      } catch (err) {
        tail += `\n${String(err)}`;
        child.stdout.removeAllListeners('data');
        child.kill('SIGKILL');
      }
    });
    child.once('error', (err) => {
      tail += String(err);
    });
    child.once('close', (code) => {
      if (sdpFile) void rm(sdpFile, { force: true });
      if (!d.#stopped) o.onExit(code, tail);
    });
    if (!video) void d.#watchBind();
    return d;
  }

  /**
   * Video: writes a whole VP8 frame. A decoder that has fallen this far behind is stopped (its
   * exit is reported, and the intake starts another at the next keyframe).
   */
  writeFrame(data: Buffer, rtpTimestamp: number): void {
    const stdin = this.child.stdin;
    if (this.#stopped || !stdin || !this.running || stdin.destroyed) return;
    // The RTP clock, unwrapped and kept rising: a new leg's clock starts anywhere.
    const step = (rtpTimestamp - this.#rtpTs) >>> 0;
    this.#pts = this.#pts < 0 ? 0 : this.#pts + (step > 0 && step < 90_000 * 10 ? step : 3000);
    this.#rtpTs = rtpTimestamp;
    if (stdin.writableLength > VIDEO_QUEUE_LIMIT) {
      this.child.kill('SIGKILL');
      return;
    }
    stdin.write(ivfFrame(data, this.#pts));
    this.written++;
  }

  /**
   * Polls until ffmpeg holds its port, for as long as it runs (a starved machine can take seconds
   * to start it): often at first, then every 200 ms. On Linux it reads the kernel's socket table;
   * binding the port ourselves to test it could take it from ffmpeg at the moment it binds (its
   * bind then fails and it exits), which is used only where there is no such table.
   */
  async #watchBind(): Promise<void> {
    const began = Date.now();
    while (!this.#stopped && this.running) {
      const bound = (await udpPortBound(this.port)) ?? !(await isFree(this.port));
      if (bound) {
        this.listening = true;
        return;
      }
      await new Promise((r) => setTimeout(r, Date.now() - began < 2000 ? 20 : 200));
    }
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.running) this.child.kill('SIGKILL');
    if (this.#sdpFile) void rm(this.#sdpFile, { force: true });
  }
}
