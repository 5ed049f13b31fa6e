/**
 * The end-to-end pieces for a cluster (infra/cluster/cluster.ts): Chromium contexts that reach the
 * product through nginx, pinned to one web node by the pin cookie, signing in with the code the
 * web node that sent it wrote to its log, and what nginx's access log says about who was served where.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Cluster } from '../../infra/cluster/cluster.ts';
import { autoPassPreJoin, CHROMIUM_ARGS, chromiumPath, newMobile, open, watchCsp } from './helpers.ts';

export interface ClusterPerson {
  context: BrowserContext;
  page: Page;
  /** The web node the pin cookie names. */
  pin: string;
  /** Every WebSocket the person's pages opened (room channel, board, media), by URL. */
  sockets: string[];
  /** The X-Banshu-Node header of every answer from nginx. */
  servedBy: string[];
}

export interface ClusterWorld {
  cluster: Cluster;
  browser: Browser;
  cspViolations: string[];
  person(pin: string): Promise<ClusterPerson>;
  close(): Promise<void>;
}

export async function startClusterWorld(
  cluster: Cluster,
  options: { clientNice?: number; chromiumArgs?: string[] } = {},
): Promise<ClusterWorld> {
  const browser = await chromium.launch({
    executablePath: chromiumPath(options.clientNice),
    args: [...CHROMIUM_ARGS, ...(options.chromiumArgs ?? [])],
  });
  const contexts: BrowserContext[] = [];
  const cspViolations: string[] = [];
  return {
    cluster,
    browser,
    cspViolations,
    async person(pin) {
      const context = await browser.newContext({ baseURL: cluster.url, viewport: { width: 1280, height: 720 }, locale: 'zh-CN' });
      context.setDefaultTimeout(20_000);
      contexts.push(context);
      const cookie = cluster.pinCookie(pin);
      await context.addCookies([{ ...cookie, url: cluster.url }]);
      await watchCsp(context, cspViolations);
      await autoPassPreJoin(context);
      const page = await context.newPage();
      const sockets: string[] = [];
      const servedBy: string[] = [];
      context.on('page', (p) => p.on('websocket', (ws) => sockets.push(ws.url())));
      page.on('websocket', (ws) => sockets.push(ws.url()));
      context.on('response', (res) => {
        const node = res.headers()['x-banshu-node'];
        if (node && res.url().startsWith(cluster.url)) servedBy.push(node);
      });
      return { context, page, pin, sockets, servedBy };
    },
    async close() {
      await Promise.allSettled(contexts.map((c) => c.close()));
      await browser.close();
      expect(cspViolations, 'Content-Security-Policy violations').toEqual([]);
    },
  };
}

/** The newest sign-in code for `mobile` in any web node's log (ConsoleSmsSender), with the node that sent it. */
export async function codeFromLogs(cluster: Cluster, mobile: string): Promise<{ code: string; node: string } | null> {
  let found: { code: string; node: string; time: number } | null = null;
  for (const node of cluster.nodes.filter((n) => n.role === 'web')) {
    const text = await readFile(node.logPath, 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      if (!line.includes('"smsCode"')) continue;
      try {
        const entry = JSON.parse(line) as { mobile?: string; smsCode?: string; time?: number };
        if (entry.mobile === mobile && entry.smsCode && (!found || (entry.time ?? 0) >= found.time))
          found = { code: entry.smsCode, node: node.name, time: entry.time ?? 0 };
      } catch {
        // a partial line
      }
    }
  }
  return found && { code: found.code, node: found.node };
}

/** Signs in through nginx; resolves with the mobile and the web node that sent the code. */
export async function clusterSignIn(cluster: Cluster, page: Page): Promise<{ mobile: string; sentBy: string }> {
  const mobile = newMobile();
  await open(page, '/login');
  await page.getByLabel(/手机号|Phone number/).fill(mobile);
  await page.getByRole('button', { name: /获取验证码|Get code/ }).click();
  await page.getByRole('button', { name: /秒后重新获取|Get again in/ }).waitFor();
  let sent: { code: string; node: string } | null = null;
  await expect
    .poll(
      async () => {
        sent = await codeFromLogs(cluster, mobile);
        return sent !== null;
      },
      { timeout: 10_000 },
    )
    .toBe(true);
  await page.getByLabel(/^验证码$|^Code$/).fill(sent!.code);
  await page.getByRole('button', { name: /^登录$|^Sign in$/ }).click();
  await page.waitForURL((url) => url.pathname !== '/login');
  return { mobile, sentBy: sent!.node };
}

export interface AccessLine {
  request: string;
  status: number;
  pin: string;
  node: string;
}

/** nginx's access log of the cluster (its `banshu` format): each request, the pin it carried and the node that answered. */
export async function accessLog(cluster: Cluster): Promise<AccessLine[]> {
  const text = await readFile(path.join(cluster.dir, 'nginx-access.log'), 'utf8').catch(() => '');
  const out: AccessLine[] = [];
  for (const line of text.split('\n')) {
    const m = /"([^"]*)" (\d{3}) pin=(\S*) upstream=.* node=(\S*)$/.exec(line);
    if (m) out.push({ request: m[1]!, status: Number(m[2]), pin: m[3]!, node: m[4]! });
  }
  return out;
}
