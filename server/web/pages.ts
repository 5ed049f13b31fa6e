/**
 * The pages (React Router) on Express, with one gate in front of every page action (ADR 098).
 *
 * A page action reads its form with `request.formData()`; a body that cannot be read (a truncated
 * multipart, a wrong content type, a charset other than UTF-8, bytes that are not UTF-8, a body
 * larger than any form of ours) used to throw inside the action and answer 500. Here the body of
 * every non-GET page request is read once, bounded, and checked before any route runs: a body the
 * pages cannot read gets a 4xx with a plain sentence and no route sees it, so nothing is written.
 * A body that passes is handed to React Router from memory.
 */
import type { NextFunction, Request, Response } from 'express';
import { writeReadableStreamToWritable } from '@react-router/node';
import { createRequestHandler, type RouterContextProvider, type ServerBuild } from 'react-router';

/** The largest page form: the trial form and the operators' announcement are a few kilobytes. */
export const PAGE_BODY_LIMIT = 64 * 1024;

const FORM_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data']);
const UTF8 = new Set(['utf-8', 'utf8']);
const BODYLESS = new Set(['GET', 'HEAD']);

export type PageBodyVerdict = { ok: true; body: Buffer | null } | { ok: false; status: 400 | 413 | 415; text: string };

const refused = (status: 400 | 413 | 415, text: string): PageBodyVerdict => ({ ok: false, status, text });

interface MediaType {
  type: string;
  params: Map<string, string>;
}

function parseContentType(header: string | undefined): MediaType | null {
  if (!header) return null;
  const [type = '', ...rest] = header.split(';');
  const params = new Map<string, string>();
  for (const part of rest) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const value = part
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    params.set(part.slice(0, eq).trim().toLowerCase(), value);
  }
  return { type: type.trim().toLowerCase(), params };
}

/** Every key and value of a form-encoded body decodes as UTF-8 (URLSearchParams would silently put U+FFFD in). */
function isUtf8Form(body: Buffer): boolean {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    for (const pair of text.split('&')) for (const part of pair.split('=')) decodeURIComponent(part.replace(/\+/g, ' '));
    return true;
  } catch {
    return false;
  }
}

/** Reads at most `limit` bytes of the request; 'too-large' as soon as it passes, 'broken' when the client stops sending. */
function readBounded(req: Request, limit: number): Promise<Buffer | 'too-large' | 'broken'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (value: Buffer | 'too-large' | 'broken') => {
      if (done) return;
      done = true;
      req.off('data', onData);
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.resume(); // drain the rest; the answer closes the connection
        finish('too-large');
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => finish(Buffer.concat(chunks)));
    req.once('aborted', () => finish('broken'));
    req.once('error', () => finish('broken'));
  });
}

/** Reads and checks the body of a page request (exported for the unit test). */
export async function checkPageBody(req: Request, limit = PAGE_BODY_LIMIT): Promise<PageBodyVerdict> {
  if (BODYLESS.has(req.method)) return { ok: true, body: null };
  const declared = req.headers['content-length'];
  // Even an empty POST: an action's formData() throws without a form content type.
  const media = parseContentType(req.headers['content-type']);
  if (!media || !FORM_TYPES.has(media.type)) {
    return refused(415, 'Unsupported content type: page forms are application/x-www-form-urlencoded or multipart/form-data');
  }
  const charset = media.params.get('charset');
  if (charset !== undefined && !UTF8.has(charset.toLowerCase())) return refused(415, 'Unsupported charset: page forms are UTF-8');
  if (media.type === 'multipart/form-data' && !media.params.get('boundary'))
    return refused(400, 'Malformed form body: no multipart boundary');
  if (declared !== undefined && Number(declared) > limit) return refused(413, 'Form body too large');
  const body = await readBounded(req, limit);
  if (body === 'too-large') return refused(413, 'Form body too large');
  if (body === 'broken') return refused(400, 'Malformed form body: the request ended early');
  if (media.type === 'application/x-www-form-urlencoded') {
    return isUtf8Form(body) ? { ok: true, body } : refused(400, 'Malformed form body: not UTF-8');
  }
  try {
    // The same reader the actions use: a truncated or garbled multipart fails here, not in a route.
    await new globalThis.Response(new Uint8Array(body), { headers: { 'content-type': req.headers['content-type']! } }).formData();
  } catch {
    return refused(400, 'Malformed form body: the multipart body is cut short or garbled');
  }
  return { ok: true, body };
}

function pageRequest(req: Request, res: Response, body: Buffer | null): globalThis.Request {
  const url = new URL(req.originalUrl, `${req.protocol}://${req.host || 'localhost'}`);
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(key, v);
    else headers.set(key, value);
  }
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const init: RequestInit & { duplex?: 'half' } = { method: req.method, headers, signal: controller.signal };
  if (body) {
    init.body = new Uint8Array(body);
    init.duplex = 'half';
  }
  return new globalThis.Request(url.href, init);
}

async function sendPage(res: Response, answer: globalThis.Response): Promise<void> {
  if (res.destroyed || res.writableEnded) {
    await answer.body?.cancel();
    return;
  }
  res.statusMessage = answer.statusText;
  res.status(answer.status);
  for (const [key, value] of answer.headers.entries()) res.append(key, value);
  if (/text\/event-stream/i.test(answer.headers.get('content-type') ?? '')) res.flushHeaders();
  if (!answer.body) {
    res.end();
    return;
  }
  try {
    await writeReadableStreamToWritable(answer.body, res);
  } catch (error) {
    if (!(res.destroyed || res.writableEnded)) throw error;
  }
}

export interface PageHandlerOptions {
  build: ServerBuild | (() => Promise<ServerBuild>);
  getLoadContext: (req: Request, res: Response) => Promise<RouterContextProvider>;
  mode: string;
}

/** Express handler for the pages: the body gate, then React Router. */
export function createPageHandler({ build, getLoadContext, mode }: PageHandlerOptions) {
  let handle: ReturnType<typeof createRequestHandler> | null = null;
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      const verdict = await checkPageBody(req);
      if (!verdict.ok) {
        req.resume();
        res.status(verdict.status).set('Connection', 'close').set('Cache-Control', 'no-store').type('text/plain').send(verdict.text);
        return;
      }
      // Development reloads the build on every request (Vite); production builds the handler once.
      const handler =
        typeof build === 'function' ? createRequestHandler(await build(), mode) : (handle ??= createRequestHandler(build, mode));
      await sendPage(res, await handler(pageRequest(req, res, verdict.body), await getLoadContext(req, res)));
    } catch (error) {
      next(error);
    }
  };
}
