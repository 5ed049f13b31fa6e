/**
 * Starts the product in one process: the platform plus the roles that ROLE names. Used by
 * server/main.ts, the tests and the benchmarks.
 */
import { loadConfig, type Config } from '#core/platform/config.ts';
import { buildPlatform, type Platform, type PlatformOverrides } from './platform.ts';
import { startWeb, type WebOptions, type WebServer } from './web/http.ts';
import { startMedia, type MediaRole } from './media.ts';
import { attachMediaControlSender, recentKicks, type MediaControlSender } from './media-control.ts';
import { attachRedisEmitter } from './redis.ts';
import { startRecorder } from './recorder.ts';
import type { RecorderRunner } from '../workers/record/runner.ts';

export interface Banshu {
  config: Config;
  platform: Platform;
  web: WebServer | null;
  media: MediaRole | null;
  /** The recorder role's runner (ADR 077), when this process records. */
  recorder: RecorderRunner | null;
  url: string;
  close(): Promise<void>;
}

export async function startBanshu(
  env: Record<string, string | undefined>,
  overrides: PlatformOverrides & { web?: WebOptions } = {},
): Promise<Banshu> {
  const config = loadConfig(env);
  const platform = await buildPlatform(config, overrides);
  const runsWeb = config.roles.has('web');
  const runsMedia = config.roles.has('media');
  let web: WebServer | null = null;
  let media: MediaRole | null = null;
  let recorder: RecorderRunner | null = null;
  let stopControl: (() => void) | null = null;
  let emitter: { close(): Promise<void> } | null = null;
  try {
    if (runsWeb) web = await startWeb(platform, overrides.web ?? { mode: 'build' });
    // Without PUBLIC_URL, links follow the port actually bound (PORT=0 picks a free one).
    if (web && !config.PUBLIC_URL) config.publicUrl = web.url;
    // No channels here (worker, media): bus messages reach browsers through Redis (ADR 053).
    if (!web && config.REDIS_URL) emitter = await attachRedisEmitter(platform.events, config.REDIS_URL, platform.logger);
    // A process without browsers of its own and no Redis: what it announces reaches nobody live.
    if (!web && !config.REDIS_URL && (config.roles.has('worker') || config.roles.has('recorder'))) {
      platform.logger.warn(
        { role: config.ROLE },
        'no REDIS_URL: conversion progress, recording states and other events of this process reach browsers only when they reload; set REDIS_URL on every process (ADR 053)',
      );
    }
    // Embedded by default: the SFU shares the web role's port and hears its room events.
    if (runsMedia)
      media = await startMedia(
        {
          config,
          secret: platform.secret,
          logger: platform.logger,
          events: platform.events,
          db: platform.database.db,
          clock: platform.clock,
        },
        web?.io ?? null,
      );
    if (media && web) web.setMediaControl((req, res) => media!.control(req, res));
    // Revocations for rooms on media nodes in other processes (ADR 032). One embedded SFU serves
    // every room itself.
    const localNode = media?.nodeId;
    let sender: MediaControlSender | null = null;
    if (!(media && config.MEDIA_PLACEMENT === 'single')) {
      sender = attachMediaControlSender({
        events: platform.events,
        nodes: platform.mediaNodes,
        secret: platform.secret,
        logger: platform.logger,
        isLocal: (nodeId) => nodeId === localNode,
        retryForMs: (config.MEDIA_TOKEN_TTL_SECONDS + 10) * 1000,
      });
      stopControl = () => sender?.close();
    }
    // Kick-outs still within a token's lifetime, again: this process's SFU and every other node (ADR 066).
    if (runsWeb) {
      const since = new Date(Date.now() - config.MEDIA_TOKEN_TTL_SECONDS * 1000);
      for (const cmd of await recentKicks(platform.database.db, since)) {
        media?.server.apply(cmd);
        sender?.send(cmd);
      }
    }
    // Last: it joins rooms on the SFU started above (or the node MEDIA_PUBLIC_URL names).
    if (config.roles.has('recorder')) recorder = startRecorder(platform);
  } catch (err) {
    await recorder?.close();
    await web?.close();
    await emitter?.close();
    await platform.close();
    throw err;
  }
  let closed: Promise<void> | null = null;
  return {
    config,
    platform,
    web,
    media,
    recorder,
    url: web?.url ?? media?.url ?? config.publicUrl,
    close: () =>
      (closed ??= (async () => {
        stopControl?.();
        await recorder?.close();
        await media?.close();
        await web?.close();
        await emitter?.close();
        await platform.close();
      })()),
  };
}
