/**
 * The browser's half of the user channel (ADR 108): each event is parsed by its schema; one that
 * breaks it is logged and dropped, and the good ones after it reach their handlers.
 */
import { expect, it } from 'vitest';
import type { ChannelProblem } from '#core/channel/open.ts';
import type { DocumentInfo } from '#core/contracts/courseware.ts';
import { FakeSocket } from '#tests/support/fake-socket.ts';
import { listenUserEvents } from './useUserEvents.ts';

const document: DocumentInfo = {
  documentId: '5',
  documentName: 'a.pdf',
  documentSource: 'documentConvert/a.pdf',
  fileHash: 'd41d8cd98f00b204e9800998ecf8427e',
  taskId: '9',
  documentType: 1,
  status: 3,
  size: 10,
  pageCount: 2,
  createTime: 1,
  failReason: '',
};

it('drops a user event that breaks its schema, logs it, and hands on the good ones', () => {
  const socket = new FakeSocket();
  const problems: ChannelProblem[] = [];
  const paid: string[] = [];
  const statuses: DocumentInfo[] = [];
  const stop = listenUserEvents(
    socket,
    () => ({ paymentSuccess: (p) => paid.push(p.orderId), documentStatus: (p) => statuses.push(p.document) }),
    (p) => problems.push(p),
  );
  socket.up();
  socket.fire('paymentSuccess', { orderId: 42 });
  socket.fire('documentStatus', { document: { ...document, status: 'done' } });
  socket.fire('documentStatus', { document: { documentId: '5' } });
  expect(problems.map((p) => [p.channel, p.kind, p.name])).toEqual([
    ['user', 'event', 'paymentSuccess'],
    ['user', 'event', 'documentStatus'],
    ['user', 'event', 'documentStatus'],
  ]);
  expect(paid).toEqual([]);
  expect(statuses).toEqual([]);
  socket.fire('paymentSuccess', { orderId: 'BS1' });
  socket.fire('documentStatus', { document });
  expect(paid).toEqual(['BS1']);
  expect(statuses).toEqual([document]);
  stop();
  socket.fire('paymentSuccess', { orderId: 'BS2' });
  expect(paid).toEqual(['BS1']);
  expect(socket.handlers.size).toBe(0);
});
