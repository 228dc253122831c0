// The web console: one HTML page at `/` and its bundle, built from src/console by Bun.build in this
// process on first use (no build step at deploy time) and kept in memory. The page talks to the
// same HTTP API as bots.

import { Elysia } from 'elysia';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { notFound } from '../shared/envelope.ts';
import { readStrategyReference } from './strategy-reference.ts';

const CONSOLE_DIR = join(import.meta.dir, '..', '..', 'console');

export interface ConsoleBundle {
  js: string;
  css: string;
  /** The same, gzipped once at build time, for browsers that accept it. */
  jsGzip: Uint8Array;
  cssGzip: Uint8Array;
  /** Content hash of js + css, used in the asset URLs so a new build is never served stale. */
  version: string;
}

let building: Promise<ConsoleBundle> | null = null;

/** Builds the console once per process; later calls share the result. */
export function consoleBundle(): Promise<ConsoleBundle> {
  building ??= build().catch((e) => {
    building = null; // a failed build is retried on the next request
    throw e;
  });
  return building;
}

async function build(): Promise<ConsoleBundle> {
  const out = await Bun.build({
    entrypoints: [join(CONSOLE_DIR, 'main.tsx')],
    target: 'browser',
    minify: true,
    sourcemap: 'none',
    // The strategy API reference (the playground's side panel), cut from docs/playground.md now.
    define: { 'process.env.NODE_ENV': '"production"', PLAYGROUND_REFERENCE_MD: JSON.stringify(readStrategyReference()) },
  });
  if (!out.success) throw new Error(`console build failed: ${out.logs.map(String).join('\n')}`);
  let js = '';
  let css = '';
  for (const a of out.outputs) {
    if (a.kind !== 'entry-point' && a.kind !== 'asset' && a.kind !== 'chunk') continue;
    if (a.path.endsWith('.js')) js += await a.text();
    else if (a.path.endsWith('.css')) css += await a.text();
  }
  const version = new Bun.CryptoHasher('sha256').update(js).update(css).digest('hex').slice(0, 12);
  return { js, css, jsGzip: Bun.gzipSync(js), cssGzip: Bun.gzipSync(css), version };
}

const PAGE_TEMPLATE = readFileSync(join(CONSOLE_DIR, 'index.html'), 'utf8');
/** The icon of every page of this server: the console links it, and browsers ask for `favicon.ico` at the root on the API reference pages. */
const FAVICON = readFileSync(join(CONSOLE_DIR, 'favicon.svg'));
const FAVICON_HEADERS = { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400' };

function page(b: ConsoleBundle): string {
  return PAGE_TEMPLATE.replaceAll('%VERSION%', b.version);
}

const NO_STORE = { 'cache-control': 'no-store' };
const IMMUTABLE = { 'cache-control': 'public, max-age=31536000, immutable' };

export function consoleApp() {
  return new Elysia()
    .get('/', async () => {
      const b = await consoleBundle();
      return new Response(page(b), { headers: { 'content-type': 'text/html; charset=utf-8', ...NO_STORE } });
    })
    .get('/favicon.svg', () => new Response(FAVICON, { headers: FAVICON_HEADERS }))
    .get('/favicon.ico', () => new Response(FAVICON, { headers: FAVICON_HEADERS }))
    .get('/console/:file', async ({ params, request }) => {
      const b = await consoleBundle();
      if (params.file === `app.${b.version}.js`) return asset(request, b.js, b.jsGzip, 'text/javascript; charset=utf-8');
      if (params.file === `app.${b.version}.css`) return asset(request, b.css, b.cssGzip, 'text/css; charset=utf-8');
      return notFound();
    });
}

/** An immutable asset, gzipped when the browser accepts it (the bundle is ~820 KB, ~270 KB gzipped). */
function asset(request: Request, plain: string, gzip: Uint8Array, type: string): Response {
  const gz = /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');
  const headers = { 'content-type': type, vary: 'accept-encoding', ...IMMUTABLE, ...(gz ? { 'content-encoding': 'gzip' } : {}) };
  return new Response(gz ? gzip : plain, { headers });
}
