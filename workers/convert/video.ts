/**
 * mp4 courseware (docs/decisions/047): ffprobe says what it is; H.264 (with AAC, MP3 or no audio)
 * is remuxed without re-encoding with the moov atom first (fast start); any other codec is
 * re-encoded to H.264/AAC, which every browser plays. A poster JPEG is taken about 1 s in.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { ConvertError } from '#core/courseware/converter.ts';
import type { ConvertedVideo } from '#core/courseware/converter.ts';
import { PAGE_IMAGE_WIDTH } from '#core/contracts/courseware.ts';
import { abortReason, run } from './process.ts';

export interface VideoTools {
  ffmpeg: string;
  ffprobe: string;
  workDir: string;
}

export interface VideoProbe {
  durationMs: number;
  width: number;
  height: number;
  videoCodec: string;
  audioCodec: string | null;
}

/** Browser-playable in an mp4 everywhere (Chrome, Firefox, Safari, phones). */
const PLAYABLE_VIDEO = new Set(['h264']);
const PLAYABLE_AUDIO = new Set(['aac', 'mp3']);
/** Larger than 4K is refused: nobody teaches from it and it costs minutes to re-encode. */
const MAX_VIDEO_SIDE = 4096;

interface ProbeJson {
  format?: { duration?: string; format_name?: string };
  streams?: Array<{
    codec_type?: string;
    codec_name?: string;
    width?: number;
    height?: number;
    duration?: string;
    tags?: { rotate?: string };
    side_data_list?: Array<{ rotation?: number }>;
  }>;
}

export async function probeVideo(
  tools: VideoTools,
  file: string,
  deadline: number,
  signal: AbortSignal,
  acceptWebm = false,
): Promise<VideoProbe> {
  const r = await run(tools.ffprobe, ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], {
    timeoutMs: deadline - Date.now(),
    signal,
  });
  checkKilled(r.killed, signal);
  let info: ProbeJson;
  try {
    info = JSON.parse(r.stdout.toString('utf8')) as ProbeJson;
  } catch {
    info = {};
  }
  const video = info.streams?.find((s) => s.codec_type === 'video');
  const audio = info.streams?.find((s) => s.codec_type === 'audio');
  const duration = Number(info.format?.duration ?? video?.duration);
  if (r.code !== 0 || !video?.codec_name || !video.width || !video.height || !(duration > 0)) {
    throw new ConvertError('corrupt', `not a playable video${r.stderr ? `: ${r.stderr.trim().split('\n')[0] ?? ''}` : ''}`);
  }
  const container = info.format?.format_name ?? '';
  if (!/\bmp4\b|\bmov\b/.test(container) && !(acceptWebm && /\bwebm\b/.test(container)))
    throw new ConvertError('unsupported', `not an mp4 (${info.format?.format_name ?? '?'})`);
  if (video.width > MAX_VIDEO_SIDE || video.height > MAX_VIDEO_SIDE) {
    throw new ConvertError(
      'unsupported',
      `video of ${String(video.width)} x ${String(video.height)} is larger than ${String(MAX_VIDEO_SIDE)} px`,
    );
  }
  // A phone video stored sideways plays (and its poster is taken) turned by the display matrix.
  const rotation = Number(video.side_data_list?.find((d) => d.rotation !== undefined)?.rotation ?? video.tags?.rotate ?? 0);
  const sideways = Math.abs(rotation) % 180 === 90;
  return {
    durationMs: Math.round(duration * 1000),
    width: sideways ? video.height : video.width,
    height: sideways ? video.width : video.height,
    videoCodec: video.codec_name,
    audioCodec: audio?.codec_name ?? null,
  };
}

export async function convertVideoFile(
  tools: VideoTools,
  file: string,
  deadline: number,
  signal: AbortSignal,
  acceptWebm = false,
): Promise<ConvertedVideo> {
  const probe = await probeVideo(tools, file, deadline, signal, acceptWebm);
  await mkdir(tools.workDir, { recursive: true });
  const out = path.join(tools.workDir, `video-${randomUUID()}.mp4`);
  try {
    const copyVideo = PLAYABLE_VIDEO.has(probe.videoCodec);
    const copyAudio = probe.audioCodec === null || PLAYABLE_AUDIO.has(probe.audioCodec);
    const args = ['-v', 'error', '-nostdin', '-y', '-i', file, '-map', '0:v:0', '-map', '0:a:0?', '-sn', '-dn', '-map_metadata', '-1'];
    args.push(...(copyVideo ? ['-c:v', 'copy'] : ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p']));
    args.push(...(copyAudio ? ['-c:a', 'copy'] : ['-c:a', 'aac', '-b:a', '128k']));
    args.push('-movflags', '+faststart', '-f', 'mp4', out);
    const r = await run(tools.ffmpeg, args, { timeoutMs: deadline - Date.now(), signal });
    checkKilled(r.killed, signal);
    const made = await stat(out).catch(() => null);
    if (r.code !== 0 || !made || made.size === 0)
      throw new ConvertError('corrupt', `the video could not be remuxed: ${r.stderr.trim().split('\n')[0] ?? ''}`);
    const poster = await posterFrame(tools, out, probe, deadline, signal);
    const meta = await sharp(poster)
      .metadata()
      .catch(() => null);
    if (!meta?.width) throw new ConvertError('corrupt', 'the poster frame is not a readable image');
    // The remuxed file's own duration: a fragmented MP4 (a browser's recording) may declare none
    // or a wrong one in its header; the fast-start file's index is complete.
    const remuxed = await probeVideo(tools, out, deadline, signal).catch(() => probe);
    return { file: out, poster, width: probe.width, height: probe.height, durationMs: remuxed.durationMs };
  } catch (e) {
    await rm(out, { force: true });
    throw e;
  }
}

/** A JPEG at most PAGE_IMAGE_WIDTH wide from about 1 s in (the middle of a shorter video), else the first frame. */
async function posterFrame(tools: VideoTools, file: string, probe: VideoProbe, deadline: number, signal: AbortSignal): Promise<Buffer> {
  const at = Math.min(1, probe.durationMs / 2000);
  for (const seek of [at, 0]) {
    const r = await run(
      tools.ffmpeg,
      [
        '-v',
        'error',
        '-nostdin',
        '-ss',
        seek.toFixed(3),
        '-i',
        file,
        '-frames:v',
        '1',
        '-vf',
        `scale='min(${String(PAGE_IMAGE_WIDTH)},iw)':-2`,
        '-q:v',
        '3',
        '-f',
        'image2',
        '-c:v',
        'mjpeg',
        'pipe:1',
      ],
      { timeoutMs: deadline - Date.now(), signal, maxStdout: 16 * 1024 * 1024 },
    );
    checkKilled(r.killed, signal);
    if (r.code === 0 && r.stdout.length > 0) return r.stdout;
  }
  throw new ConvertError('corrupt', 'no frame could be decoded for the poster');
}

function checkKilled(killed: 'timeout' | 'aborted' | null, signal: AbortSignal): void {
  if (killed === 'timeout') throw new ConvertError('timeout', 'the video conversion ran past the time limit');
  if (killed === 'aborted') throw abortReason(signal);
}
