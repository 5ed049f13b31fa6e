import { z } from 'zod';

/** Length rules are the service's (after white space is collapsed); this only bounds the input. */
export const feedbackInput = z.object({ content: z.string().max(1000), code: z.string().max(16) });

/** The most events one batch may carry, and the longest stored text of one event (ADR 102). */
export const LOG_BATCH_MAX_EVENTS = 20;
export const LOG_MESSAGE_MAX = 4000;
/** Event names: snake case, like the spec's `system_info`, `check_devices`. */
export const LOG_EVENT_NAME = /^[a-z][a-z0-9_]{0,39}$/;

const short = (max: number) => z.string().max(max);
const minutes = z.number().finite().min(0).max(100_000);
const deviceResult = z.enum(['ok', 'off', 'pending', 'missing', 'denied', 'busy', 'error']);

/**
 * The details of the events the product emits (docs/product/01 §7, 02 §7), parsed by name; an
 * event with another name (an older client's, or one added later) must still be a small flat
 * object of plain values.
 */
export const clientEventDetails = {
  system_info: z.strictObject({
    browser: short(80),
    os: short(80),
    screen: short(40),
    language: short(40),
    iMei: short(64),
    phone: z.boolean(),
    userAgent: short(400).optional(),
    role: short(20).optional(),
  }),
  check_devices: z.strictObject({
    source: z.enum(['prejoin', 'device_check']),
    camera: deviceResult,
    microphone: deviceResult,
    speaker: deviceResult.optional(),
    cameraLabel: short(120).optional(),
    microphoneLabel: short(120).optional(),
  }),
  socket_disconnect: z.strictObject({ reason: short(200) }),
  socket_reconnect: z.strictObject({ offlineMs: z.number().int().min(0).max(86_400_000), attempts: z.number().int().min(0).max(10_000) }),
  client_error: z.strictObject({
    kind: z.enum(['error', 'unhandledrejection']),
    message: short(500),
    source: short(300).optional(),
    line: z.number().int().min(0).optional(),
  }),
  media_minutes: z.strictObject({ audioMinutes: minutes, videoMinutes: minutes }),
  /** A server message a channel dropped for breaking its schema (core/channel/open.ts, ADR 108). */
  channel_bad_message: z.strictObject({
    channel: short(20),
    kind: z.enum(['answer', 'event']),
    name: short(40),
    issue: short(200),
  }),
} as const;

const plain = z.union([z.string().max(1000), z.number().finite(), z.boolean(), z.null()]);
const otherDetails = z.record(z.string().max(40), z.union([plain, z.array(plain).max(20)])).refine((v) => Object.keys(v).length <= 30);

const clientEvent = z
  .strictObject({
    event: z.string().regex(LOG_EVENT_NAME),
    /** When the browser saw it (ms since the epoch); kept beside the details, the row's time is the server's. */
    at: z.number().int().min(0).max(8_640_000_000_000_000).optional(),
    details: z.record(z.string(), z.unknown()).default({}),
  })
  .transform((e, ctx) => {
    const known = Object.hasOwn(clientEventDetails, e.event) ? clientEventDetails[e.event as keyof typeof clientEventDetails] : null;
    const details = (known ?? otherDetails).safeParse(e.details);
    if (!details.success) {
      ctx.addIssue({ code: 'custom', message: `details of ${e.event} do not match its schema`, path: ['details'] });
      return z.NEVER;
    }
    const message = JSON.stringify(e.at === undefined ? details.data : { ...details.data, clientAt: e.at });
    if (message.length > LOG_MESSAGE_MAX) {
      ctx.addIssue({ code: 'custom', message: `an event's details are at most ${LOG_MESSAGE_MAX} characters`, path: ['details'] });
      return z.NEVER;
    }
    return { socketType: e.event, message };
  });

/** Digits of a room number, or empty (an event outside a room). */
const roomNumberText = z
  .union([z.string().max(64), z.number()])
  .transform((v) => String(v).trim())
  .optional();

/** A form body carries the batch's events as JSON text; a JSON body as an array. */
const eventList = z.preprocess((v): unknown => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}, z.array(clientEvent).min(1).max(LOG_BATCH_MAX_EVENTS));

/** A batch (ADR 102): one room, up to LOG_BATCH_MAX_EVENTS events, each parsed by its name's schema; all stored or none. */
const batchInput = z.strictObject({ roomNumber: roomNumberText, events: eventList }).transform((b) => ({
  roomNumber: b.roomNumber ?? '',
  events: b.events,
}));

/** The spec's single event: a structured message is kept as its JSON text; other keys are ignored. */
const singleInput = z
  .object({
    socketType: z.string().max(200).optional(),
    roomNumber: roomNumberText,
    message: z
      .union([z.string().max(20_000), z.record(z.string(), z.unknown())])
      .transform((v) => (typeof v === 'string' ? v : JSON.stringify(v)))
      .optional(),
  })
  .loose()
  .refine((v) => !('events' in v), 'a body with events is a batch')
  .transform((v) => ({
    roomNumber: v.roomNumber ?? '',
    events: [{ socketType: v.socketType ?? '', message: (v.message ?? '').slice(0, LOG_MESSAGE_MAX) }],
  }));

/** A client event (`/api/addLog` and `POST /log`): the spec's single event, or a batch of them (ADR 102). */
export const addLogInput = z.union([batchInput, singleInput]);
export type ClientLog = z.output<typeof addLogInput>;

/** The landing page's trial form (form fields; a missing field reads as empty, the service applies the rules). */
export const trialInput = z.object({
  name: z.string().max(400).default(''),
  mobile: z.string().max(200).default(''),
  organisation: z.string().max(800).default(''),
  message: z.string().max(5000).default(''),
});
