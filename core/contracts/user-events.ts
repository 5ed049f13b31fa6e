/**
 * The user channel (socket.io namespace `/user`): events for one person on every page they have
 * open, whatever room they are in. A connection proves who it is with the session cookie (pages)
 * or the user token (`auth.token`). The server only sends; clients ask nothing here (a request
 * is answered '5', see core/channel/dispatch.ts).
 */
import { z } from 'zod';
import { channelContract, type Events, type Requests } from './channel.ts';
import { coursewareUserEvents } from './courseware.ts';
import { recordingUserEvents } from './recording.ts';
import { studioUserEvents } from './studio.ts';

export const USER_NAMESPACE = '/user';

/** Server -> browser. */
export const userEvents = {
  /** An order of this user was paid (docs/product/03-board-courseware-billing.md §7: paymentSuccess carries the order id). */
  paymentSuccess: z.strictObject({ orderId: z.string() }),
  ...coursewareUserEvents,
  ...recordingUserEvents,
  ...studioUserEvents,
};

/** Browser -> server: none. */
export const userRequests = {};

export type UserServerToClient = Events<typeof userEvents>;
export type UserClientToServer = Requests<typeof userRequests>;

export const userKey = (userId: string) => `user:${userId}`;

/** Both halves of the user channel (the server only sends; the browser's openChannel hears). */
export const userChannel = channelContract({ name: 'user', requests: userRequests, events: userEvents });
