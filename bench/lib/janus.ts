/**
 * Debian's Janus as the reference SFU: a trimmed configuration (HTTP transport and the videoroom
 * plugin only, ICE on loopback), and a minimal client of its REST API for a publisher and
 * subscribers (werift peers that do not trickle).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, symlinkSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const LIB = '/usr/lib/x86_64-linux-gnu/janus';
export const JANUS_BIN = '/usr/bin/janus';
export const ROOM = 1234;

export function janusInstalled(): boolean {
  return existsSync(JANUS_BIN) && existsSync(`${LIB}/plugins/libjanus_videoroom.so`);
}

export function startJanus(port: number): ChildProcess {
  const dir = mkdtempSync(path.join(tmpdir(), 'janus-bench-'));
  for (const sub of ['plugins', 'transports', 'events', 'loggers']) mkdirSync(path.join(dir, sub));
  symlinkSync(`${LIB}/plugins/libjanus_videoroom.so`, path.join(dir, 'plugins', 'libjanus_videoroom.so'));
  symlinkSync(`${LIB}/transports/libjanus_http.so`, path.join(dir, 'transports', 'libjanus_http.so'));
  writeFileSync(
    path.join(dir, 'janus.jcfg'),
    `general: { configs_folder = "${dir}", plugins_folder = "${dir}/plugins", transports_folder = "${dir}/transports", events_folder = "${dir}/events", loggers_folder = "${dir}/loggers", debug_level = 2, session_timeout = 120 }
media: { rtp_port_range = "44000-45999" }
nat: { ice_enforce_list = "lo", full_trickle = false, ice_lite = false }
`,
  );
  writeFileSync(
    path.join(dir, 'janus.transport.http.jcfg'),
    `general: { json = "plain", base_path = "/janus", http = true, port = ${port}, ip = "127.0.0.1", https = false }
admin: { admin_http = false }
`,
  );
  writeFileSync(
    path.join(dir, 'janus.plugin.videoroom.jcfg'),
    `general: { }
room-${ROOM}: { description = "bench", publishers = 2, bitrate = 2000000, fir_freq = 10, videocodec = "vp8", audiocodec = "opus" }
`,
  );
  return spawn(JANUS_BIN, ['-F', dir, '-C', path.join(dir, 'janus.jcfg'), '-N', '-o', '-d', '2'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

const tx = () => Math.random().toString(36).slice(2);

export class JanusSession {
  readonly #base: string;
  #id = 0;
  readonly #waiters = new Map<number, Array<(e: any) => void>>();
  #polling = false;

  constructor(port: number) {
    this.#base = `http://127.0.0.1:${port}/janus`;
  }

  async #post(url: string, body: Record<string, unknown>): Promise<any> {
    const res = await fetch(url, { method: 'POST', body: JSON.stringify({ ...body, transaction: tx() }) });
    const json = await res.json();
    if (json.janus === 'error') throw new Error(`janus: ${JSON.stringify(json.error)}`);
    return json;
  }

  async create(): Promise<void> {
    this.#id = (await this.#post(this.#base, { janus: 'create' })).data.id;
    this.#polling = true;
    void this.#poll();
  }

  async #poll(): Promise<void> {
    while (this.#polling) {
      try {
        const res = await fetch(`${this.#base}/${this.#id}?maxev=20`);
        const body = await res.json();
        for (const e of Array.isArray(body) ? body : [body]) {
          const list = this.#waiters.get(e.sender);
          if (e.janus === 'event' && list?.length) list.shift()!(e);
        }
      } catch {
        if (!this.#polling) return;
      }
    }
  }

  async attach(): Promise<number> {
    return (await this.#post(`${this.#base}/${this.#id}`, { janus: 'attach', plugin: 'janus.plugin.videoroom' })).data.id;
  }

  /** Sends a plugin message and resolves with the plugin's event (and jsep). */
  message(handle: number, body: Record<string, unknown>, jsep?: Record<string, unknown>): Promise<any> {
    const event = new Promise((resolve) => {
      const list = this.#waiters.get(handle) ?? [];
      list.push(resolve);
      this.#waiters.set(handle, list);
    });
    return this.#post(`${this.#base}/${this.#id}/${handle}`, { janus: 'message', body, ...(jsep ? { jsep } : {}) }).then(() => event);
  }

  async detach(handle: number): Promise<void> {
    await this.#post(`${this.#base}/${this.#id}/${handle}`, { janus: 'detach' }).catch(() => undefined);
  }

  close(): void {
    this.#polling = false;
  }
}
