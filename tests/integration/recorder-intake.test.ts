/**
 * The recorder's intake when a subscription's connection is lost (issue 13): on a starved machine
 * ICE or DTLS between the SFU and the recorder gives up ('failed'), and a recording then showed a
 * black tile and lost a voice for the rest of the class. The intake must ask for the track again.
 * A real SFU, a real publisher (ffmpeg VP8 + Opus over RTP through werift) and the real intake with
 * its ffmpeg decoders; the recorder's side of each leg is closed under it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, signIn } from '#tests/support/api.ts';
import { capturingLogger } from '#tests/support/log-capture.ts';
import { MediaTestPeer } from '#tests/support/media-client.ts';
import { until } from '#tests/support/until.ts';
import { publishRtp, type RtpPublication } from '#tests/support/rtp-file-publisher.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';
import { Intake } from '../../workers/record/intake.ts';

let server: TestServer;
let workDir: string;
let peer: MediaTestPeer | undefined;
let pub: RtpPublication | undefined;
let intake: Intake | undefined;

beforeAll(async () => {
  server = await startTestServer();
  workDir = await mkdtemp(path.join(tmpdir(), 'banshu-intake-'));
});
afterAll(async () => {
  intake?.close();
  pub?.stop();
  peer?.close();
  await server.close();
  await rm(workDir, { recursive: true, force: true });
});

it('subscribes again when a leg to the SFU is lost, and the picture and the sound come back', async () => {
  const teacher = await signIn(server);
  await server.banshu.platform.services.billingRepo.grant(teacher.userId, { vip_room_time: new Date(Date.now() + 86400_000) });
  const created = await call(server.url, 'createAgoraRoom', { roomType: 1, consumption: 'on' }, { token: teacher.token });
  const roomNumber = created.data.roomInfo.roomNumber;
  const joined = await call(server.url, 'userJoinAgoraRoom', { roomNumber }, { token: teacher.token });
  peer = await MediaTestPeer.connect(joined.data.mediaUrl!);
  await peer.ok('join', { token: joined.data.mediaToken! });
  // A keyframe every second: ffmpeg cannot answer the recorder's keyframe requests.
  pub = await publishRtp(peer, { video: 'testsrc2=s=320x240:r=15', audio: 'sine=f=300:r=48000,volume=0.05', gop: 15 });
  await until('the publisher sending', () => pub!.sent.video > 10 && pub!.sent.audio > 10, 20_000);

  const { logger, lines } = capturingLogger('warn');
  const access = await server.banshu.platform.services.media!.forRecorder(roomNumber);
  intake = await Intake.open({ ...access, logger });
  const video = [...intake.videos.values()][0]!;
  const audio = [...intake.audios.values()][0]!;
  await until('first pictures and sound', () => video.frames > 5 && audio.received > 4800, 30_000);
  expect(video.subscriptions).toBe(1);
  expect(server.banshu.media!.server.load().subscriptions).toBe(2);

  // The recorder's side of both legs is lost.
  const before = { frames: video.frames, samples: audio.received };
  await Promise.all([video.pc!.close(), audio.pc!.close()]);

  await until('both legs made again', () => video.connected && audio.connected, 30_000);
  await until(
    'pictures and a second of sound after the new legs',
    () => video.frames > before.frames + 15 && audio.received > before.samples + 48_000,
    30_000,
  );
  expect(video.subscriptions).toBe(2);
  expect(audio.subscriptions).toBe(2);
  expect(lines.filter((l) => l.msg === 'recorder subscribes again')).toHaveLength(2);
  // The lost legs were given back to the SFU: two subscriptions, not four.
  await until('the old legs unsubscribed', () => server.banshu.media!.server.load().subscriptions === 2, 5000);

  intake.close();
  await until('the recorder gone', () => server.banshu.media!.server.load().subscriptions === 0, 5000);
}, 120_000);
