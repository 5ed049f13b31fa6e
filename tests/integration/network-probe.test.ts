/**
 * The UDP half of the network check (ADR 031): a werift peer stands in for the browser, opens the
 * unordered, never-retransmitted data channel to the node and sends numbered packets; the node
 * echoes them. What the path loses stays lost, so a lossy downlink shows as loss.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RTCDataChannel, RTCPeerConnection } from 'werift';
import { PROBE_PACKET_MAX_BYTES } from '#core/contracts/media-signaling.ts';
import { EchoCounter } from '#app/device/network-check.ts';
import { clientPeerConnection, MediaTestPeer } from '#tests/support/media-client.ts';
import { until } from '#tests/support/until.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';

let server: TestServer;
const open: Array<{ close(): unknown }> = [];

beforeAll(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
});
afterAll(async () => {
  await server?.close();
});

const probes = () => server.banshu.media!.probes;

/** Offers a data channel the way the browser does and waits until it opens. */
async function openProbe(peer: MediaTestPeer, dropShare = 0): Promise<{ pc: RTCPeerConnection; channel: RTCDataChannel }> {
  const pc = clientPeerConnection(false, dropShare);
  open.push(pc);
  const channel = pc.createDataChannel('probe', { ordered: false, maxRetransmits: 0 });
  await pc.setLocalDescription(await pc.createOffer());
  const answer = await peer.ok('probe', { kind: 'rtc', sdp: pc.localDescription!.sdp });
  await pc.setRemoteDescription({ type: 'answer', sdp: answer.sdp });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the probe channel did not open')), 10_000);
    channel.stateChanged.subscribe((state) => {
      if (state === 'open') {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return { pc, channel };
}

/** Sends `n` numbered packets 5 ms apart, then waits for the echoes; returns the counter's figures. */
async function measure(channel: RTCDataChannel, n: number): Promise<{ rttMs: number; loss: number }> {
  const counter = new EchoCounter();
  channel.onMessage.subscribe((m) => counter.received(Number.parseInt(m.toString(), 10), performance.now()));
  for (let seq = 0; seq < n; seq++) {
    counter.sent(seq, performance.now());
    channel.send(`${String(seq)} ${'.'.repeat(150)}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const end = Date.now() + 1500;
  while (!counter.complete && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  return counter.result();
}

describe('network check over UDP', () => {
  it('hands out the ICE servers and echoes every packet on a clean path', async () => {
    const peer = await MediaTestPeer.connect(server.url);
    open.push(peer);
    expect(await peer.ok('probe', { kind: 'config' })).toEqual({ bytes: 0, iceServers: [] });
    const { channel } = await openProbe(peer);
    const r = await measure(channel, 60);
    expect(r.loss).toBe(0);
    expect(r.rttMs).toBeGreaterThan(0);
    expect(r.rttMs).toBeLessThan(200);
  });

  it('shows the loss of a lossy path: a quarter of the echoes dropped on the way back', async () => {
    const peer = await MediaTestPeer.connect(server.url);
    open.push(peer);
    const { channel } = await openProbe(peer, 0.25);
    const r = await measure(channel, 200);
    // 200 packets, each lost with probability 0.25: 0.13-0.37 holds with overwhelming odds.
    expect(r.loss).toBeGreaterThan(0.13);
    expect(r.loss).toBeLessThan(0.37);
  });

  it('does not echo oversized packets, and stops echoing at the per-probe cap', async () => {
    const peer = await MediaTestPeer.connect(server.url);
    open.push(peer);
    const { channel } = await openProbe(peer);
    let back = 0;
    channel.onMessage.subscribe(() => back++);
    channel.send('x'.repeat(PROBE_PACKET_MAX_BYTES + 1));
    channel.send('small');
    await until('the small packet echoed', () => back === 1, 3000);
    await new Promise((r) => setTimeout(r, 200));
    expect(back).toBe(1);
    // 400 echoes a probe at most (PROBE_DEFAULTS.maxEchoes): 500 sent, 400 answered. Paced as
    // the browser paces them (a burst overflows loopback buffers, and an echo is never resent).
    for (let i = 0; i < 499; i++) {
      channel.send(String(i));
      await new Promise((r) => setTimeout(r, 2));
    }
    await until('400 echoes', () => back >= 400, 5000);
    await new Promise((r) => setTimeout(r, 300));
    expect(back).toBe(400);
  });

  it('refuses an offer without a data channel, or no SDP at all', async () => {
    const peer = await MediaTestPeer.connect(server.url);
    open.push(peer);
    const pc = clientPeerConnection();
    open.push(pc);
    pc.addTransceiver('audio', { direction: 'sendonly' });
    await pc.setLocalDescription(await pc.createOffer());
    expect((await peer.req('probe', { kind: 'rtc', sdp: pc.localDescription!.sdp })).code).toBe('5');
    expect((await peer.req('probe', { kind: 'rtc' })).code).toBe('5');
    expect((await peer.req('probe', { kind: 'rtc', sdp: 'v=0'.padEnd(100_000, 'x') })).code).toBe('5');
    expect(probes().openCount).toBe(0);
  });

  it('keeps one probe per socket, and closes it with rtcClose or when the socket goes', async () => {
    const peer = await MediaTestPeer.connect(server.url);
    open.push(peer);
    await openProbe(peer);
    expect(probes().openCount).toBe(1);
    await openProbe(peer);
    expect(probes().openCount).toBe(1);
    expect(await peer.ok('probe', { kind: 'rtcClose' })).toEqual({ bytes: 0 });
    expect(probes().openCount).toBe(0);
    await openProbe(peer);
    expect(probes().openCount).toBe(1);
    peer.socket.disconnect();
    await until('the probe closed with its socket', () => probes().openCount === 0, 3000);
  });

  it('caps the probes open on a node at once', async () => {
    await until('earlier probes closed', () => probes().openCount === 0, 3000);
    const peers = await Promise.all(Array.from({ length: 17 }, () => MediaTestPeer.connect(server.url)));
    open.push(...peers);
    const offers = await Promise.all(
      peers.map(async () => {
        const pc = clientPeerConnection();
        open.push(pc);
        pc.createDataChannel('probe', { ordered: false, maxRetransmits: 0 });
        await pc.setLocalDescription(await pc.createOffer());
        return pc.localDescription!.sdp;
      }),
    );
    const codes: string[] = [];
    for (const [i, p] of peers.entries()) codes.push((await p.req('probe', { kind: 'rtc', sdp: offers[i] })).code);
    expect(codes.slice(0, 16)).toEqual(Array(16).fill('0'));
    expect(codes[16]).toBe('8');
    for (const p of peers) p.close();
    await until('all probes closed', () => probes().openCount === 0, 3000);
  });
});
