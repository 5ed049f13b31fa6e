/** A small client for the /api contract, for integration tests and benchmarks. */
import type { Envelope } from '#core/contracts/api.ts';
import type { TestServer } from './server.ts';

export interface CallOptions {
  token?: string;
  cookie?: string;
  lang?: string;
  form?: boolean;
  requestId?: string;
  headers?: Record<string, string>;
}

export interface CallResult<T = unknown> extends Envelope<T> {
  status: number;
  setCookie: string | null;
}

export async function call<T = any>(baseUrl: string, name: string, body: unknown = {}, o: CallOptions = {}): Promise<CallResult<T>> {
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
  let env: Envelope<T>;
  try {
    env = JSON.parse(text) as Envelope<T>;
  } catch {
    throw new Error(`not an envelope (HTTP ${res.status}): ${text.slice(0, 200)}`);
  }
  return { ...env, status: res.status, setCookie: res.headers.get('set-cookie') };
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
  const login = await call<{ userInfo: { userToken: string; userId: string } }>(server.url, 'loginUser', { mobile, code });
  if (login.code !== '0' || !login.data) throw new Error(`loginUser failed: ${login.code} ${login.msg}`);
  return { token: login.data.userInfo.userToken, userId: login.data.userInfo.userId, mobile };
}
