/**
 * In the browser, zod parses without compiling code: its compiler probes `new Function`, and the
 * page's Content-Security-Policy (ADR 067, no 'unsafe-eval') reports the probe as a violation even
 * though zod catches it. Imported first by app/root.tsx, before any schema is built. The server
 * keeps the compiled parsers.
 */
import { z } from 'zod';

if (typeof document !== 'undefined') z.config({ jitless: true });
