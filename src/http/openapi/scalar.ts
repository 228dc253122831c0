// The API reference pages are Scalar (through @elysiajs/openapi), and Scalar must work offline: many
// installs have no internet, so its self-contained browser bundle is served from node_modules at a
// local path, versioned so browsers may keep it. Scalar's calls home (telemetry, web fonts) and its
// hosted features (AI agent, MCP generator) are off.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Elysia } from 'elysia';

/** dist/index.js of @scalar/api-reference; its browser bundle sits beside it. */
const SCALAR_DIST = dirname(Bun.resolveSync('@scalar/api-reference', import.meta.dir));

const SCALAR_VERSION: string = JSON.parse(readFileSync(join(SCALAR_DIST, '..', 'package.json'), 'utf8')).version;

/** The standalone bundle on disk (about 4 MB, no further chunks or network loads). */
export const SCALAR_BUNDLE_FILE = join(SCALAR_DIST, 'browser', 'standalone.js');

/** Where the pages load the bundle from. The version in the name makes it safe to cache for good. */
export const SCALAR_SCRIPT_PATH = `/api/openapi/scalar-${SCALAR_VERSION}.js`;

const SCRIPT_HEADERS = {
  'content-type': 'text/javascript; charset=utf-8',
  'cache-control': 'public, max-age=31536000, immutable',
};

/** Scalar settings shared by the pages: the local bundle, the document's URL, nothing fetched from outside. */
export function scalarConfig(specPath: string) {
  return {
    cdn: SCALAR_SCRIPT_PATH,
    // The plugin's default is the spec path relative to the page, which is wrong below the root.
    url: specPath,
    telemetry: false,
    withDefaultFonts: false,
    showDeveloperTools: 'never' as const,
    agent: { disabled: true },
    mcp: { disabled: true },
    darkMode: true,
  };
}

let gzipped: Promise<Uint8Array> | null = null;

/** The bundle gzipped once per process, on its first request that accepts gzip (4.35 MB → about 1.2 MB). */
function gzippedBundle(): Promise<Uint8Array> {
  gzipped ??= Bun.file(SCALAR_BUNDLE_FILE)
    .bytes()
    .then((b) => Bun.gzipSync(b))
    .catch((e) => {
      gzipped = null; // retried on the next request
      throw e;
    });
  return gzipped;
}

/**
 * GET the bundle: gzipped when the browser accepts it (uncompressed, the page took 7–9 s to load it),
 * else streamed from disk (Bun sends the file without reading it whole).
 */
export function scalarScript() {
  return new Elysia({ name: 'replaydesk-scalar-script' }).get(
    SCALAR_SCRIPT_PATH,
    async ({ request }) => {
      const headers = { ...SCRIPT_HEADERS, vary: 'accept-encoding' };
      if (!/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) return new Response(Bun.file(SCALAR_BUNDLE_FILE), { headers });
      return new Response(await gzippedBundle(), { headers: { ...headers, 'content-encoding': 'gzip' } });
    },
    { detail: { hide: true } },
  );
}
