/** A board-channel client for tests and benchmarks: a room with people, their board tokens and sockets. */
import type { BoardItem, BoardOp, LayerState, SequencedOp, StrokeData } from '#core/contracts/board.ts';
import { applySequencedOp, emptyLayer, layerFromState, layerToState, type Layer } from '#core/board/model.ts';
import type { LayerAnswer } from '#core/board/board.service.ts';
import { call, signIn } from './api.ts';
import { connectChannel, type ConnectOptions, type RoomSocket } from './room-client.ts';
import type { TestServer } from './server.ts';

export type BoardSocket = RoomSocket;

/** The board channel, with a board token (spoken through the product's channel client, see room-client.ts). */
export const connectBoard = (baseUrl: string, token: string, opts: ConnectOptions = {}): Promise<BoardSocket> =>
  connectChannel(baseUrl, 'board', token, opts);

export interface Person {
  token: string;
  userId: string;
  /** The join answer's room-channel token. */
  imToken: string;
  /** From /api/createWbToken. */
  wbToken: string;
}

/** A room of `roomType` with a teacher and `students` signed-in members, each with a board token. */
export async function boardRoom(
  server: TestServer,
  roomType: 1 | 2 | 3 | 4 = 2,
  students = 2,
): Promise<{ roomNumber: string; teacher: Person; students: Person[] }> {
  const teacher = await signIn(server);
  const created = await call(server.url, roomType === 1 ? 'createAgoraRoom' : 'createRoom', { roomType }, { token: teacher.token });
  if (created.code !== '0') throw new Error(`create room: ${created.code}`);
  const roomNumber = created.data.roomInfo.roomNumber;
  const people: Person[] = [];
  for (const who of [teacher, ...(await Promise.all(Array.from({ length: students }, () => signIn(server))))]) {
    people.push(await enter(server, roomNumber, who));
  }
  const [t, ...s] = people;
  return { roomNumber, teacher: t!, students: s };
}

/** Joins a signed-in person to the room and fetches their board token. */
export async function enter(server: TestServer, roomNumber: string, who: { token: string; userId: string }): Promise<Person> {
  const joined = await call(server.url, 'userJoinAgoraRoom', { roomNumber }, { token: who.token });
  if (joined.code !== '0') throw new Error(`join: ${joined.code}`);
  const wb = await call(server.url, 'createWbToken', { userId: who.userId, channelId: roomNumber }, { token: who.token });
  if (wb.code !== '0') throw new Error(`createWbToken: ${wb.code}`);
  return { ...who, imToken: joined.data.imToken, wbToken: wb.data.token };
}

export const strokeData = (x = 10, y = 10, n = 4): StrokeData => ({
  kind: 'stroke',
  points: Array.from({ length: n * 2 }, (_, i) => (i % 2 === 0 ? x + i : y + i)),
  color: 'red',
  width: 4,
});

export const createOp = (opId: string, id: string, page = 'wb:0', data: BoardItem['data'] = strokeData()): BoardOp => ({
  opId,
  type: 'create',
  btype: 'brush',
  id,
  page,
  data,
});

/** A client-side mirror of one layer, fed by getBoard and live `sync` events (as the browser does). */
export class LayerMirror {
  layer: Layer;
  constructor(page: string) {
    this.layer = emptyLayer(page);
  }
  load(answer: { state?: LayerState; ops: SequencedOp[] }): void {
    if (answer.state) this.layer = layerFromState(answer.state);
    for (const op of answer.ops) applySequencedOp(this.layer, op);
  }
  apply(op: SequencedOp): void {
    if (op.page === this.layer.page) applySequencedOp(this.layer, op);
  }
  items(): BoardItem[] {
    return [...this.layer.items.values()];
  }
}

/**
 * The layer a `getBoard` answer describes (its state with the operations after it applied), read
 * through JSON as a client gets it: a cold answer (the snapshot's text plus the operations after
 * it) and a warm one (the state as it stands) describe the same layer.
 */
export function stateOf(page: string, answer: LayerAnswer): LayerState {
  const mirror = new LayerMirror(page);
  mirror.load(JSON.parse(JSON.stringify(answer)) as { state?: LayerState; ops: SequencedOp[] });
  return layerToState(mirror.layer);
}
