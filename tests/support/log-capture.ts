/** A pino logger whose lines a test reads (what a process warned about, an outage it logged). */
import { Writable } from 'node:stream';
import { pino, type Logger as PinoLogger } from 'pino';

export interface LogLine {
  level: number;
  msg: string;
}

export function capturingLogger(level = 'info'): { logger: PinoLogger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino(
    { level },
    new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as LogLine);
        done();
      },
    }),
  );
  return { logger, lines };
}
