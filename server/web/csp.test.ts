import { expect, it } from 'vitest';
import { API_POLICY, newNonce, originsOf, pagePolicy } from './csp.ts';

/** The policy as directive -> values. */
function parse(policy: string): Record<string, string[]> {
  return Object.fromEntries(
    policy.split(';').map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name!, values];
    }),
  );
}

it('allows scripts and styles only from this origin and with the response nonce, nothing inline or evaluated', () => {
  const p = parse(pagePolicy('abc123', { media: [] }));
  expect(p['default-src']).toEqual(["'self'"]);
  expect(p['script-src']).toEqual(["'self'", "'nonce-abc123'"]);
  expect(p['style-src']).toEqual(["'self'", "'nonce-abc123'"]);
  for (const values of Object.values(p)) {
    expect(values).not.toContain("'unsafe-inline'");
    expect(values).not.toContain("'unsafe-eval'");
  }
  expect(p['object-src']).toEqual(["'none'"]);
  expect(p['base-uri']).toEqual(["'self'"]);
  expect(p['frame-ancestors']).toEqual(["'none'"]);
  expect(p['form-action']).toEqual(["'self'"]);
  expect(p['img-src']).toEqual(["'self'", 'blob:', 'data:']);
  expect(p['media-src']).toEqual(["'self'", 'blob:', 'data:']);
});

it('connects to the site (with its websocket), the media nodes and the object store', () => {
  const p = parse(
    pagePolicy('n', {
      site: 'https://class.example.edu/',
      media: ['https://media1.example.edu:8443', 'http://10.0.0.7:3100/', 'https://media1.example.edu:8443/'],
      objects: 'https://s3.example.com/bucket',
    }),
  );
  expect(p['connect-src']).toEqual([
    "'self'",
    'https://class.example.edu',
    'wss://class.example.edu',
    'https://media1.example.edu:8443',
    'wss://media1.example.edu:8443',
    'http://10.0.0.7:3100',
    'ws://10.0.0.7:3100',
    'https://s3.example.com',
  ]);
  expect(p['img-src']).toContain('https://s3.example.com');
  expect(p['media-src']).toContain('https://s3.example.com');
});

it('plays media from the disk store at the public URL (recordings), even when the page was reached on another origin', () => {
  const p = parse(pagePolicy('n', { site: 'http://127.0.0.1:3000/', media: [] }));
  expect(p['media-src']).toEqual(["'self'", 'blob:', 'data:', 'http://127.0.0.1:3000']);
  expect(p['media-src']).not.toContain('ws://127.0.0.1:3000');
});

it('lets Vite inject its styles and reach its HMR socket in development only', () => {
  const p = parse(pagePolicy('n', { media: [], dev: true }));
  expect(p['style-src']).toEqual(["'self'", "'unsafe-inline'"]);
  expect(p['connect-src']).toContain('ws:');
  expect(p['script-src']).toEqual(["'self'", "'nonce-n'"]);
});

it('ignores what is not an http(s) URL', () => {
  expect(originsOf('javascript:alert(1)')).toEqual([]);
  expect(originsOf('not a url')).toEqual([]);
  expect(originsOf(undefined)).toEqual([]);
  expect(parse(pagePolicy('n', { media: ["x'; script-src *"] }))['connect-src']).toEqual(["'self'"]);
});

it('gives each response its own unguessable nonce', () => {
  const a = newNonce();
  expect(a).toMatch(/^[A-Za-z0-9+/]{22}==$/);
  expect(newNonce()).not.toBe(a);
});

it('lets API answers load, run and frame nothing', () => {
  expect(parse(API_POLICY)).toEqual({
    'default-src': ["'none'"],
    'base-uri': ["'none'"],
    'form-action': ["'none'"],
    'frame-ancestors': ["'none'"],
  });
});
