/**
 * Shared pieces of the end-to-end suite: one Banshu per test file (fresh database, built pages),
 * Debian Chromium through playwright-core, one browser context per person.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Logger } from '#core/platform/logger.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  // Camera and microphone for the classroom's media: Chromium's fake devices, allowed without a prompt.
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
  '--allow-loopback-in-peer-connection',
  '--disable-features=WebRtcHideLocalIpsWithMdns',
];

export const UA = {
  iphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  oldChrome: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/60.0.3112.113 Safari/537.36',
  firefox: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0',
};

export interface World {
  server: TestServer;
  browser: Browser;
  /** Content-Security-Policy violations reported by any page so far; `close` fails when there is one. */
  cspViolations: string[];
  /**
   * A new person: their own cookies and storage. Their pages pass the classroom's pre-join with its
   * Join as they find it (ADR 089), unless `preJoin: 'manual'` (the pre-join's own tests).
   */
  person(options?: BrowserContextOptions, extra?: { preJoin?: 'auto' | 'manual' }): Promise<{ context: BrowserContext; page: Page }>;
  close(): Promise<void>;
}

/**
 * Debian's Chromium, or (with `nice` > 0) a wrapper that starts it at that lower priority. The
 * clients of a class run on their own computers; here they share two cores with the server under
 * test, and a real-time test (the recording) lets the server go first, as on separate machines.
 * Run as root, Chromium raises some of its processes to nice -8 itself (its display and audio
 * work), above the server: the wrapper takes that right (CAP_SYS_NICE) away from it, and lowers
 * the browser's scheduling group too (ADR 082).
 */
export function chromiumPath(nice = 0): string {
  if (nice <= 0) return '/usr/bin/chromium';
  const wrapper = path.join(tmpdir(), `banshu-chromium-nice-${String(nice)}.sh`);
  // exec keeps the pid, so Playwright stops the browser itself.
  const drop = process.getuid?.() === 0 ? 'setpriv --bounding-set -sys_nice ' : '';
  // Playwright starts the browser in a session of its own, and with the kernel's autogroup
  // scheduling a session is weighed as one against the server's: its nice value is what counts.
  const group = `echo ${String(nice)} > /proc/self/autogroup 2>/dev/null\n`;
  writeFileSync(wrapper, `#!/bin/sh\n${group}exec ${drop}nice -n ${String(nice)} /usr/bin/chromium "$@"\n`, { mode: 0o755 });
  return wrapper;
}

/** `jobs`: the server works its job queue (conversions run); off by default, as most tests need no worker. */
/**
 * `realTime`: the server's clock moves with real time (recordings); `chromiumArgs`: more switches,
 * e.g. the fake camera and microphone files of tests/support/av-fixtures.ts.
 */
/** The console line of a dropped channel message (app/lib/client-log.ts channelLog). */
const CHANNEL_DROP = /^(room|board|user|media) (answer|event) \S+ dropped: /;

/** The test build the e2e servers serve: the production build with the window hooks (tests/e2e/global-build.ts, ADR 110). */
export const E2E_BUILD_DIR = path.resolve('build-e2e');

export async function startWorld(
  options: {
    env?: Record<string, string>;
    jobs?: boolean;
    realTime?: boolean;
    chromiumArgs?: string[];
    clientNice?: number;
    /** The server's logger (a test that reads what was logged). */
    logger?: Logger;
  } = {},
): Promise<World> {
  const [server, browser] = await Promise.all([
    startTestServer({
      pages: true,
      buildDir: E2E_BUILD_DIR,
      ...(options.env ? { env: options.env } : {}),
      ...(options.jobs ? { overrides: { jobs: true } } : {}),
      ...(options.realTime ? { realTime: true } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    }),
    chromium.launch({ executablePath: chromiumPath(options.clientNice), args: [...CHROMIUM_ARGS, ...(options.chromiumArgs ?? [])] }),
  ]);
  const contexts: BrowserContext[] = [];
  const cspViolations: string[] = [];
  /** Server messages a page's channel dropped for breaking their schema (ADR 108): the server and the contract disagree. */
  const channelDrops: string[] = [];
  return {
    server,
    browser,
    cspViolations,
    async person(options = {}, extra = {}) {
      const context = await browser.newContext({
        baseURL: server.url,
        viewport: { width: 1280, height: 720 },
        locale: 'zh-CN',
        ...options,
      });
      context.setDefaultTimeout(10_000);
      contexts.push(context);
      await watchCsp(context, cspViolations);
      context.on('console', (msg) => {
        if (msg.type() === 'warning' && CHANNEL_DROP.test(msg.text())) channelDrops.push(`${msg.page()?.url() ?? ''}: ${msg.text()}`);
      });
      if (extra.preJoin !== 'manual') await autoPassPreJoin(context);
      const page = await context.newPage();
      return { context, page };
    },
    async close() {
      await Promise.allSettled(contexts.map((c) => c.close()));
      await browser.close();
      await server.close();
      // Every page of the suite runs under the site's Content-Security-Policy (ADR 067).
      expect(cspViolations, 'Content-Security-Policy violations').toEqual([]);
      expect(channelDrops, 'server messages that broke their schema (core/channel/open.ts)').toEqual([]);
    },
  };
}

/**
 * Records every Content-Security-Policy violation of the context's pages: the browser's
 * `securitypolicyviolation` event (reported through a binding) and its console line ('Refused to ...').
 */
export async function watchCsp(context: BrowserContext, into: string[]): Promise<void> {
  await context.exposeBinding('__banshuCspViolation', ({ page }, text: string) => {
    into.push(`${page.url()}: ${text}`);
  });
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      const report = (window as unknown as { __banshuCspViolation?: (t: string) => void }).__banshuCspViolation;
      report?.(`${e.effectiveDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
  context.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy/.test(msg.text())) into.push(`${msg.page()?.url() ?? ''}: ${msg.text()}`);
  });
}

/**
 * One click on the pre-join's Join whenever a classroom shows it (ADR 089), so the suites that
 * enter rooms keep testing the room with the remembered (default: on) camera and microphone. A
 * visitor's pre-join, which asks for a name, is left to the test.
 */
export async function autoPassPreJoin(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const tryJoin = () => {
      if (document.documentElement.dataset['hydrated'] !== 'true') return;
      const root = document.querySelector('[data-testid="prejoin"][data-ready="true"]');
      if (!root || root.hasAttribute('data-auto-passed') || root.querySelector('#visitor-name')) return;
      const join = root.querySelector<HTMLButtonElement>('[data-testid="prejoin-join"]');
      if (!join || join.disabled) return;
      root.setAttribute('data-auto-passed', 'true');
      join.click();
    };
    new MutationObserver(tryJoin).observe(document, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-ready', 'data-hydrated'],
    });
  });
}

/** The pre-join is showing: press its Join (for a context made with `preJoin: 'manual'`). */
export async function passPreJoin(page: Page): Promise<void> {
  const prejoin = page.locator('[data-testid="prejoin"][data-ready="true"]');
  await prejoin.waitFor();
  await prejoin.getByTestId('prejoin-join').click();
  await prejoin.waitFor({ state: 'detached' });
}

let mobileSeq = 0;
/** A fresh valid mobile number per call (docs/product/decisions.md: ^1[3-9]\d{9}$). */
export function newMobile(): string {
  mobileSeq += 1;
  const tail = String(Date.now() % 1_000_000).padStart(6, '0') + String(mobileSeq).padStart(3, '0');
  return `139${tail.slice(-8)}`;
}

/** Opens a path and waits until React has hydrated it (clicks before that would be lost). */
export async function open(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await page.locator('html[data-hydrated="true"]').waitFor({ state: 'attached' });
}

/** The path of the page now showing, with its query. */
export function pathOf(page: Page): string {
  const url = new URL(page.url());
  return url.pathname + url.search;
}

export async function waitForPath(page: Page, test: RegExp | string): Promise<void> {
  await page.waitForURL((url) => (typeof test === 'string' ? url.pathname + url.search === test : test.test(url.pathname + url.search)));
}

/** Waits for a toast containing `text` to be visible. */
export async function expectToast(page: Page, text: string | RegExp): Promise<void> {
  await page.getByTestId('toast').filter({ hasText: text }).first().waitFor({ state: 'visible' });
}

/** Signs in on the login page already open, reading the code from the dev outbox. */
export async function signInHere(page: Page, server: TestServer, mobile: string): Promise<void> {
  await page.getByLabel(/手机号|Phone number/).fill(mobile);
  await page.getByRole('button', { name: /获取验证码|Get code/ }).click();
  await page.getByRole('button', { name: /秒后重新获取|Get again in/ }).waitFor();
  const sent = (await server.outbox()).find((m) => m.mobile === mobile);
  expect(sent, `a code for ${mobile} in the outbox`).toBeTruthy();
  await page.getByLabel(/^验证码$|^Code$/).fill(sent!.code);
  await page.getByRole('button', { name: /^登录$|^Sign in$/ }).click();
  await page.waitForURL((url) => url.pathname !== '/login');
}

export async function signIn(page: Page, server: TestServer, mobile = newMobile()): Promise<string> {
  await open(page, '/login');
  await signInHere(page, server, mobile);
  return mobile;
}

/**
 * From the lobby: 'create classroom' (the room's pre-join is the device step, ADR 089; a lobby check is skipped if shown),
 * then the room-type picker.
 */
export async function openPicker(page: Page): Promise<void> {
  await page.getByTestId('open-picker').click();
  const skip = page.getByTestId('device-check-skip');
  await page.getByTestId('room-type-picker').or(skip).first().waitFor();
  if (await skip.isVisible()) await skip.click();
  await page.getByTestId('room-type-picker').waitFor();
}

/** From the lobby: open the picker and create the given card; resolves with the room number. */
export async function createRoom(page: Page, card: 'freeMini' | 'whiteboard' | 'audio' | 'large'): Promise<string> {
  await open(page, '/');
  await openPicker(page);
  await page.getByTestId(`create-${card}`).click();
  await page.waitForURL((url) => /^\/(?:bb\/|record\/|live\/)?\d{6}$/.test(url.pathname));
  await page.getByTestId('room-number').waitFor();
  return (await page.getByTestId('room-number').innerText()).trim();
}

/** From the lobby: type a number in the join box and press Enter. */
export async function joinByNumber(page: Page, roomNumber: string): Promise<void> {
  await open(page, '/');
  const box = page.getByLabel(/教室号|Classroom number/);
  await box.fill(roomNumber);
  await box.press('Enter');
}
