import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, base: Record<string, unknown> = {}): Logger {
  return pino({
    level,
    base: { app: 'banshu', ...base },
    redact: { paths: ['req.headers.token', 'req.headers.cookie', 'token', 'userToken', 'code_hash'], remove: true },
  });
}
