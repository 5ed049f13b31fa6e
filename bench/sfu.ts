/**
 * bench/sfu: forwarding cost of our SFU (media-server/ on werift) beside Debian's Janus videoroom,
 * in the same run, on the same synthetic load.
 *
 *   node bench/sfu.ts [--counts=1,10,20,40] [--duration=5] [--warmup=2]
 *
 * One publisher sends a VP8-shaped stream (15 frames/s of three packets, about 45 packets/s,
 * the packet rate of a 640x360 camera at this frame rate) to the SFU; 1, 10, 20 and 40
 * subscribers receive it through the SFU (werift peers in this process, which decode nothing).
 * Per step: the SFU process's CPU (% of one core, from /proc), packets/s forwarded (counted at the
 * subscribers), CPU microseconds per forwarded packet, and resident memory per subscriber over the
 * publisher-only baseline. Results go to bench/results/sfu-<time>.md.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { MediaStreamTrack } from 'werift';
import { TokenSigner } from '#core/platform/secrets.ts';
import { clientPeerConnection, MediaTestPeer, sendSynthetic } from '#tests/support/media-client.ts';
import { runBench } from './lib/entry.ts';
import { JanusSession, janusInstalled, ROOM, startJanus } from './lib/janus.ts';
import { markdownTable } from './lib/stats.ts';

const root = path.join(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    counts: { type: 'string', default: '1,10,20,40' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
  },
});
const counts = args.counts.split(',').map(Number);
const durationMs = Number(args.duration) * 1000;
const warmupMs = Number(args.warmup) * 1000;
const SECRET = 'b'.repeat(48);
const log = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function ticks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}
function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
  return m ? Number(m[1]) : 0;
}

interface Subscriber {
  packets(): number;
  close(): Promise<void> | void;
}
interface Sfu {
  name: string;
  pid: number;
  publish(): Promise<void>;
  subscribe(i: number): Promise<Subscriber>;
  close(): Promise<void>;
}

async function ours(): Promise<Sfu> {
  const child: ChildProcess = fork(path.join(root, 'bench/lib/sfu-server.ts'), {
    env: { ...process.env, BENCH_SECRET: SECRET },
    stdio: 'inherit',
  });
  const port = await new Promise<number>((resolve) => child.once('message', (m: { port: number }) => resolve(m.port)));
  const url = `http://127.0.0.1:${port}`;
  const signer = new TokenSigner(SECRET);
  const token = (uid: string) =>
    signer.sign({ scope: 'media', room: '100001', uid, role: uid === '1' ? 'creator' : 'member', rt: 1, pub: ['camera', 'mic'] }, 3600);
  const peers: MediaTestPeer[] = [];
  let trackId = '';
  return {
    name: 'Banshu (werift)',
    pid: child.pid!,
    async publish() {
      const p = await MediaTestPeer.connect(url);
      peers.push(p);
      await p.ok('join', { token: token('1') });
      trackId = (await p.publish('camera')).trackId;
    },
    async subscribe(i) {
      const p = await MediaTestPeer.connect(url);
      peers.push(p);
      await p.ok('join', { token: token(String(100 + i)) });
      const got = await p.subscribe(trackId);
      return { packets: () => got.packets, close: () => p.close() };
    },
    async close() {
      for (const p of peers) p.close();
      child.kill();
    },
  };
}

async function janus(): Promise<Sfu> {
  const port = 18088;
  const child = startJanus(port);
  const end = Date.now() + 15_000;
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/janus/info`);
      if (r.ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > end) throw new Error('janus did not start');
    await sleep(100);
  }
  const session = new JanusSession(port);
  await session.create();
  const pcs: Array<{ close(): Promise<void> }> = [];
  let feed = 0;
  let timer: NodeJS.Timeout | null = null;
  return {
    name: 'Janus 1.1 videoroom (C)',
    pid: child.pid!,
    async publish() {
      const handle = await session.attach();
      const joined = await session.message(handle, { request: 'join', ptype: 'publisher', room: ROOM, display: 'pub' });
      feed = joined.plugindata.data.id;
      const pc = clientPeerConnection(true);
      pcs.push(pc);
      const track = new MediaStreamTrack({ kind: 'video' });
      pc.addTransceiver(track, { direction: 'sendonly' });
      await pc.setLocalDescription(await pc.createOffer());
      const ev = await session.message(
        handle,
        { request: 'publish', audio: false, video: true },
        { type: 'offer', sdp: pc.localDescription!.sdp, trickle: false },
      );
      if (!ev.jsep) throw new Error(`janus publish: ${JSON.stringify(ev.plugindata?.data)}`);
      await pc.setRemoteDescription({ type: 'answer', sdp: ev.jsep.sdp });
      timer = sendSynthetic(track, 'video');
      // Janus lists the feed once its connection is up.
      const end = Date.now() + 10_000;
      while (pc.connectionState !== 'connected' && Date.now() < end) await sleep(50);
      await sleep(500);
      if (pc.connectionState !== 'connected')
        throw new Error(
          `janus publisher: ${pc.connectionState}; answer candidates: ${ev.jsep.sdp
            .split('\n')
            .filter((l: string) => l.includes('candidate'))
            .join(' ')}`,
        );
    },
    async subscribe() {
      const handle = await session.attach();
      const ev = await session.message(handle, { request: 'join', ptype: 'subscriber', room: ROOM, streams: [{ feed }] });
      if (!ev.jsep) throw new Error(`janus subscriber join: ${JSON.stringify(ev.plugindata?.data)}`);
      const pc = clientPeerConnection(true);
      pcs.push(pc);
      let packets = 0;
      pc.onTrack.subscribe((t) => t.onReceiveRtp.subscribe(() => packets++));
      await pc.setRemoteDescription({ type: 'offer', sdp: ev.jsep.sdp });
      await pc.setLocalDescription(await pc.createAnswer());
      await session.message(handle, { request: 'start', room: ROOM }, { type: 'answer', sdp: pc.localDescription!.sdp, trickle: false });
      return {
        packets: () => packets,
        close: async () => {
          await pc.close();
          await session.detach(handle);
        },
      };
    },
    async close() {
      if (timer) clearInterval(timer);
      for (const pc of pcs) await pc.close().catch(() => undefined);
      session.close();
      child.kill('SIGTERM');
    },
  };
}

interface Row {
  sfu: string;
  subscribers: number;
  cpu: number;
  pps: number;
  usPerPacket: number;
  kibPerSub: number;
}

async function measure(make: () => Promise<Sfu>): Promise<Row[]> {
  const sfu = await make();
  const rows: Row[] = [];
  try {
    await sfu.publish();
    await sleep(1000);
    const base = rssKiB(sfu.pid);
    const subs: Subscriber[] = [];
    for (const n of counts) {
      while (subs.length < n) subs.push(await sfu.subscribe(subs.length));
      await sleep(warmupMs);
      const t0 = ticks(sfu.pid);
      const p0 = subs.reduce((a, s) => a + s.packets(), 0);
      const at = performance.now();
      await sleep(durationMs);
      const seconds = (performance.now() - at) / 1000;
      const cpuSeconds = (ticks(sfu.pid) - t0) / 100;
      const packets = subs.reduce((a, s) => a + s.packets(), 0) - p0;
      const row: Row = {
        sfu: sfu.name,
        subscribers: n,
        cpu: (100 * cpuSeconds) / seconds,
        pps: packets / seconds,
        usPerPacket: packets ? (cpuSeconds * 1e6) / packets : NaN,
        kibPerSub: (rssKiB(sfu.pid) - base) / n,
      };
      rows.push(row);
      log(
        `  ${row.sfu}: ${n} subscribers: ${row.cpu.toFixed(1)}% CPU, ${Math.round(row.pps)} packets/s, ${row.usPerPacket.toFixed(1)} us/packet, ${Math.round(row.kibPerSub)} KiB/subscriber`,
      );
    }
    for (const s of subs) await s.close();
  } finally {
    await sfu.close();
  }
  return rows;
}

async function main() {
  log(
    `bench/sfu on ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}; counts ${counts.join(', ')}, ${args.duration} s per step`,
  );
  const rows = await measure(ours);
  let reference: Row[] = [];
  if (janusInstalled()) reference = await measure(janus);
  else log('  Janus is not installed (apt-get install janus): no reference run');
  const table = markdownTable(
    [
      'subscribers',
      'Banshu CPU %',
      'Janus CPU %',
      'Banshu packets/s',
      'Janus packets/s',
      'Banshu us/packet',
      'Janus us/packet',
      'ratio',
      'Banshu KiB/sub',
      'Janus KiB/sub',
    ],
    counts.map((n) => {
      const a = rows.find((r) => r.subscribers === n);
      const b = reference.find((r) => r.subscribers === n);
      const f = (v: number | undefined, d = 1) => (v === undefined || Number.isNaN(v) ? '-' : v.toFixed(d));
      return [
        String(n),
        f(a?.cpu),
        f(b?.cpu),
        f(a?.pps, 0),
        f(b?.pps, 0),
        f(a?.usPerPacket),
        f(b?.usPerPacket),
        a && b ? (a.usPerPacket / b.usPerPacket).toFixed(1) : '-',
        f(a?.kibPerSub, 0),
        f(b?.kibPerSub, 0),
      ];
    }),
  );
  log(`\n${table}`);
  const dir = path.join(root, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `sfu-${new Date().toISOString().replace(/[:.]/g, '-')}.md`), `${table}\n`);
}

runBench(main, 10 * 60_000, log);
