import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { emptyClassTools } from '#core/contracts/class-tools.ts';
import type { JoinAnswer, RoomInfo } from '#core/contracts/api.ts';
import type { ChannelProblem } from '#core/channel/open.ts';
import type { RoomSnapshot } from '#core/contracts/room-events.ts';
import { QUICK_RETRY_MS, RECONNECT_ATTEMPTS, RECONNECT_WAIT_S, RoomChannelClient, type RoomSocket } from './room-channel-client.ts';
import { toast } from '#app/lib/toast.ts';
import { recordEn } from '#app/i18n/record.en.ts';
import { FakeSocket as ChannelFakeSocket } from '#tests/support/fake-socket.ts';
import { NO_GROUPS } from './groups/groups-pure.ts';

/** The shared test socket of the channel clients (tests/support/fake-socket.ts); the test plays the server. */
class FakeSocket extends ChannelFakeSocket {
  /** The network drops the socket. */
  drop(): void {
    this.connected = false;
    this.fire('disconnect', 'transport close');
  }
}

const roomInfo: RoomInfo = {
  roomNumber: '123456',
  roomType: 1,
  createUser: '1',
  createUserIdNumber: '1',
  createUserName: 'T',
  maxMember: 2,
  maxOrdinary: '1',
  isVIP: '0',
  consumption: 'off',
  showState: '',
  wbPower: '0',
  roomExtend: '{}',
  pptId: '',
  pptCurrentPage: 0,
  participants: 1,
  state: 'open',
  createTime: 1,
  endsAt: 0,
  isRecordStatus: '0',
  recordState: '0',
  liveState: '0',
  mode: 'discuss',
  trialEndsAt: 0,
};
const snapshot: RoomSnapshot = {
  roomInfo,
  you: { userId: '2', name: 'Alice', role: 'member' },
  members: [{ userId: '2', name: 'Alice', role: 'member', networkQuality: 0, online: true }],
  messages: [],
  stage: { seats: 6, onStage: [], invited: [], hands: [], carousel: { seconds: 0, nextAt: 0 } },
  teacherOnline: true,
  serverTime: Date.now(),
  tools: emptyClassTools(),
  toolsPrivate: null,
  pollPrivate: null,
  myAnswers: null,
  groups: { ...NO_GROUPS, teacher: '1' },
};
const answer = (role: JoinAnswer['role']) => ({ role, imToken: 'tok', userIdForNumber: '2', roomInfo }) as JoinAnswer;

function setup(role: JoinAnswer['role'] = 'member') {
  const socket = new FakeSocket();
  const navigate = vi.fn<(to: string) => void>();
  const api = vi.fn();
  const problems: ChannelProblem[] = [];
  const client = new RoomChannelClient({
    log: (p) => problems.push(p),
    answer: answer(role),
    roomNumber: '123456',
    navigate,
    t: (key) => key,
    socket: () => socket as unknown as RoomSocket,
    api: api as never,
    listenToWindow: false,
  });
  let notified = 0;
  client.subscribe(() => (notified += 1));
  client.start();
  const join = () => {
    socket.up();
    socket.last('joinRoom').answer(null, { code: '0', msg: '', data: snapshot });
  };
  return { socket, client, navigate, api, join, problems, notified: () => notified };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('RoomChannelClient', () => {
  it('connects, joins with the protocol version and goes live on the snapshot', () => {
    const { socket, client, join, notified } = setup();
    expect(socket.connects).toBe(1);
    expect(client.getSnapshot().status).toBe('connecting');
    const before = client.getSnapshot();
    join();
    expect(socket.last('joinRoom').payload).toEqual({ version: expect.any(Number) });
    const after = client.getSnapshot();
    expect(after).not.toBe(before);
    expect(after.status).toBe('live');
    expect(after.state?.you.userId).toBe('2');
    expect(notified()).toBeGreaterThan(0);
  });

  it('applies the events of the room to the state', () => {
    const { socket, client, join } = setup();
    join();
    socket.fire('customRoomEvent', { showState: 'wb', by: '1' });
    socket.fire('messageevent', { id: 'm1', uid: '1', name: 'T', text: 'hi', at: 1 });
    socket.fire('members', { members: [], teacherOnline: false, participants: 0 });
    const state = client.getSnapshot().state!;
    expect(state.roomInfo.showState).toBe('wb');
    expect(state.messages.map((m) => m.id)).toEqual(['m1']);
    expect(state.teacherOnline).toBe(false);
  });

  it('drops a server event or answer that breaks its schema, logs it, and goes on with the good ones (ADR 108)', async () => {
    const { socket, client, join, problems } = setup();
    join();
    // A patch whose showState is not text, a chat line without its text, a kick-out of nobody.
    socket.fire('customRoomEvent', { showState: 7, by: '1' });
    socket.fire('messageevent', { id: 'm0', uid: '1', name: 'T', at: 1 });
    socket.fire('kickout', {});
    expect(problems.map((p) => [p.channel, p.kind, p.name])).toEqual([
      ['room', 'event', 'customRoomEvent'],
      ['room', 'event', 'messageevent'],
      ['room', 'event', 'kickout'],
    ]);
    expect(client.getSnapshot().status).toBe('live');
    expect(client.getSnapshot().state!.roomInfo.showState).toBe('');
    expect(client.getSnapshot().state!.messages).toEqual([]);
    // An answer that breaks its schema: refused for the caller, logged, nothing applied.
    const sent = client.actions.sendChat('hello');
    socket.last('chat').answer(null, { code: '0', msg: '', data: { id: 'c1', text: 'hello' } });
    await expect(sent).resolves.toBe(false);
    expect(problems.at(-1)).toMatchObject({ channel: 'room', kind: 'answer', name: 'chat' });
    expect(client.getSnapshot().state!.messages).toEqual([]);
    // The good ones after it are handled as ever.
    socket.fire('customRoomEvent', { showState: 'wb', by: '1' });
    socket.fire('messageevent', { id: 'm1', uid: '1', name: 'T', text: 'hi', at: 1 });
    expect(client.getSnapshot().state!.roomInfo.showState).toBe('wb');
    expect(client.getSnapshot().state!.messages.map((m) => m.id)).toEqual(['m1']);
    expect(client.getSnapshot().status).toBe('live');
  });

  it('applies a view change only after the server took it', async () => {
    const { socket, client, join } = setup();
    join();
    const done = client.actions.setView('screen');
    expect(client.getSnapshot().state!.roomInfo.showState).toBe('');
    socket.last('customRoomEvent').answer(null, { code: '0', msg: '', data: { showState: 'screen' } });
    await expect(done).resolves.toBe(true);
    expect(client.getSnapshot().state!.roomInfo.showState).toBe('screen');

    const refused = client.actions.setView('wb');
    socket.last('customRoomEvent').answer(null, { code: '12', msg: 'no' });
    await expect(refused).resolves.toBe(false);
    expect(client.getSnapshot().state!.roomInfo.showState).toBe('screen');
  });

  it('answers a request on a closed socket with the network code, without sending', async () => {
    const { socket, client } = setup();
    const sent = socket.sent.length;
    expect(await client.actions.kick('3')).toBe(false);
    expect(socket.sent.length).toBe(sent);
  });

  it('checks chat text before sending it', async () => {
    const { socket, client, join } = setup();
    join();
    expect(await client.actions.sendChat('   ')).toBe(false);
    expect(socket.sent.some((s) => s.event === 'chat')).toBe(false);
    const sending = client.actions.sendChat('  hello ');
    expect(socket.last('chat').payload).toEqual({ text: 'hello' });
    socket.last('chat').answer(null, { code: '0', msg: '', data: { id: 'c1', uid: '2', name: 'Alice', text: 'hello', at: 2 } });
    expect(await sending).toBe(true);
    expect(client.getSnapshot().state!.messages.map((m) => m.text)).toEqual(['hello']);
  });

  it('counts down after a drop, attempts again, and a new snapshot makes it live', () => {
    const { socket, client, join } = setup();
    join();
    socket.drop();
    expect(client.getSnapshot().status).toBe('offline');
    expect(client.getSnapshot().reconnect).toEqual({ countdown: RECONNECT_WAIT_S, attempts: 0, reconnecting: false });
    // A closed connection gets one quiet attempt within 2 s (another web node may take it): its
    // failure is not counted and the countdown shown goes on.
    vi.advanceTimersByTime(2 * QUICK_RETRY_MS);
    expect(socket.connects).toBe(2);
    socket.fire('connect_error', new Error('xhr poll error'));
    vi.advanceTimersByTime(3000 - 2 * QUICK_RETRY_MS);
    expect(client.getSnapshot().reconnect).toEqual({ countdown: RECONNECT_WAIT_S - 3, attempts: 0, reconnecting: false });
    vi.advanceTimersByTime((RECONNECT_WAIT_S - 3) * 1000);
    expect(client.getSnapshot().reconnect.reconnecting).toBe(true);
    expect(socket.connects).toBe(3);
    join();
    expect(client.getSnapshot().status).toBe('live');
    expect(client.getSnapshot().reconnect).toEqual({ countdown: RECONNECT_WAIT_S, attempts: 0, reconnecting: false });
  });

  it("'try now' attempts at once", () => {
    const { socket, client, join } = setup();
    join();
    socket.drop();
    client.actions.reconnectNow();
    expect(socket.connects).toBe(2);
    expect(client.getSnapshot().reconnect.reconnecting).toBe(true);
  });

  it('sends the teacher to the site root after the failed attempts', () => {
    const { socket, client, navigate, join } = setup('creator');
    join();
    socket.drop();
    for (let i = 0; i < RECONNECT_ATTEMPTS; i++) socket.fire('connect_error', new Error('xhr poll error'));
    expect(client.getSnapshot().status).toBe('gone');
    expect(navigate).toHaveBeenCalledWith('/');
  });

  it('keeps a student trying after the same failures', () => {
    const { socket, client, navigate, join } = setup('member');
    join();
    socket.drop();
    for (let i = 0; i < RECONNECT_ATTEMPTS; i++) socket.fire('connect_error', new Error('xhr poll error'));
    expect(client.getSnapshot().status).toBe('offline');
    expect(client.getSnapshot().reconnect.attempts).toBe(RECONNECT_ATTEMPTS);
    expect(navigate).not.toHaveBeenCalled();
  });

  it('polls the room info while offline and closes the class when the room is gone', async () => {
    const { socket, client, api, join, navigate } = setup();
    join();
    api.mockResolvedValue({ code: '0', msg: '', data: { roomInfo: { ...roomInfo, state: 'closed' } } });
    socket.drop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(api).toHaveBeenCalledWith('getRoomInfoByRoomNumber', { roomNumber: '123456' }, { quietNetworkError: true });
    expect(client.getSnapshot().status).toBe('closed');
    // A student is told on the refusal page; the teacher leaves for the profile instead.
    expect(navigate).toHaveBeenCalledWith('/refused/closed?room=123456');
  });

  it('leaves for the removal page when kicked, and ignores a kick of someone else', () => {
    const { socket, client, navigate, join } = setup();
    join();
    socket.fire('kickout', { userId: '9' });
    expect(client.getSnapshot().status).toBe('live');
    socket.fire('kickout', { userId: '2' });
    expect(client.getSnapshot().status).toBe('gone');
    expect(navigate).toHaveBeenCalledWith('/refused/removed?room=123456');
  });

  it('a refused join (room full) leaves for the refusal page of that case', () => {
    const { socket, client, navigate } = setup();
    socket.up();
    socket.last('joinRoom').answer(null, { code: '31003', msg: 'full' });
    expect(client.getSnapshot().status).toBe('gone');
    expect(navigate).toHaveBeenCalledWith('/refused/full?room=123456');
  });

  it('reports the network quality once per change while live, never as an observer', () => {
    const { socket, client, join } = setup();
    client.actions.reportNetwork(3);
    join();
    expect(socket.last('customRoomEvent').payload).toEqual({ networkQuality: 3 });
    const count = socket.sent.length;
    client.actions.reportNetwork(3);
    expect(socket.sent.length).toBe(count);
    client.actions.reportNetwork(5);
    expect(socket.last('customRoomEvent').payload).toEqual({ networkQuality: 5 });

    const observer = setup('observer');
    observer.join();
    observer.client.actions.reportNetwork(4);
    expect(observer.socket.sent.some((s) => s.event === 'customRoomEvent')).toBe(false);
  });

  it('passes courseware events to their listeners until unsubscribed', () => {
    const { socket, client, join } = setup();
    join();
    const seen: unknown[] = [];
    const off = client.courseware.on('videoControl', (p) => seen.push(p));
    socket.fire('videoControl', { type: 'play', currentTime: 1, at: 5, by: '1' });
    off();
    socket.fire('videoControl', { type: 'pause', currentTime: 2, at: 6, by: '1' });
    expect(seen).toEqual([{ type: 'play', currentTime: 1, at: 5, by: '1' }]);
  });

  it('keeps the class tools from the snapshot and their events, and sends their requests (ADR 114)', async () => {
    const { socket, client, join } = setup();
    join();
    expect(client.tools.getSnapshot().tools).toEqual(emptyClassTools());
    const quiz = {
      id: 'q1',
      options: 4,
      multiple: false,
      status: 'open',
      startedAt: 1,
      endsAt: 0,
      answered: 0,
      showOwn: true,
      result: null,
    };
    socket.fire('tools', { ...emptyClassTools(), quiz, serverTime: Date.now() - 300_000 });
    expect(client.tools.getSnapshot().tools.quiz?.id).toBe('q1');
    socket.fire('rewarded', { userIds: ['2'], names: ['Alice'], by: '1', at: 7 });
    expect(client.tools.getSnapshot().rewarded?.userIds).toEqual(['2']);
    const sent = client.tools.actions.quizAnswer(['B']);
    const request = socket.last('quizAnswer');
    expect(request.payload).toEqual({ id: 'q1', choice: ['B'] });
    request.answer(null, { code: '0', msg: '', data: { choice: ['B'] } });
    expect(await sent).toBe(true);
    expect(client.tools.getSnapshot().mine.quiz).toEqual(['B']);
  });

  it('keeps the breakout groups from the snapshot and their events, and sends their requests (ADR 118)', async () => {
    const { socket, client, join } = setup();
    join();
    expect(client.groups.getSnapshot().state.status).toBe('off');
    const group = { no: 1, name: '1', leader: null, page: 2, members: ['2'], helpAt: 0 };
    socket.fire('groups', {
      ...snapshot.groups,
      status: 'running',
      round: 1,
      groups: [group],
      serverTime: Date.now(),
      outcome: 'started',
      userIds: [],
    });
    expect(client.groups.getSnapshot().state.groups[0]?.members).toEqual(['2']);
    expect(client.groups.getSnapshot().last?.outcome).toBe('started');
    socket.fire('groupsBroadcast', { text: 'hi', at: 9, by: '1' });
    expect(client.groups.getSnapshot().broadcasts).toEqual([{ text: 'hi', at: 9, by: '1' }]);
    const sent = client.groups.actions.help();
    const request = socket.last('groupsHelp');
    expect(request.payload).toEqual({});
    request.answer(null, { code: '0', msg: '', data: { ...snapshot.groups, status: 'running', round: 1, groups: [group] } });
    expect(await sent).toBe(true);
  });

  it('stop() closes the socket and a drop afterwards changes nothing', () => {
    const { socket, client, join } = setup();
    join();
    client.stop();
    expect(socket.connected).toBe(false);
    expect(socket.handlers.size).toBe(0);
    expect(client.getSnapshot().status).toBe('live');
  });
});

describe('RoomChannelClient: cloud recording', () => {
  function recSetup(role: JoinAnswer['role'] = 'creator', recordState: RoomInfo['recordState'] = '0') {
    const socket = new FakeSocket();
    // Anything not set by a test: the network is down.
    const apiMock = vi.fn().mockResolvedValue({ code: 'network', msg: '', data: null });
    const client = new RoomChannelClient({
      answer: answer(role),
      roomNumber: '123456',
      t: (key) => key,
      socket: () => socket as unknown as RoomSocket,
      api: apiMock as never,
      listenToWindow: false,
    });
    client.start();
    socket.up();
    socket.last('joinRoom').answer(null, { code: '0', msg: '', data: { ...snapshot, roomInfo: { ...roomInfo, recordState } } });
    const state = () => client.getSnapshot().state!;
    return { socket, client, apiMock, state };
  }

  it("start: startTask, then '2' with the task until roomRecord says '1' and the time it began", async () => {
    const { socket, client, apiMock, state } = recSetup();
    apiMock.mockResolvedValueOnce({ code: '0', msg: '', data: { taskId: '41' } });
    await expect(client.actions.startRecord()).resolves.toBe(true);
    expect(apiMock).toHaveBeenCalledWith('startTask', { roomNumber: '123456' }, expect.anything());
    expect(state().roomInfo.recordState).toBe('2');
    expect(state().record).toEqual({ taskId: '41', since: null });
    // The recorder's first claim, in server time: the elapsed time counts from it (skew removed).
    const startedAt = snapshot.serverTime + 1_500;
    socket.fire('roomRecord', { code: '0', taskId: '41', recordState: '1', startedAt });
    expect(state().roomInfo.recordState).toBe('1');
    expect(state().record.taskId).toBe('41');
    expect(state().record.since).toBe(startedAt - state().clockSkew);
  });

  it("a refused start stays '0'; a second click while one is out sends nothing", async () => {
    const { client, apiMock, state } = recSetup();
    let answerStart: (v: unknown) => void = () => undefined;
    apiMock.mockReturnValueOnce(new Promise((r) => (answerStart = r)));
    const first = client.actions.startRecord();
    await expect(client.actions.startRecord()).resolves.toBe(false);
    answerStart({ code: '31020', msg: 'refused by the package', data: null });
    await expect(first).resolves.toBe(false);
    expect(apiMock).toHaveBeenCalledTimes(1);
    expect(state().roomInfo.recordState).toBe('0');
  });

  it("roomRecordFailed goes back to '0', unless it names an older task", async () => {
    const { socket, client, apiMock, state } = recSetup();
    apiMock.mockResolvedValueOnce({ code: '0', msg: '', data: { taskId: '7' } });
    await client.actions.startRecord();
    socket.fire('roomRecordFailed', { taskId: '6', reason: 'timeout' });
    expect(state().roomInfo.recordState).toBe('2');
    socket.fire('roomRecordFailed', { taskId: '7', reason: 'failed' });
    expect(state().roomInfo.recordState).toBe('0');
    expect(state().record.since).toBeNull();
  });

  it("roomRecordFailed (no recorder had room, ADR 105) shows the creator 'recording failed to start, please retry'; a member sees nothing", async () => {
    const shown = vi.spyOn(toast, 'error');
    try {
      const { socket, client, apiMock } = recSetup();
      apiMock.mockResolvedValueOnce({ code: '0', msg: '', data: { taskId: '8' } });
      await client.actions.startRecord();
      socket.fire('roomRecordFailed', { taskId: '8', reason: 'timeout' });
      expect(shown).toHaveBeenCalledWith('record.button.failed');
      expect(recordEn.button.failed).toBe('Recording failed to start, please retry');
      shown.mockClear();
      const student = recSetup('member');
      student.socket.fire('roomRecordFailed', { taskId: '8', reason: 'timeout' });
      expect(shown).not.toHaveBeenCalled();
    } finally {
      shown.mockRestore();
    }
  });

  it('stop sends stopTask with the task id, asking the server for it when this page does not know it', async () => {
    const { client, apiMock, state } = recSetup('creator', '1');
    // Joined mid-recording: the page asks for the task (and its start, in server time).
    await vi.waitFor(() => expect(apiMock).toHaveBeenCalledWith('getRoomMemberRecordState', { roomNumber: '123456' }, expect.anything()));
    apiMock.mockReset();
    apiMock.mockResolvedValueOnce({ code: '0', msg: '', data: { recordState: '1', taskId: '9' } });
    apiMock.mockResolvedValueOnce({ code: '0', msg: '', data: {} });
    await expect(client.actions.stopRecord()).resolves.toBe(true);
    expect(apiMock).toHaveBeenLastCalledWith('stopTask', { roomNumber: '123456', taskId: '9' }, expect.anything());
    expect(state().roomInfo.recordState).toBe('0');
  });

  it('joined mid-recording, the creator learns the task and when it began (server time, skew removed)', async () => {
    const socket = new FakeSocket();
    const apiMock = vi
      .fn()
      .mockResolvedValue({ code: '0', msg: '', data: { recordState: '1', taskId: '12', startedAt: snapshot.serverTime - 65_000 } });
    const client = new RoomChannelClient({
      answer: answer('creator'),
      roomNumber: '123456',
      socket: () => socket as unknown as RoomSocket,
      api: apiMock as never,
      listenToWindow: false,
    });
    client.start();
    socket.up();
    socket.last('joinRoom').answer(null, { code: '0', msg: '', data: { ...snapshot, roomInfo: { ...roomInfo, recordState: '1' } } });
    await vi.waitFor(() => expect(client.getSnapshot().state!.record.taskId).toBe('12'));
    const { since } = client.getSnapshot().state!.record;
    const skew = client.getSnapshot().state!.clockSkew;
    expect(since).toBe(snapshot.serverTime - 65_000 - skew);
  });

  it('a member cannot start or stop (the buttons are the creator’s) but sees the state', async () => {
    const { socket, client, apiMock, state } = recSetup('member');
    await expect(client.actions.startRecord()).resolves.toBe(false);
    socket.fire('customRoomEvent', { recordState: '1', by: '' });
    expect(state().roomInfo.recordState).toBe('1');
    await expect(client.actions.stopRecord()).resolves.toBe(false);
    expect(apiMock).not.toHaveBeenCalled();
  });
});

it('joined mid-recording, the creator takes the task from the join answer: stop does not ask for it', async () => {
  const socket = new FakeSocket();
  // The start time's question fails (network): the task from the join answer is enough to stop.
  const apiMock = vi.fn().mockResolvedValue({ code: 'network', msg: '', data: null });
  const client = new RoomChannelClient({
    answer: { ...answer('creator'), userRecordInfo: { taskId: '33', recordState: '1' } },
    roomNumber: '123456',
    socket: () => socket as unknown as RoomSocket,
    api: apiMock as never,
    listenToWindow: false,
  });
  client.start();
  socket.up();
  socket.last('joinRoom').answer(null, { code: '0', msg: '', data: { ...snapshot, roomInfo: { ...roomInfo, recordState: '1' } } });
  expect(client.getSnapshot().state!.record.taskId).toBe('33');
  await vi.waitFor(() => expect(apiMock).toHaveBeenCalledWith('getRoomMemberRecordState', { roomNumber: '123456' }, expect.anything()));
  apiMock.mockClear();
  apiMock.mockResolvedValueOnce({ code: '0', msg: '', data: {} });
  await expect(client.actions.stopRecord()).resolves.toBe(true);
  expect(apiMock).toHaveBeenCalledTimes(1);
  expect(apiMock).toHaveBeenCalledWith('stopTask', { roomNumber: '123456', taskId: '33' }, expect.anything());
});

it('after a reload while recording, the elapsed time counts from the real start (getRoomMemberRecordState startedAt), not from the reload', async () => {
  const socket = new FakeSocket();
  const startedAt = snapshot.serverTime - 125_000;
  const apiMock = vi.fn().mockResolvedValue({ code: '0', msg: '', data: { recordState: '1', taskId: '33', startedAt } });
  const client = new RoomChannelClient({
    answer: { ...answer('creator'), userRecordInfo: { taskId: '33', recordState: '1' } },
    roomNumber: '123456',
    socket: () => socket as unknown as RoomSocket,
    api: apiMock as never,
    listenToWindow: false,
  });
  client.start();
  socket.up();
  socket.last('joinRoom').answer(null, { code: '0', msg: '', data: { ...snapshot, roomInfo: { ...roomInfo, recordState: '1' } } });
  const record = () => client.getSnapshot().state!.record;
  // The join answer's task at once; its start once the server said it (2:05 ago, not 0:00).
  expect(record().taskId).toBe('33');
  await vi.waitFor(() => expect(record().since).toBe(startedAt - client.getSnapshot().state!.clockSkew));
  expect(Date.now() - record().since!).toBeGreaterThanOrEqual(125_000);
});
