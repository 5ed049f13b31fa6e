import { expect, it } from 'vitest';
import { parseBusMessage, socketRouteOf } from './bus-routes.ts';

it('parses a bus message before it is routed across processes', () => {
  const ok = { target: { room: '123456' }, event: 'kickout', payload: { userId: '7' } };
  expect(parseBusMessage(ok)).toEqual(ok);
  expect(socketRouteOf(parseBusMessage(ok)!)).toEqual({ nsp: '/room', room: 'room:123456', event: 'kickout', payload: { userId: '7' } });
  expect(parseBusMessage({ target: { user: '7' }, event: 'paymentSuccess', payload: { orderId: 'BS1' } })).not.toBeNull();
  for (const bad of [
    null,
    'kickout',
    { target: { room: '123456' }, event: 'kickedout', payload: {} },
    { target: { room: '123456' }, event: 'paymentSuccess', payload: {} },
    { target: { user: '7' }, event: 'kickout', payload: {} },
    { target: { room: '../x' }, event: 'kickout', payload: {} },
    { target: { room: '123456', user: '7' }, event: 'kickout', payload: {} },
    { target: { room: '123456' }, event: 'kickout', payload: 'x' },
    { target: { room: '123456' }, event: 'kickout', payload: [] },
    { target: { room: '123456' }, event: 'kickout' },
    // The payload is parsed by its event's schema (ADR 108): a wrong type, a missing or an extra field.
    { target: { room: '123456' }, event: 'kickout', payload: { userId: 7 } },
    { target: { user: '7' }, event: 'paymentSuccess', payload: {} },
    { target: { user: '7' }, event: 'paymentSuccess', payload: { orderId: 'BS1', by: 'x' } },
    { target: { room: '123456' }, event: 'customRoomEvent', payload: { showState: 'wb' } },
    { target: { room: '123456' }, event: 'roomClosed', payload: { reason: 'bored' } },
  ]) {
    expect(parseBusMessage(bad), JSON.stringify(bad)).toBeNull();
  }
});

it('routes a seat message (one person in one room, ADR 113) to their seat key, parsed by the room event schema', () => {
  const tally = {
    id: 'q1',
    tally: [1, 0],
    answered: 1,
    answers: [{ userId: '8', name: 'S', choice: ['A'], right: true }],
    accuracy: 1,
    correct: ['A'],
  };
  const ok = { target: { room: '123456', user: '7' }, event: 'quizTally', payload: tally };
  expect(parseBusMessage(ok)).toEqual(ok);
  expect(socketRouteOf(parseBusMessage(ok)!)).toEqual({ nsp: '/room', room: 'seat:123456:7', event: 'quizTally', payload: tally });
  for (const bad of [
    { ...ok, target: { room: '123456', user: 'x' } },
    { ...ok, target: { room: '123456', user: '7', extra: '1' } },
    { ...ok, payload: { ...tally, accuracy: 'all' } },
    { ...ok, event: 'paymentSuccess', payload: { orderId: 'BS1' } },
  ]) {
    expect(parseBusMessage(bad), JSON.stringify(bad)).toBeNull();
  }
});
