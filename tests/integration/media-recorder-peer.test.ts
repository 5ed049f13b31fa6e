/**
 * The cloud recorder on the SFU (issue 13): a hidden peer with a 'recorder' media token. It
 * subscribes to every track, publishes nothing, and no note a person gets ever mentions it.
 */
import { afterEach, expect, it } from 'vitest';
import { RECORDER_USER_ID } from '#core/contracts/media-signaling.ts';
import { call, signIn } from '#tests/support/api.ts';
import { eachEngine } from '#tests/support/engines-matrix.ts';
import { MediaTestPeer, sendSynthetic } from '#tests/support/media-client.ts';
import { until } from '#tests/support/until.ts';
import { ask, connectRoom, type RoomSocket } from '#tests/support/room-client.ts';

const open: Array<MediaTestPeer | RoomSocket> = [];
afterEach(() => {
  for (const p of open.splice(0)) p.close();
});

eachEngine('media recorder peer', (server) => {
  it('subscribes to every track, cannot publish and is never reported to the people in the room', async () => {
    const teacher = await signIn(server());
    await server().banshu.platform.services.billingRepo.grant(teacher.userId, { vip_room_time: new Date(Date.now() + 86400_000) });
    const created = await call(server().url, 'createAgoraRoom', { roomType: 1, consumption: 'on' }, { token: teacher.token });
    const roomNumber = created.data.roomInfo.roomNumber;
    const student = await signIn(server());
    const people = [];
    for (const who of [teacher, student]) {
      const joined = await call(server().url, 'userJoinAgoraRoom', { roomNumber }, { token: who.token });
      const peer = await MediaTestPeer.connect(joined.data.mediaUrl!);
      open.push(peer);
      await peer.ok('join', { token: joined.data.mediaToken! });
      people.push({ ...who, peer, imToken: joined.data.imToken });
    }
    const [t, s] = people as [(typeof people)[0], (typeof people)[0]];

    const media = server().banshu.platform.services.media!;
    const access = await media.forRecorder(roomNumber);
    expect(access.mediaUrl).toBe(server().url);
    const recorder = await MediaTestPeer.connect(access.mediaUrl);
    open.push(recorder);
    const joined = await recorder.ok('join', { token: access.mediaToken });
    expect(joined).toMatchObject({ userId: RECORDER_USER_ID, rights: [] });
    // Whatever it asks, it publishes nothing.
    expect((await recorder.req('publish', { source: 'mic', sdp: 'v=0\r\nm=audio 9 x 111\r\n' })).code).toBe('33002');
    expect((await recorder.req('refresh', { token: access.mediaToken })).data).toEqual({ rights: [] });
    // A person's token cannot turn the recorder's connection into theirs.
    const tAccess = await call(server().url, 'createAgoraToken', { roomNumber }, { token: teacher.token });
    expect((await recorder.req('refresh', { token: tAccess.data.mediaToken })).code).toBe('33001');

    const cam = await t.peer.publish('camera');
    const mic = await t.peer.publish('mic');
    await recorder.waitNote('trackAdded', (n) => n.track.trackId === mic.trackId);
    // The recorder loses half of what it gets: were it graded, someone would be told of a very bad downlink.
    const video = await recorder.subscribe(cam.trackId, 'm', 0.5);
    const audio = await recorder.subscribe(mic.trackId, undefined, 0.5);
    const heard = await s.peer.subscribe(mic.trackId);
    await until('forwarded packets', () => video.packets > 20 && audio.packets > 20 && heard.packets > 20, 20_000);
    // Quality reports come every 2 s; wait for three rounds with the recorder subscribed.
    const reportsBefore = t.peer.notes.filter((n) => n.type === 'quality').length;
    await until('quality reports', () => t.peer.notes.filter((n) => n.type === 'quality').length >= reportsBefore + 3, 15_000);
    expect(server().banshu.media!.server.load()).toMatchObject({ peers: 3, subscriptions: 3 });

    for (const p of [t.peer, s.peer]) {
      const said = JSON.stringify(p.notes);
      expect(said).not.toContain(RECORDER_USER_ID);
      for (const n of p.notes) if (n.type === 'quality') expect(n.reports.every((r) => r.down < 5)).toBe(true);
    }
    const quality = t.peer.notes.filter((n) => n.type === 'quality');
    expect(quality.length).toBeGreaterThan(0);

    // The room's membership never sees it either (it never went through the web side).
    const tSock = await connectRoom(server().url, t.imToken);
    open.push(tSock);
    const room = await ask(tSock, 'joinRoom');
    expect(room.code).toBe('0');
    expect(JSON.stringify(room.data)).not.toContain(RECORDER_USER_ID);

    // No recorder for a class that ended, nor for a room that does not exist.
    expect((await ask(tSock, 'endRoom')).code).toBe('0');
    await expect(media.forRecorder(roomNumber)).rejects.toMatchObject({ code: '31009' });
    await expect(media.forRecorder('99999999')).rejects.toMatchObject({ code: '31002' });
  });
});

eachEngine('media forwarding after a quiet microphone', (server) => {
  it('a microphone that sent nothing for a while when the subscription was made is forwarded once it sends again', async () => {
    const teacher = await signIn(server());
    const created = await call(server().url, 'createRoom', { roomType: 2 }, { token: teacher.token });
    const roomNumber = created.data.roomInfo.roomNumber;
    const joined = await call(server().url, 'userJoinAgoraRoom', { roomNumber }, { token: teacher.token });
    const t = await MediaTestPeer.connect(joined.data.mediaUrl!);
    open.push(t);
    await t.ok('join', { token: joined.data.mediaToken! });
    const mic = await t.publish('mic');
    await until('the microphone sending', () => mic.sent > 5, 5000);
    mic.stop();
    // Quiet long enough that the node no longer counts its stream as arriving.
    const pub = server().banshu.media!.server.rooms.get(roomNumber)!.publications.get(mic.trackId)!;
    await until('the stream counted as gone', () => pub.layers.length === 0, 10_000);

    const access = await server().banshu.platform.services.media!.forRecorder(roomNumber);
    const recorder = await MediaTestPeer.connect(access.mediaUrl);
    open.push(recorder);
    await recorder.ok('join', { token: access.mediaToken });
    const got = await recorder.subscribe(mic.trackId);
    await until('the subscription connected', () => got.pc.connectionState === 'connected', 10_000);
    const track = mic.pc.getTransceivers()[0]!.sender.track!;
    const again = sendSynthetic(track, 'audio');
    try {
      await until('audio forwarded after the pause', () => got.packets > 10, 10_000);
    } finally {
      clearInterval(again);
    }
  });
});
