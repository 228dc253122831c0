// The console's page and bundle as the server serves them: built in process, hashed asset URLs,
// gzip when accepted, and nothing else under /console/.
import { describe, expect, it } from 'bun:test';
import { makeApp } from '../support/app.ts';

describe('console assets', () => {
  it('serves the page with hashed asset URLs, the bundle plain or gzipped, and 404 for anything else', async () => {
    const t = await makeApp();
    const get = (path: string, headers: Record<string, string> = {}) => t.app.handle(new Request(`http://localhost${path}`, { headers }));
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const html = await page.text();
    const version = /\/console\/app\.([0-9a-f]{12})\.js/.exec(html)?.[1];
    expect(version).toBeDefined();
    expect(html).toContain(`/console/app.${version}.css`);

    const plain = await get(`/console/app.${version}.js`);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(plain.headers.get('content-encoding')).toBeNull();
    const js = await plain.text();
    expect(js.length).toBeGreaterThan(100_000);

    const zipped = await get(`/console/app.${version}.js`, { 'accept-encoding': 'gzip, deflate, br' });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    const bytes = new Uint8Array(await zipped.arrayBuffer());
    expect(new TextDecoder().decode(Bun.gunzipSync(bytes))).toBe(js);

    const css = await get(`/console/app.${version}.css`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await css.text()).toContain('--bg');

    for (const path of ['/console/app.000000000000.js', '/console/main.tsx', '/console/']) {
      const r = await get(path);
      expect(r.status).toBe(404);
    }
  });

  it('serves the icon the page links, and at /favicon.ico for pages that link none (the API reference)', async () => {
    const t = await makeApp();
    const html = await (await t.app.handle(new Request('http://localhost/'))).text();
    expect(html).toContain('<link rel="icon" type="image/svg+xml" href="/favicon.svg">');
    for (const path of ['/favicon.svg', '/favicon.ico']) {
      const r = await t.app.handle(new Request(`http://localhost${path}`));
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('image/svg+xml');
      expect(await r.text()).toStartWith('<svg xmlns="http://www.w3.org/2000/svg"');
    }
  });
});
