/**
 * The browser's half of the media signaling (ADR 108): the node's answers and notes are parsed by
 * the contract's schemas; one that breaks them is logged and dropped, and the session goes on.
 */
import { expect, it, vi } from 'vitest';
import type { ChannelProblem } from '#core/channel/open.ts';
import type { MediaNote } from '#core/contracts/media-signaling.ts';
import { FakeSocket } from '#tests/support/fake-socket.ts';
import { MediaError, MediaSession } from './media-session.ts';

const joined = { peerId: 'p1', room: '123456', userId: '2', rights: ['mic'], tracks: [], iceServers: [] };

function setup() {
  const socket = new FakeSocket();
  const problems: ChannelProblem[] = [];
  const notes: MediaNote[] = [];
  const disconnects = vi.fn();
  const session = new MediaSession(
    'http://node.test/',
    { onRemote: () => undefined, onNote: (n) => notes.push(n), onDisconnect: disconnects },
    { socket: () => socket as never, log: (p) => problems.push(p) },
  );
  const join = async (answer: unknown) => {
    const joining = session.join('token', 'en');
    socket.up();
    await vi.waitFor(() => socket.last('req'));
    expect(socket.last('req').payload).toEqual({ v: 1, type: 'join', token: 'token' });
    socket.last('req').answer(null, answer);
    return joining;
  };
  return { socket, session, problems, notes, join, disconnects };
}

it('drops a note that breaks its schema, logs it, and goes on with the good ones', async () => {
  const { socket, session, problems, notes, join, disconnects } = setup();
  await expect(join({ code: '0', msg: '', data: joined })).resolves.toEqual([]);
  socket.fire('note', { type: 'trackAdded', track: { trackId: 7 } });
  socket.fire('note', { type: 'rightsChanged', rights: ['drums'] });
  socket.fire('note', { type: 'teleport' });
  expect(problems.map((p) => [p.channel, p.kind, p.name])).toEqual([
    ['media', 'event', 'note'],
    ['media', 'event', 'note'],
    ['media', 'event', 'note'],
  ]);
  expect(notes).toEqual([]);
  expect(session.rights).toEqual(['mic']);
  socket.fire('note', { type: 'rightsChanged', rights: ['mic', 'camera'] });
  expect(notes).toEqual([{ type: 'rightsChanged', rights: ['mic', 'camera'] }]);
  expect(session.rights).toEqual(['mic', 'camera']);
  expect(session.connected).toBe(true);
  expect(disconnects).not.toHaveBeenCalled();
});

it('refuses an answer that breaks its schema (logged), and the next request is answered as ever', async () => {
  const { socket, session, problems, join } = setup();
  const refused = join({ code: '0', msg: '', data: { ...joined, rights: 'all' } });
  await expect(refused).rejects.toBeInstanceOf(MediaError);
  await expect(refused).rejects.toMatchObject({ code: '9' });
  expect(problems).toMatchObject([{ channel: 'media', kind: 'answer', name: 'join' }]);
  expect(session.connected).toBe(true);
  const refreshed = session.refresh('token2');
  await vi.waitFor(() => expect(socket.last('req').payload).toEqual({ v: 1, type: 'refresh', token: 'token2' }));
  socket.last('req').answer(null, { code: '0', msg: '', data: { rights: ['mic', 'camera'] } });
  await expect(refreshed).resolves.toEqual(['mic', 'camera']);
});
