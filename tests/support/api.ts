/** A small client for the /api contract, for integration tests and benchmarks. */
import type { ApiData, ApiName, Envelope } from '#core/contracts/api.ts';
import type { TestServer } from './server.ts';

export interface CallOptions {
  token?: string;
  cookie?: string;
  lang?: string;
  form?: boolean;
  requestId?: string;
  headers?: Record<string, string>;
}

/**
 * A test's view of an answer: `data` is what the contract says a '0' answer carries. A test checks
 * the code before it reads the data; a refusal carries null (reading it fails the test).
 */
export interface CallResult<T = unknown> extends Omit<Envelope<T>, 'data'> {
  data: T;
  status: number;
  setCookie: string | null;
}

/**
 * Calls /api/<name>. Typed by the API contract (core/contracts/api.ts) when `name` is one of its
 * calls; the body is sent as given (a test may send what the contract refuses, or a form).
 */
export async function call<N extends ApiName>(baseUrl: string, name: N, body?: unknown, o?: CallOptions): Promise<CallResult<ApiData<N>>>;
/** A name outside the contract (a probe of the router), or an answer the test types itself. */
export async function call<T = unknown>(baseUrl: string, name: string, body?: unknown, o?: CallOptions): Promise<CallResult<T>>;
export async function call(baseUrl: string, name: string, body: unknown = {}, o: CallOptions = {}): Promise<CallResult<unknown>> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.token) headers['token'] = o.token;
  if (o.cookie) headers['cookie'] = o.cookie;
  if (o.lang) headers['lang'] = o.lang;
  let payload: string;
  if (o.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    payload = new URLSearchParams(body as Record<string, string>).toString();
  } else {
    headers['content-type'] = 'application/json';
    payload = typeof body === 'string' ? body : JSON.stringify(body);
  }
  const qs = o.requestId ? `?requestId=${encodeURIComponent(o.requestId)}&ua=web` : '?ua=web';
  const res = await fetch(`${baseUrl}/api/${name}${qs}`, { method: 'POST', headers, body: payload });
  const text = await res.text();
  let env: Envelope<unknown>;
  try {
    env = JSON.parse(text) as Envelope<unknown>;
  } catch {
    throw new Error(`not an envelope (HTTP ${res.status}): ${text.slice(0, 200)}`);
  }
  return { ...env, data: env.data, status: res.status, setCookie: res.headers.get('set-cookie') };
}

let mobileSeq = 0;
/** A distinct valid mobile number per call within a test process. */
export function nextMobile(): string {
  mobileSeq += 1;
  return `139${String(process.pid % 10000).padStart(4, '0')}${String(mobileSeq).padStart(4, '0')}`;
}

/** Sends a code, reads it from the dev outbox and signs in; returns the user token and id. */
export async function signIn(server: TestServer, mobile = nextMobile()): Promise<{ token: string; userId: string; mobile: string }> {
  const sent = await call(server.url, 'sendPhoneCode', { mobile, area: '86' });
  if (sent.code !== '0') throw new Error(`sendPhoneCode failed: ${sent.code} ${sent.msg}`);
  const code = (await server.outbox()).find((m) => m.mobile === mobile)?.code;
  if (!code) throw new Error('no code in the outbox');
  const login = await call(server.url, 'loginUser', { mobile, code });
  if (login.code !== '0' || !login.data) throw new Error(`loginUser failed: ${login.code} ${login.msg}`);
  return { token: login.data.userInfo.userToken, userId: login.data.userInfo.userId, mobile };
}
