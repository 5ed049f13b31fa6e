/**
 * The browser's event log (docs/product/02-live-classroom.md §8, `/api/addLog`): one event, its
 * room and a structured message, sent without waiting and without ever bothering the person (a
 * failed send is dropped). keepalive lets an event sent while the page closes still arrive.
 */
const ADD_LOG_URL = '/api/addLog?ua=web';

export function logClientEvent(event: string, roomNumber: string, details?: Record<string, unknown>): void {
  if (typeof window === 'undefined' || typeof fetch !== 'function') return;
  const body = JSON.stringify({ socketType: event, roomNumber, message: JSON.stringify(details ?? {}) });
  try {
    void fetch(ADD_LOG_URL, {
      method: 'POST',
      credentials: 'same-origin',
      keepalive: true,
      headers: { 'content-type': 'application/json', accept: 'application/json', platform: '4', channel: 'web' },
      body,
    }).catch(() => undefined);
  } catch {
    // A log that cannot leave is not worth an error.
  }
}
