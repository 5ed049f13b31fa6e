/**
 * What the server hands every loader and action (React Router middleware context). Loaders and
 * actions read the viewer and call services from here; they never import drivers themselves.
 */
import { createContext } from 'react-router';
import type { Lang } from '#core/platform/errors.ts';
import type { Services } from '#core/services.ts';

import type { Viewer } from '#core/account/account.service.ts';

export type { Viewer };

export interface AppContext {
  services: Services;
  /** The signed-in user from the session cookie, or null. */
  viewer: Viewer | null;
  /** The raw session token from the cookie (only for server-side calls), or null. */
  sessionToken: string | null;
  lang: Lang;
  /** Settings the pages may show. */
  site: { publicUrl: string; devOutbox: boolean; production: boolean };
  /** The client address (rate limits of page actions). */
  ip: string;
  /** This response's Content-Security-Policy nonce, for the inline scripts of the page (ADR 067). */
  nonce?: string | undefined;
}

/*
 * One key for the whole process. The server imports this file directly while the built app
 * bundles its own copy of it; a plain createContext() would make two different keys and every
 * loader would fail with 'No value found for context'. Keeping the key on globalThis under a
 * registered symbol makes both copies the same key.
 */
const KEY = Symbol.for('banshu.appContext');
type ContextKey = ReturnType<typeof createContext<AppContext>>;
const holder = globalThis as typeof globalThis & { [KEY]?: ContextKey };
export const appContext: ContextKey = (holder[KEY] ??= createContext<AppContext>());
