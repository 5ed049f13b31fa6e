/**
 * A class ends for whatever runs beside it (ADR 107): the live service says when the creator left
 * or the room closed, and the services that must stop with the class (cloud recording, live
 * streaming) listen. The live service knows nothing of them; the composition subscribes them.
 */
export type RoomEnding = 'creator left' | 'room closed';
export type RoomEndingListener = (roomId: string, why: RoomEnding) => Promise<void>;

export class RoomEndings {
  readonly #listeners: RoomEndingListener[] = [];

  /** Listens to every ending; the answer stops listening. */
  on(listener: RoomEndingListener): () => void {
    this.#listeners.push(listener);
    return () => {
      const i = this.#listeners.indexOf(listener);
      if (i >= 0) this.#listeners.splice(i, 1);
    };
  }

  /**
   * Tells every listener, one after the other in the order they subscribed; one that fails does
   * not keep the others from stopping, and the first failure is thrown once all have run.
   */
  async ended(roomId: string, why: RoomEnding): Promise<void> {
    let failure: { err: unknown } | null = null;
    for (const listener of [...this.#listeners]) {
      try {
        await listener(roomId, why);
      } catch (err) {
        failure ??= { err };
      }
    }
    if (failure) throw failure.err;
  }
}
