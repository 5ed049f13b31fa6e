/**
 * Stage and hands on the room channel (issue 30, ADR 112), spread into room-events.ts. The stage
 * generalises the room's old single microphone slot: seats on stage (per room type, a setting),
 * raised hands in order, the teacher's invitation (the student agrees or refuses within the
 * timeout), taking one or everyone down, an optional carousel. The server holds all of it in the
 * database; every change is told to the room as one whole `stage` event (the state as it is now,
 * with what changed), and the join snapshot carries the same state.
 */
import { z } from 'zod';
import { call, noPayload, whole } from './channel.ts';

/** A user id of this product: digits (as room-events.ts userIdSchema). */
const userId = z.string().regex(/^\d{1,18}$/);

/** The carousel's period bounds (s); 0 is off. */
export const CAROUSEL_MIN_SECONDS = 10;
export const CAROUSEL_MAX_SECONDS = 3600;

export const stageSeatSchema = z.strictObject({
  userId: z.string(),
  name: z.string(),
  /** ms epoch: since when on stage (or invited). */
  since: z.number(),
});
export const stageInvitationSchema = stageSeatSchema.extend({
  /** ms epoch when the unanswered invitation fails. */
  deadline: z.number(),
});
export const handSchema = z.strictObject({
  userId: z.string(),
  name: z.string(),
  /** ms epoch, server time: the queue's order and the waiting time. */
  raisedAt: z.number(),
});
export type Hand = z.infer<typeof handSchema>;

export const stageStateSchema = z.strictObject({
  /** Seats on stage besides the teacher (a setting per room type). */
  seats: z.number(),
  /** On stage, longest first. */
  onStage: z.array(stageSeatSchema),
  /** Invited and not answered yet (they hold a seat until they answer or the invitation fails). */
  invited: z.array(stageInvitationSchema),
  /** Raised hands, first raised first. */
  hands: z.array(handSchema),
  /** The carousel: every `seconds` (0: off) the students on stage make way for the next ones; next turn at `nextAt` (ms epoch, 0 when off). */
  carousel: z.strictObject({ seconds: z.number(), nextAt: z.number() }),
});
export type StageState = z.infer<typeof stageStateSchema>;

/** What a stage event reports besides the state: who did what to whom. */
export const stageOutcomeSchema = z.enum(['hand', 'invited', 'agreed', 'rejected', 'failed', 'down', 'carousel', 'settings']);
export type StageOutcome = z.infer<typeof stageOutcomeSchema>;

export const stageEventSchema = stageStateSchema.extend({
  outcome: stageOutcomeSchema,
  /** Whom the change concerns (the invited, those taken down...). */
  userIds: z.array(z.string()),
  /** Those who were on stage and are not any more: the media node takes their rights back (ADR 112). */
  off: z.array(z.string()),
});
export type StageEvent = z.infer<typeof stageEventSchema>;

/** Browser -> server. */
export const stageRoomRequests = {
  /** A student raises their hand (rate limited per person). */
  raiseHand: call(noPayload, stageStateSchema),
  /** A student lowers their own hand; the teacher may lower anyone's (`userId`). */
  lowerHand: call(z.strictObject({ userId: userId.optional() }), stageStateSchema),
  /** The teacher brings a student up: an invitation, answered with answerStage. A full stage is '31030'. */
  inviteStage: call(z.strictObject({ userId }), stageStateSchema),
  /** The invited student agrees (on stage) or refuses. */
  answerStage: call(z.strictObject({ agree: z.boolean() }), stageStateSchema),
  /** The teacher takes a student down (or withdraws an invitation); a student may step down themself only. */
  stageDown: call(z.strictObject({ userId }), stageStateSchema),
  /** The teacher takes everyone down. */
  stageAllDown: call(noPayload, stageStateSchema),
  /** The teacher's carousel: every `seconds` (0 off, else CAROUSEL_MIN_SECONDS..CAROUSEL_MAX_SECONDS). */
  setCarousel: call(
    z.strictObject({ seconds: whole(0, CAROUSEL_MAX_SECONDS).refine((s) => s === 0 || s >= CAROUSEL_MIN_SECONDS, 'period') }),
    stageStateSchema,
  ),
};

/** Server -> browser. */
export const stageRoomEvents = {
  stage: stageEventSchema,
};
