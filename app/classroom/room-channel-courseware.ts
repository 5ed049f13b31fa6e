/**
 * The courseware events and requests on the room's socket (core/contracts/courseware.ts): the
 * room channel's client passes each event it heard to the courseware panel's listeners, and its
 * requests through its own (a refusal is toasted unless quiet).
 */
import type { CoursewareRoomEvents } from '#core/contracts/courseware.ts';
import type { CoursewareChannel } from './room-channel-types.ts';

export class CoursewareRelay {
  readonly #listeners: { [K in keyof CoursewareRoomEvents]: Set<CoursewareRoomEvents[K]> } = {
    documentConvert: new Set(),
    courseware: new Set(),
    videoControl: new Set(),
  };

  /** An event heard on the socket (already parsed by its schema), to every listener of it. */
  emit<E extends keyof CoursewareRoomEvents>(event: E, payload: Parameters<CoursewareRoomEvents[E]>[0]): void {
    for (const handler of this.#listeners[event]) (handler as (p: typeof payload) => void)(payload);
  }

  /** The panel's view: listen to the events, send the requests. */
  channel(request: CoursewareChannel['request']): CoursewareChannel {
    return {
      on: (event, handler) => {
        const set = this.#listeners[event];
        set.add(handler);
        return () => void set.delete(handler);
      },
      request,
    };
  }
}
