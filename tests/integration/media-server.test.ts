/**
 * The SFU with werift peers standing in for browsers: real ICE, DTLS and SRTP on loopback, RTP
 * forwarded through the node. Tokens come from the real join answers.
 */
import { afterEach, expect, it } from 'vitest';
import { TokenSigner } from '#core/platform/secrets.ts';
import { call, signIn } from '#tests/support/api.ts';
import { eachEngine } from '#tests/support/engines-matrix.ts';
import { MediaTestPeer } from '#tests/support/media-client.ts';
import { until } from '#tests/support/until.ts';
import { ask, connectRoom, type RoomSocket } from '#tests/support/room-client.ts';
import type { TestServer } from '#tests/support/server.ts';

const open: Array<MediaTestPeer | RoomSocket> = [];
afterEach(() => {
  for (const p of open.splice(0)) p.close();
});

async function room(server: TestServer, roomType: 1 | 2 | 4, students: number) {
  const teacher = await signIn(server);
  if (roomType === 1)
    await server.banshu.platform.services.billingRepo.grant(teacher.userId, { vip_room_time: new Date(Date.now() + 86400_000) });
  const created =
    roomType === 1
      ? await call(server.url, 'createAgoraRoom', { roomType: 1, consumption: 'on' }, { token: teacher.token })
      : await call(server.url, 'createRoom', { roomType }, { token: teacher.token });
  expect(created.code).toBe('0');
  const roomNumber = created.data.roomInfo.roomNumber;
  const people = [];
  for (const who of [teacher, ...(await Promise.all(Array.from({ length: students }, () => signIn(server))))]) {
    const joined = await call(server.url, 'userJoinAgoraRoom', { roomNumber }, { token: who.token });
    expect(joined.code).toBe('0');
    expect(joined.data.mediaUrl).toBe(server.url);
    const peer = await MediaTestPeer.connect(joined.data.mediaUrl!);
    open.push(peer);
    people.push({ ...who, peer, answer: joined.data, mediaToken: joined.data.mediaToken as string });
  }
  const [t, ...s] = people;
  return { roomNumber, teacher: t!, students: s };
}

eachEngine('media server', (server) => {
  it('forwards a camera and a microphone to every subscriber and relays keyframe requests', async () => {
    const { teacher, students } = await room(server(), 1, 2);
    const joinedT = await teacher.peer.ok('join', { token: teacher.mediaToken });
    expect(joinedT.rights).toEqual(['mic', 'camera', 'screen']);
    const joinedS = await students[0]!.peer.ok('join', { token: students[0]!.mediaToken });
    expect(joinedS.rights).toEqual(['mic', 'camera']);
    await students[1]!.peer.ok('join', { token: students[1]!.mediaToken });

    const cam = await teacher.peer.publish('camera');
    const mic = await teacher.peer.publish('mic');
    const added = await students[0]!.peer.waitNote('trackAdded', (n) => n.track.trackId === cam.trackId);
    expect(added.track).toMatchObject({ userId: teacher.userId, source: 'camera', kind: 'video', paused: false });

    const video = await Promise.all(students.map((s) => s.peer.subscribe(cam.trackId)));
    const audio = await Promise.all(students.map((s) => s.peer.subscribe(mic.trackId)));
    await until('forwarded packets', () => video.every((v) => v.packets > 30) && audio.every((a) => a.packets > 20), 30_000);
    // Each subscriber's picture starts at a keyframe: the frames before one are not forwarded.
    expect(video.map((v) => v.firstWasKeyframe)).toEqual([true, true]);
    // A subscriber that joins asks for a keyframe; the node passes it on to the publisher as PLI.
    await until('a PLI at the publisher', () => cam.plis > 0, 15_000);
    const plisBefore = cam.plis;
    await video[0]!.pc.getTransceivers()[0]!.receiver.sendRtcpPLI(video[0]!.pc.getTransceivers()[0]!.receiver.tracks[0]!.ssrc!);
    await until('the subscriber PLI at the publisher', () => cam.plis > plisBefore, 15_000);

    // The teacher speaks (-10 dBov in the level extension): everyone is told, for the highlight.
    const levels = await students[1]!.peer.waitNote('audioLevels', (n) => (n.levels[teacher.userId] ?? 0) > 0);
    expect(levels.levels[teacher.userId]).toBe(88);
    const node = server().banshu.media!.server;
    expect(node.load()).toMatchObject({ rooms: 1, peers: 3, publications: 2, subscriptions: 4 });
  });

  it('keeps sending keyframe requests to a publisher after its ICE restart offered its candidates as generation 0, as Chromium does', async () => {
    const { teacher, students } = await room(server(), 1, 1);
    await teacher.peer.ok('join', { token: teacher.mediaToken });
    await students[0]!.peer.ok('join', { token: students[0]!.mediaToken });
    const cam = await teacher.peer.publish('camera');
    await until('the publication connected', () => cam.pc.connectionState === 'connected', 15_000);
    // The browser's restart offer: new credentials, its candidates still saying `generation 0`.
    await cam.pc.setLocalDescription(await cam.pc.createOffer({ iceRestart: true }));
    const offer = cam.pc.localDescription!.sdp.replace(/^(a=candidate:.*) generation \d+/gm, '$1 generation 0');
    expect(offer).toMatch(/generation 0/);
    const { sdp } = await teacher.peer.ok('restartIce', { trackId: cam.trackId, sdp: offer });
    await cam.pc.setRemoteDescription({ type: 'answer', sdp });
    // A new subscriber asks for a keyframe, and the node must reach the publisher with it.
    const plisBefore = cam.plis;
    const video = await students[0]!.peer.subscribe(cam.trackId);
    await until('a PLI at the restarted publisher', () => cam.plis > plisBefore, 15_000);
    await until('forwarded packets after the restart', () => video.packets > 10, 15_000);
  });

  it('forwards to a subscriber again after the node restarts its ICE and the answer says generation 0, as Chromium does', async () => {
    const { teacher, students } = await room(server(), 1, 1);
    await teacher.peer.ok('join', { token: teacher.mediaToken });
    await students[0]!.peer.ok('join', { token: students[0]!.mediaToken });
    const cam = await teacher.peer.publish('camera');
    const video = await students[0]!.peer.subscribe(cam.trackId);
    await until('forwarded packets', () => video.packets > 10, 15_000);
    const { sdp: offer } = await students[0]!.peer.ok('restartIce', { subscriptionId: video.subscriptionId });
    await video.pc.setRemoteDescription({ type: 'offer', sdp: offer });
    await video.pc.setLocalDescription(await video.pc.createAnswer());
    const answer = video.pc.localDescription!.sdp.replace(/^(a=candidate:.*) generation \d+/gm, '$1 generation 0');
    await students[0]!.peer.ok('answer', { subscriptionId: video.subscriptionId, sdp: answer });
    // The node sends on the new pair: packets keep coming well after the old pair's consent ran out.
    await new Promise((r) => setTimeout(r, 3000));
    const before = video.packets;
    await until('packets after the restart', () => video.packets > before + 30, 15_000);
  });

  it('reads a media token’s expiry by the server’s clock, as the web side signed it', async () => {
    // The server's clock stands 200 s behind the wall: its tokens (120 s) would be expired by the wall clock.
    const clock = server().clock;
    clock.set(Date.now() - 200_000);
    try {
      const { teacher } = await room(server(), 2, 0);
      const joined = await teacher.peer.ok('join', { token: teacher.mediaToken });
      expect(joined.rights).toContain('mic');
    } finally {
      clock.set(Date.now());
    }
  });

  it('grades each person’s network 1-6 from RTCP: a receiver losing a fifth of its packets is weak', async () => {
    const { teacher, students } = await room(server(), 2, 2);
    await teacher.peer.ok('join', { token: teacher.mediaToken });
    for (const s of students) await s.peer.ok('join', { token: s.mediaToken });
    const mic = await teacher.peer.publish('mic');
    await students[0]!.peer.subscribe(mic.trackId);
    await students[1]!.peer.subscribe(mic.trackId, undefined, 0.2);
    const report = await teacher.peer.waitNote(
      'quality',
      (n) =>
        n.reports.some((r) => r.userId === students[1]!.userId && r.down >= 5) &&
        n.reports.some((r) => r.userId === students[0]!.userId && r.down > 0),
      10_000,
    );
    expect(report.reports.find((r) => r.userId === students[0]!.userId)!.down).toBeLessThanOrEqual(2);
  });

  it('a mute stops forwarding, an unmute resumes it, and everyone is told', async () => {
    const { teacher, students } = await room(server(), 2, 1);
    await teacher.peer.ok('join', { token: teacher.mediaToken });
    await students[0]!.peer.ok('join', { token: students[0]!.mediaToken });
    const mic = await teacher.peer.publish('mic');
    const got = await students[0]!.peer.subscribe(mic.trackId);
    await until('audio', () => got.packets > 10, 5000);
    await teacher.peer.ok('pause', { trackId: mic.trackId, paused: true });
    await students[0]!.peer.waitNote('trackPaused', (n) => n.paused);
    // Packets already on their way may still land: let the publisher send 8 more first (about
    // 160 ms of audio), then 20 more (about 400 ms) of which none may be forwarded.
    const drained = mic.sent + 8;
    await until('publisher sending', () => mic.sent >= drained, 5000);
    const frozen = got.packets;
    const muted = mic.sent + 20;
    await until('publisher sending', () => mic.sent >= muted, 5000);
    expect(got.packets).toBe(frozen);
    await teacher.peer.ok('pause', { trackId: mic.trackId, paused: false });
    await until('audio after unmute', () => got.packets > frozen + 5, 5000);
    // Only the owner mutes a track.
    expect((await students[0]!.peer.req('pause', { trackId: mic.trackId, paused: true })).code).toBe('33003');
  });

  it('removes a peer and its tracks as soon as its signaling closes', async () => {
    const { teacher, students } = await room(server(), 2, 1);
    await teacher.peer.ok('join', { token: teacher.mediaToken });
    await students[0]!.peer.ok('join', { token: students[0]!.mediaToken });
    const mic = await teacher.peer.publish('mic');
    await students[0]!.peer.subscribe(mic.trackId);
    const started = Date.now();
    teacher.peer.close();
    await students[0]!.peer.waitNote('trackRemoved', (n) => n.trackId === mic.trackId, 2000);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(server().banshu.media!.server.load()).toMatchObject({ peers: 1, publications: 0, subscriptions: 0 });
  });

  it('refuses forged, expired and foreign tokens, and publishes the token does not allow', async () => {
    const { teacher, students, roomNumber } = await room(server(), 2, 1);
    const p = students[0]!.peer;
    expect((await p.req('join', { token: 'nope' })).code).toBe('33001');
    expect((await p.req('join', { token: `${teacher.mediaToken.slice(0, -4)}AAAA` })).code).toBe('33001');
    // A token signed by someone else, and a room token (another scope) signed with our key.
    const stranger = new TokenSigner('x'.repeat(40)).sign(
      { scope: 'media', room: roomNumber, uid: '1', role: 'creator', rt: 2, pub: ['mic'] },
      60,
    );
    expect((await p.req('join', { token: stranger })).code).toBe('33001');
    expect((await p.req('join', { token: teacher.answer.imToken })).code).toBe('33001');
    const signer = new TokenSigner(server().banshu.platform.secret);
    const expired = signer.sign(
      { scope: 'media', room: roomNumber, uid: students[0]!.userId, role: 'member', rt: 2, pub: ['mic'] },
      60,
      Date.now() - 120_000,
    );
    expect((await p.req('join', { token: expired })).code).toBe('33001');
    // Wrong protocol version or an unknown request.
    expect((await p.rawReq('join', { token: students[0]!.mediaToken }, 99)).code).toBe('5');
    expect((await p.rawReq('dance', {})).code).toBe('5');
    expect((await p.req('publish', { source: 'mic', sdp: 'v=0' })).code).toBe('5'); // not joined yet

    await p.ok('join', { token: students[0]!.mediaToken });
    // An audio class: a student may send the microphone, never a camera.
    expect((await p.req('publish', { source: 'camera', sdp: 'v=0\r\nwhatever sdp here' })).code).toBe('33002');
    expect((await p.req('publish', { source: 'screen', sdp: 'v=0\r\nwhatever sdp here' })).code).toBe('33002');
    expect((await p.rawReq('publish', { source: 'laser', sdp: 'v=0' })).code).toBe('5');
    // An offer that does not match the source is refused without a publication.
    expect((await p.req('publish', { source: 'mic', sdp: 'v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n' })).code).toBe('33004');
    expect(server().banshu.media!.server.load().publications).toBe(0);
  });

  it('a subscription reaches only tracks of the peer’s own room', async () => {
    const a = await room(server(), 2, 0);
    const b = await room(server(), 2, 0);
    await a.teacher.peer.ok('join', { token: a.teacher.mediaToken });
    await b.teacher.peer.ok('join', { token: b.teacher.mediaToken });
    const mic = await a.teacher.peer.publish('mic');
    const refused = await b.teacher.peer.req('subscribe', { trackId: mic.trackId });
    expect(refused.code).toBe('33003');
    expect((await b.teacher.peer.req('subscribe', { trackId: 'not-a-track' })).code).toBe('33003');
    // Not a track id at all: the contract refuses it before any lookup (bad parameters).
    expect((await b.teacher.peer.rawReq('subscribe', { trackId: { $ne: 1 } })).code).toBe('5');
  });

  it('large class: a student sends only while on stage', async () => {
    const { teacher, students, roomNumber } = await room(server(), 4, 1);
    const student = students[0]!;
    const joined = await student.peer.ok('join', { token: student.mediaToken });
    expect(joined.rights).toEqual([]);
    expect((await student.peer.req('publish', { source: 'mic', sdp: 'v=0\r\nm=audio 9 x 111\r\n' })).code).toBe('33002');
    const tj = await teacher.peer.ok('join', { token: teacher.mediaToken });
    expect(tj.rights).toEqual(['mic', 'camera', 'screen']);

    // Invited and agreed: a fresh token grants camera and microphone (ADR 112: on stage, a large class's student sends both).
    const tSock = await connectRoom(server().url, teacher.answer.imToken);
    const sSock = await connectRoom(server().url, student.answer.imToken);
    open.push(tSock, sSock);
    expect((await ask(tSock, 'joinRoom')).code).toBe('0');
    expect((await ask(sSock, 'joinRoom')).code).toBe('0');
    expect((await ask(tSock, 'inviteStage', { userId: student.userId })).code).toBe('0');
    const early = await call(server().url, 'createAgoraToken', { roomNumber }, { token: student.token });
    expect((await student.peer.ok('refresh', { token: early.data.mediaToken })).rights).toEqual([]);
    expect((await ask(sSock, 'answerStage', { agree: true })).code).toBe('0');
    const fresh = await call(server().url, 'createAgoraToken', { roomNumber }, { token: student.token });
    expect(fresh.code).toBe('0');
    expect((await student.peer.ok('refresh', { token: fresh.data.mediaToken })).rights).toEqual(['mic', 'camera']);
    expect((await student.peer.req('publish', { source: 'screen', sdp: 'v=0\r\nm=video 9 x 96\r\n' })).code).toBe('33002');
    const mic = await student.peer.publish('mic');
    const heard = await teacher.peer.subscribe(mic.trackId);
    await until('the student heard', () => heard.packets > 10, 5000);

    // The teacher takes them down: the node takes the rights back at once.
    expect((await ask(tSock, 'stageDown', { userId: student.userId })).code).toBe('0');
    await student.peer.waitNote('rightsChanged', (n) => n.rights.length === 0);
    await teacher.peer.waitNote('trackRemoved', (n) => n.trackId === mic.trackId);
    // Another person's token cannot be swapped in, nor one for a student who is not in the room.
    expect((await student.peer.req('refresh', { token: teacher.mediaToken })).code).toBe('33001');
    const stranger = await signIn(server());
    expect((await call(server().url, 'createAgoraToken', { roomNumber }, { token: stranger.token })).code).toBe('31004');
    expect((await call(server().url, 'createAgoraToken', { roomNumber, userType: '2' }, { token: student.token })).code).toBe('31004');
  });

  it('observers never publish; the kicked are removed from the media', async () => {
    const { teacher, students, roomNumber } = await room(server(), 1, 1);
    const link = await call(server().url, 'createObserverLink', { roomNumber }, { token: teacher.token });
    const ot = new URL(link.data.url).searchParams.get('ot')!;
    const observer = await call(server().url, 'userJoinAgoraRoom', { roomNumber, userType: '3', ot });
    expect(observer.code).toBe('0');
    const op = await MediaTestPeer.connect(server().url);
    open.push(op);
    expect((await op.ok('join', { token: observer.data.mediaToken! })).rights).toEqual([]);
    expect((await op.req('publish', { source: 'mic', sdp: 'v=0\r\nm=audio 9 x 111\r\n' })).code).toBe('33002');

    const student = students[0]!;
    await student.peer.ok('join', { token: student.mediaToken });
    await student.peer.publish('camera');
    const tSock = await connectRoom(server().url, teacher.answer.imToken);
    open.push(tSock);
    expect((await ask(tSock, 'joinRoom')).code).toBe('0');
    const closed = student.peer.waitNote('closed', (n) => n.reason === 'kicked');
    expect((await ask(tSock, 'kickout', { userId: student.userId })).code).toBe('0');
    await closed;
    await until('the kicked camera gone', () => server().banshu.media!.server.load().publications === 0, 2000);
  });
});

eachEngine('media network probe', (server) => {
  it('answers pings, downloads and uploads before a join, within limits', async () => {
    const p = await MediaTestPeer.connect(server().url);
    open.push(p);
    expect(await p.ok('probe', { kind: 'ping' })).toEqual({ bytes: 0 });
    const down = await p.ok('probe', { kind: 'download', bytes: 65536 });
    expect(down.data).toHaveLength(65536);
    expect(await p.ok('probe', { kind: 'upload', data: 'y'.repeat(1000) })).toEqual({ bytes: 1000 });
    expect((await p.req('probe', { kind: 'download', bytes: 10 * 1024 * 1024 })).code).toBe('5');
    expect((await p.req('probe', { kind: 'download', bytes: -1 })).code).toBe('5');
    expect((await p.rawReq('probe', { kind: 'shout' })).code).toBe('5');
    // One connection may not turn the node into a download server.
    let refused = '';
    for (let i = 0; i < 20 && !refused; i++) {
      const a = await p.req('probe', { kind: 'download', bytes: 256 * 1024 });
      if (a.code !== '0') refused = a.code;
    }
    expect(refused).toBe('8');
  });
});
