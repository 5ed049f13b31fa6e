/**
 * Runs a helper program (soffice, ffprobe, ffmpeg) in its own process group with a deadline: on
 * timeout or abort the whole group is killed (soffice is a script that starts oosplash, which
 * starts soffice.bin), so nothing is left behind.
 */
import { spawn } from 'node:child_process';
import { ConvertError } from '#core/courseware/converter.ts';

/** Why a signal aborted, as an Error (the converter aborts with a ConvertError). */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new ConvertError('failed', 'the conversion was cancelled', true);
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
  /** Ended by us: the deadline passed or the signal aborted. */
  killed: 'timeout' | 'aborted' | null;
}

export interface RunOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Most stdout kept (a poster JPEG goes through stdout); more is an error. */
  maxStdout?: number;
}

const STDERR_KEEP = 16 * 1024;

export function run(command: string, args: string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: options.env ?? process.env,
      cwd: options.cwd,
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let killed: RunResult['killed'] = null;
    const maxStdout = options.maxStdout ?? 1024 * 1024;
    const killGroup = (why: 'timeout' | 'aborted') => {
      if (killed) return;
      killed = why;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => killGroup('timeout'), Math.max(0, options.timeoutMs));
    const onAbort = () => killGroup('aborted');
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > maxStdout) killGroup('aborted');
      else out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (err.length < STDERR_KEEP) err += chunk.toString('utf8').slice(0, STDERR_KEEP - err.length);
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      reject(e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      // The group may outlive the direct child (a daemonised grandchild): make sure it is gone.
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      resolve({ code, signal, stdout: Buffer.concat(out), stderr: err, killed });
    });
  });
}
