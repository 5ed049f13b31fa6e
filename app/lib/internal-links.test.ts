/**
 * Every address inside the site that the app links or navigates to opens a page (ADR 103): the
 * classroom's 'Use Chrome' once linked to `/download`, which no route answered. The source of app/
 * is read for `href`/`to` attributes, `navigate(...)` and `redirect(...)` calls and `*_PATH` /
 * `*_ADDRESS` constants; each address (a `${...}` segment stands for a room number) must match a route
 * of app/routes.ts other than the not-found catch-all, and the navigation guard must not call it
 * not found (a single segment is taken for a room number).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { matchRoutes, type RouteObject } from 'react-router';
import { describe, expect, it } from 'vitest';
import routes from '../routes.ts';
import { guard, routeOf } from './guard.ts';

const APP = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

type Entry = { path?: string; index?: boolean; file: string; children?: Entry[] };
const toObjects = (entries: Entry[]): RouteObject[] =>
  entries.map((e) => (e.index ? { index: true, id: e.file } : { path: e.path ?? '', id: e.file, children: toObjects(e.children ?? []) }));
const ROUTES = toObjects(routes);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return name === '+types' ? [] : sources(file);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [file] : [];
  });
}

const QUOTED = String.raw`(?:'(\/[^'\s]*)'|"(\/[^"\s]*)"|\x60(\/[^\x60\s]*)\x60)`;
const PATTERNS = [
  new RegExp(String.raw`\b(?:href|to)=\{?${QUOTED}`, 'g'),
  new RegExp(String.raw`\b(?:navigate|redirect)\(\s*${QUOTED}`, 'g'),
  new RegExp(String.raw`\b[A-Z][A-Z_]*_(?:PATH|ADDRESS)\s*=\s*${QUOTED}`, 'g'),
];

/** Each internal address found in app/, with where it was found. */
function internalLinks(): Array<{ where: string; address: string }> {
  const found: Array<{ where: string; address: string }> = [];
  for (const file of sources(APP)) {
    const text = readFileSync(file, 'utf8');
    for (const pattern of PATTERNS) {
      for (const m of text.matchAll(pattern)) {
        const raw = m[1] ?? m[2] ?? m[3] ?? '';
        if (raw.startsWith('//') || raw.startsWith('/api/')) continue; // another site; the JSON API
        const line = text.slice(0, m.index).split('\n').length;
        found.push({ where: `${path.relative(APP, file)}:${String(line)}`, address: raw });
      }
    }
  }
  return found;
}

/** Why this address opens no page, or null when it does. */
function problem(address: string): string | null {
  // A `${...}` segment of its own is a room number; one glued to the end is a query or a fragment.
  const sample = address.replace(/\/\$\{[^}]*\}/g, '/123456').replace(/\$\{[^}]*\}/g, '');
  const url = new URL(sample, 'http://site.test');
  const leaf = matchRoutes(ROUTES, url.pathname)?.at(-1)?.route;
  if (!leaf || leaf.path === '*') return 'no route';
  if (routeOf(url.pathname) === null) return 'the guard knows no such route';
  const viewer = { userId: 'u1', type: '1' as const };
  if (guard({ pathname: url.pathname, search: url.searchParams, userAgent: CHROME, viewer }) === 'not-found') return 'not found';
  return null;
}

describe('internal links', () => {
  const links = internalLinks();

  it('finds the links of the app (the scan itself works)', () => {
    const addresses = new Set(links.map((l) => l.address));
    for (const known of ['/profile/payment', '/download/pc', '/home', '/createDemo']) expect(addresses).toContain(known);
    expect(links.length).toBeGreaterThan(40);
  });

  it('every one opens a page', () => {
    const broken = links.flatMap(({ where, address }) => {
      const why = problem(address);
      return why ? [`${where} ${address}: ${why}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it('tells a missing page from a real one', () => {
    expect(problem('/no/such/page')).toBe('no route');
    expect(problem('/profile/nothing')).toBe('no route');
    expect(problem('/downloads')).toBe('not found');
    expect(problem('/download')).toBeNull();
    expect(problem('/download/pc#terms')).toBeNull();
    expect(problem('/${room}')).toBeNull();
  });
});
