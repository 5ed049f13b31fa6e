/**
 * The room event bus: how services, workers and media nodes tell browsers that something changed.
 * The web role binds it to socket.io rooms (and, distributed, to the Redis adapter); tests use the
 * in-memory bus and read what was published.
 */
export interface BusMessage {
  target: { room: string } | { user: string };
  event: string;
  payload: unknown;
}

export interface EventBus {
  publish(message: BusMessage): void;
  subscribe(listener: (message: BusMessage) => void): () => void;
}

export class InMemoryEventBus implements EventBus {
  readonly #listeners = new Set<(m: BusMessage) => void>();
  publish(message: BusMessage): void {
    for (const l of this.#listeners) l(message);
  }
  subscribe(listener: (m: BusMessage) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
