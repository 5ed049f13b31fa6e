/**
 * The teacher's class tools besides stage and hands (issue 30, ADR 113): answer sheet (quiz), poll,
 * countdown and stopwatch, buzzer, random pick, rewards. The server holds their state in the
 * database (core/tools/); every change is told to the whole room as ONE public object,
 * `ClassTools`, sent whole with the server's time, so a client only ever replaces its copy (a
 * reload, a reconnect and a late join see the same). Who answered what reaches the teacher alone
 * (`quizTally`, the seat key of the room's creator); each student learns only their own answer.
 *
 * Merged into the room channel (core/contracts/room-events.ts): the requests into roomRequests,
 * the events into roomEvents, the state into the join snapshot.
 */
import { z } from 'zod';
import { call, noPayload, whole } from './channel.ts';

/** The letters of a quiz's options, in order: a quiz of n options uses the first n. */
export const QUIZ_LETTERS = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'] as const;
export const QUIZ_MIN_OPTIONS = 2;
export const QUIZ_MAX_OPTIONS = 8;
export const QUIZ_MAX_SECONDS = 3600;
export const POLL_MAX_QUESTIONS = 5;
export const POLL_QUESTION_MAX_CHARS = 100;
export const POLL_OPTION_MAX_CHARS = 40;
export const POLL_MIN_OPTIONS = 2;
export const POLL_MAX_OPTIONS = 8;
/** A countdown's longest length (ms). */
export const TIMER_MAX_MS = 24 * 3600_000;
/** At most one quizTally per quiz per this many ms (always one after the last answer). */
export const QUIZ_TALLY_COALESCE_MS = 200;
/** Per person: answers (quiz and poll) and buzzer presses, each per second; past it '31022'. */
export const TOOL_ACTIONS_PER_SECOND = 5;

/** An id the server made for one quiz or poll. */
export const toolIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
export const quizLetterSchema = z.enum(QUIZ_LETTERS);
/** A choice as sent: distinct letters (whether they lie within the quiz's options is the server's rule). */
export const quizChoiceSchema = z
  .array(quizLetterSchema)
  .min(1)
  .max(QUIZ_MAX_OPTIONS)
  .refine((c) => new Set(c).size === c.length, 'repeated letter');

export const quizStatusSchema = z.enum(['open', 'collected', 'published']);
export const quizResultSchema = z.strictObject({
  /** Per option, how many chose it. */
  tally: z.array(z.number()),
  correct: z.array(quizLetterSchema),
  answered: z.number(),
  right: z.number(),
});
export const quizPublicSchema = z.strictObject({
  id: toolIdSchema,
  /** How many options (letters A.. in order). */
  options: whole(QUIZ_MIN_OPTIONS, QUIZ_MAX_OPTIONS),
  multiple: z.boolean(),
  status: quizStatusSchema,
  startedAt: z.number(),
  /** Server ms epoch past which no answer counts; 0 = no limit. */
  endsAt: z.number(),
  /** How many have answered (neither who nor what). */
  answered: z.number(),
  /** On publish, each student sees their own right/wrong. */
  showOwn: z.boolean(),
  /** Only once published. */
  result: quizResultSchema.nullable(),
});
export type QuizPublic = z.infer<typeof quizPublicSchema>;

export const pollQuestionSchema = z.strictObject({
  text: z
    .string()
    .max(POLL_QUESTION_MAX_CHARS * 8)
    .transform((t) => t.normalize('NFC').trim())
    .refine((t) => [...t].length >= 1 && [...t].length <= POLL_QUESTION_MAX_CHARS, 'question length'),
  options: z
    .array(
      z
        .string()
        .max(POLL_OPTION_MAX_CHARS * 8)
        .transform((t) => t.normalize('NFC').trim())
        .refine((t) => [...t].length >= 1 && [...t].length <= POLL_OPTION_MAX_CHARS, 'option length'),
    )
    .min(POLL_MIN_OPTIONS)
    .max(POLL_MAX_OPTIONS),
  multiple: z.boolean(),
});
export type PollQuestion = z.infer<typeof pollQuestionSchema>;
export const pollStatusSchema = z.enum(['open', 'closed', 'published']);
export const pollPublicSchema = z.strictObject({
  id: toolIdSchema,
  /** No voter identity is stored at all (ADR 113). */
  anonymous: z.boolean(),
  status: pollStatusSchema,
  questions: z.array(pollQuestionSchema),
  voters: z.number(),
  /** Only once published: per question, per option, how many chose it. */
  result: z.strictObject({ counts: z.array(z.array(z.number())) }).nullable(),
});
export type PollPublic = z.infer<typeof pollPublicSchema>;
/** A vote as sent: per question (in order), the chosen option indexes (distinct; checked against the poll by the server). */
export const pollAnswersSchema = z
  .array(
    z
      .array(whole(0, POLL_MAX_OPTIONS - 1))
      .min(1)
      .max(POLL_MAX_OPTIONS)
      .refine((a) => new Set(a).size === a.length, 'repeated option'),
  )
  .min(1)
  .max(POLL_MAX_QUESTIONS);

export const timerKindSchema = z.enum(['countdown', 'stopwatch']);
/**
 * The value shown: a countdown `max(0, durationMs - (elapsedMs + (running ? serverNow - startedAt : 0)))`,
 * a stopwatch `elapsedMs + (running ? serverNow - startedAt : 0)`, where serverNow is the client's
 * clock corrected by the offset of the last `serverTime` it heard.
 */
export const timerPublicSchema = z.strictObject({
  kind: timerKindSchema,
  running: z.boolean(),
  /** A countdown's length (0 for a stopwatch). */
  durationMs: z.number(),
  /** Accumulated before startedAt. */
  elapsedMs: z.number(),
  /** Server ms epoch when last started; 0 when paused or never started. */
  startedAt: z.number(),
});
export type TimerPublic = z.infer<typeof timerPublicSchema>;

export const personAtSchema = z.strictObject({ userId: z.string(), name: z.string(), at: z.number() });
export type PersonAt = z.infer<typeof personAtSchema>;

export const buzzerPublicSchema = z.strictObject({
  round: z.number(),
  status: z.enum(['open', 'won']),
  winner: personAtSchema.nullable(),
});
export type BuzzerPublic = z.infer<typeof buzzerPublicSchema>;

/** The whole public state of the tools of the room's current class. */
export const classToolsSchema = z.strictObject({
  quiz: quizPublicSchema.nullable(),
  poll: pollPublicSchema.nullable(),
  timer: timerPublicSchema.nullable(),
  buzzer: buzzerPublicSchema.nullable(),
  /** The last random pick. */
  pick: personAtSchema.nullable(),
  /** Trophies per user id in this class. */
  rewards: z.record(z.string(), z.number()),
});
export type ClassTools = z.infer<typeof classToolsSchema>;

export const emptyClassTools = (): ClassTools => ({ quiz: null, poll: null, timer: null, buzzer: null, pick: null, rewards: {} });

/** The teacher's live view of a quiz: who answered what (the room's creator alone). */
export const quizTallySchema = z.strictObject({
  id: toolIdSchema,
  tally: z.array(z.number()),
  answered: z.number(),
  answers: z.array(z.strictObject({ userId: z.string(), name: z.string(), choice: z.array(quizLetterSchema), right: z.boolean() })),
  /** right / answered, 0..1 (0 when nobody answered). */
  accuracy: z.number(),
  /** The correct letter(s) the teacher set: the teacher's bars mark them before the result is published. */
  correct: z.array(quizLetterSchema),
});
export type QuizTally = z.infer<typeof quizTallySchema>;

/** The teacher's live view of a poll (the room's creator alone; results reach the others only when published). */
export const pollTallySchema = z.strictObject({
  id: toolIdSchema,
  counts: z.array(z.array(z.number())),
  voters: z.number(),
});
export type PollTally = z.infer<typeof pollTallySchema>;

/** A student's own answers, in their snapshot (null: none to the current quiz/poll, or the poll is anonymous). */
export const myAnswersSchema = z.strictObject({
  quiz: z.array(quizLetterSchema).nullable(),
  poll: z.array(z.array(z.number())).nullable(),
  /** Whether this person has voted in the current open poll (also true for an anonymous one). */
  pollVoted: z.boolean(),
});
export type MyAnswers = z.infer<typeof myAnswersSchema>;

/** Fields of the join snapshot (merged into roomSnapshotSchema). */
export const classToolsSnapshotFields = {
  tools: classToolsSchema,
  /** The room's creator only: the live tally of the current quiz (null: none, or not the creator). */
  toolsPrivate: quizTallySchema.nullable(),
  /** The room's creator only: the live counts of the current poll (null: none, or not the creator). */
  pollPrivate: pollTallySchema.nullable(),
  /** Students only (null for the creator, observers and the recorder). */
  myAnswers: myAnswersSchema.nullable(),
};

export const quizStartSchema = z
  .strictObject({
    options: whole(QUIZ_MIN_OPTIONS, QUIZ_MAX_OPTIONS),
    multiple: z.boolean(),
    correct: quizChoiceSchema,
    limitSeconds: whole(0, QUIZ_MAX_SECONDS),
    showOwn: z.boolean(),
  })
  .refine((q) => q.correct.every((l) => QUIZ_LETTERS.indexOf(l) < q.options), 'correct letter outside the options')
  .refine((q) => q.multiple || q.correct.length === 1, 'single choice has one correct letter');

const quizIdPayload = z.strictObject({ id: toolIdSchema });

export const rewardPayloadSchema = z.union([
  z.strictObject({
    userIds: z
      .array(z.string().regex(/^\d{1,18}$/))
      .min(1)
      .max(500),
  }),
  z.strictObject({ quizRight: toolIdSchema }),
]);

const withTime = classToolsSchema.extend({ serverTime: z.number() });

/** Room channel, browser -> server (acked {code,msg,data}; creator only unless said). */
export const classToolsRoomRequests = {
  quizStart: call(quizStartSchema, quizPublicSchema),
  /** Students (member, tourist): may change until collected or past endsAt; counted once per person. */
  quizAnswer: call(z.strictObject({ id: toolIdSchema, choice: quizChoiceSchema }), z.strictObject({ choice: z.array(quizLetterSchema) })),
  quizCollect: call(quizIdPayload, quizPublicSchema),
  quizPublish: call(quizIdPayload, quizPublicSchema),
  /** Removes it from the screens (its answers stay with the class). */
  quizClose: call(quizIdPayload, z.null()),
  pollStart: call(
    z.strictObject({ anonymous: z.boolean(), questions: z.array(pollQuestionSchema).min(1).max(POLL_MAX_QUESTIONS) }),
    pollPublicSchema,
  ),
  /** Students: one vote per person, not changeable. */
  pollVote: call(
    z.strictObject({ id: toolIdSchema, answers: pollAnswersSchema }),
    z.strictObject({ answers: z.array(z.array(z.number())) }),
  ),
  pollClose: call(quizIdPayload, pollPublicSchema),
  pollPublish: call(quizIdPayload, pollPublicSchema),
  pollDismiss: call(quizIdPayload, z.null()),
  timerSet: call(z.strictObject({ kind: timerKindSchema, durationMs: whole(0, TIMER_MAX_MS) }), timerPublicSchema),
  timerStart: call(noPayload, timerPublicSchema),
  timerPause: call(noPayload, timerPublicSchema),
  timerReset: call(noPayload, timerPublicSchema),
  timerClear: call(noPayload, z.null()),
  /** A new round (the previous winner is cleared). */
  buzzerOpen: call(noPayload, buzzerPublicSchema),
  /** Students: the first press of the round to reach the server wins. */
  buzzerPress: call(z.strictObject({ round: whole(1, 1_000_000_000) }), buzzerPublicSchema),
  buzzerClose: call(noPayload, z.null()),
  /** Uniform among the students online now. */
  pickRandom: call(noPayload, personAtSchema),
  /** To the users named, or to everyone who answered the quiz right. */
  reward: call(rewardPayloadSchema, z.strictObject({ rewards: z.record(z.string(), z.number()) })),
};

/** Room channel, server -> browser. */
export const classToolsRoomEvents = {
  /** The whole public state after any change, to everyone in the room. */
  tools: withTime,
  /** The room's creator only (their seat key), coalesced per QUIZ_TALLY_COALESCE_MS. */
  quizTally: quizTallySchema,
  /** The room's creator only, coalesced like quizTally. */
  pollTally: pollTallySchema,
  /** Trophies given now (the animation); the counts are in `tools.rewards`. */
  rewarded: z.strictObject({ userIds: z.array(z.string()), names: z.array(z.string()), by: z.string(), at: z.number() }),
};
