/**
 * The user channel (socket.io namespace `/user`): events for one person on every page they have
 * open, whatever room they are in. A connection proves who it is with the session cookie (pages)
 * or the user token (`auth.token`). The server only sends; clients ask nothing here.
 */
import type { CoursewareUserEvents } from './courseware.ts';

export const USER_NAMESPACE = '/user';

/** Server -> browser. */
export interface UserServerToClient extends CoursewareUserEvents {
  /** An order of this user was paid (spec 03 §7: paymentSuccess carries the order id). */
  paymentSuccess: (payload: { orderId: string }) => void;
}

export type UserClientToServer = Record<string, never>;

export const userKey = (userId: string) => `user:${userId}`;
