/**
 * Chromium takes the ffmpeg-made fake devices (tests/support/av-fixtures.ts) as its camera and
 * microphone: the picture arrives at 640x360 with a readable time code that counts up, the flash
 * frames are the fixture's event frames, and a click is heard with each flash. No Banshu needed:
 * a blank page on a loopback server (getUserMedia wants a secure context; 127.0.0.1 is one).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { decodeTimecode } from '#tests/support/av-analysis.ts';
import { avFixtures, type AvFixture } from '#tests/support/av-fixtures.ts';
import { CHROMIUM_ARGS } from './helpers.ts';

let av: AvFixture;
let browser: Browser;
let server: http.Server;
let url = '';

beforeAll(async () => {
  av = await avFixtures();
  server = http.createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end('<!doctype html><title>devices</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/`;
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: [...CHROMIUM_ARGS, ...av.chromiumArgs] });
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

interface Sample {
  t: number;
  width: number;
  height: number;
  /** The camera picture scaled to 64x36, grey (small, so thousands of samples cross the wire fast). */
  gray: number[];
  /** Mean grey below the time code row. */
  mean: number;
  /** Loudest sample of the microphone in the last ~170 ms (a click stays in view between two samples). */
  peak: number;
}

it('plays the fixture files as camera and microphone, time code, flashes and clicks intact', async () => {
  const page = await browser.newPage();
  await page.goto(url);
  // 7 s: at least two events wherever in the cycle the capture starts (the longest gap is 4 s).
  const samples = await page.evaluate(async (): Promise<Sample[]> => {
    const stream = await navigator.mediaDevices.getUserMedia({ video: { width: 640, height: 360 }, audio: true });
    const video = document.createElement('video');
    video.srcObject = stream;
    video.muted = true;
    await video.play();
    const canvas = document.createElement('canvas');
    canvas.width = 64;
    canvas.height = 36;
    const g = canvas.getContext('2d', { willReadFrequently: true })!;
    const audio = new AudioContext();
    const analyser = audio.createAnalyser();
    analyser.fftSize = 8192;
    audio.createMediaStreamSource(stream).connect(analyser);
    const wave = new Float32Array(analyser.fftSize);
    const out: Sample[] = [];
    const t0 = performance.now();
    while (performance.now() - t0 < 7200) {
      g.drawImage(video, 0, 0, 64, 36);
      const rgba = g.getImageData(0, 0, 64, 36).data;
      const gray = new Array<number>(64 * 36);
      let sum = 0;
      for (let i = 0; i < gray.length; i++) {
        gray[i] = Math.round(0.299 * rgba[i * 4]! + 0.587 * rgba[i * 4 + 1]! + 0.114 * rgba[i * 4 + 2]!);
        if (i >= 64 * 8) sum += gray[i]!;
      }
      analyser.getFloatTimeDomainData(wave);
      let peak = 0;
      for (const x of wave) peak = Math.max(peak, Math.abs(x));
      out.push({ t: performance.now() - t0, width: video.videoWidth, height: video.videoHeight, gray, mean: sum / (64 * 28), peak });
      await new Promise((r) => setTimeout(r, 30));
    }
    for (const track of stream.getTracks()) track.stop();
    return out;
  });
  await page.close();

  expect(new Set(samples.map((s) => `${String(s.width)}x${String(s.height)}`))).toEqual(new Set(['640x360']));
  const codes = samples.map((s) => ({ ...s, code: decodeTimecode(Buffer.from(s.gray), 64, 36) }));
  // The time code is readable on (nearly) every frame and counts up at 15 frames a second.
  expect(codes.filter((c) => c.code !== null).length).toBeGreaterThanOrEqual(samples.length * 0.95);
  const read = codes.filter((c) => c.code !== null);
  const frames = av.seconds * av.fps;
  const advanced = ((read.at(-1)!.code! - read[0]!.code! + frames) % frames) / av.fps;
  expect(advanced).toBeGreaterThan(((read.at(-1)!.t - read[0]!.t) / 1000) * 0.8);
  expect(advanced).toBeLessThan(((read.at(-1)!.t - read[0]!.t) / 1000) * 1.2 + 0.2);

  // Flashes show exactly on the fixture's event frames, and a click comes with each.
  const eventFrames = new Set(av.events.map((e) => e * av.fps));
  const flashes = codes.filter((c) => c.mean > 200);
  expect(flashes.length).toBeGreaterThanOrEqual(2);
  for (const f of flashes) expect(eventFrames.has(f.code!), `flash on frame ${String(f.code)}`).toBe(true);
  for (const f of flashes) {
    const heard = codes.filter((c) => c.t >= f.t - 150 && c.t <= f.t + 300).some((c) => c.peak > 0.2);
    expect(heard, `a click near the flash at ${f.t.toFixed(0)} ms`).toBe(true);
  }
  // Between events the microphone carries only its quiet tone.
  const quiet = codes.filter((c) => flashes.every((f) => Math.abs(c.t - f.t) > 500));
  expect(Math.max(...quiet.map((c) => c.peak))).toBeLessThan(0.2);
});
