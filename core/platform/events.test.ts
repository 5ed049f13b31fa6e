/** The bus is typed by the channel contracts: each `@ts-expect-error` fails the type check if its mistake ever compiles. */
import { expect, it } from 'vitest';
import { InMemoryEventBus, roomMessage, type BusMessage } from './events.ts';

it('carries only the events and payloads the channel contracts declare', () => {
  const bus = new InMemoryEventBus();
  const seen: BusMessage[] = [];
  bus.subscribe((m) => seen.push(m));
  bus.publish({ target: { room: '123456' }, event: 'kickout', payload: { userId: '7' } });
  bus.publish({ target: { user: '7' }, event: 'paymentSuccess', payload: { orderId: 'BS1' } });
  bus.publish(roomMessage('123456', 'roomClosed', { reason: 'ended' }));
  // @ts-expect-error an event no contract declares
  bus.publish({ target: { room: '123456' }, event: 'kickedout', payload: { userId: '7' } });
  // @ts-expect-error a payload of the wrong shape
  bus.publish({ target: { room: '123456' }, event: 'kickout', payload: { user: '7' } });
  // @ts-expect-error a user event sent to a room
  bus.publish({ target: { room: '123456' }, event: 'paymentSuccess', payload: { orderId: 'BS1' } });
  // @ts-expect-error a reason the contract does not have
  bus.publish(roomMessage('123456', 'roomClosed', { reason: 'bored' }));
  expect(seen.map((m) => m.event)).toEqual([
    'kickout',
    'paymentSuccess',
    'roomClosed',
    'kickedout',
    'kickout',
    'paymentSuccess',
    'roomClosed',
  ]);
  const first = seen[0]!;
  // A listener narrows the payload by the event name.
  if (first.event === 'kickout') expect(first.payload.userId).toBe('7');
});
