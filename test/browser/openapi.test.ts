// The API reference page in a real browser with every other host blocked (as on an install without
// internet): Scalar loads from this server, reads the document and shows the endpoints.
import { describe, expect, it } from 'bun:test';
import { REFERENCE_MOUNTS } from '../../src/http/openapi/index.ts';
import { newPage, noBrowser, screenshot, browserStage } from './support.ts';

describe.skipIf(noBrowser)('API reference page', () => {
  const stage = browserStage();

  it('renders the current family offline: endpoint names, an error row, no request to another host', async () => {
    const { page, errors, context } = await newPage(stage.browser);
    const ours = new URL(stage.server.base).host;
    const elsewhere: string[] = [];
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.host === ours || url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
      elsewhere.push(url.href);
      return route.abort();
    });
    const missing: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400) missing.push(new URL(r.url()).pathname);
    });
    await page.goto(`${stage.server.base}/api/sim/openapi`);
    await page.waitForSelector('text=Logs in with an API key', { timeout: 60_000 });
    await page.getByText('Order', { exact: true }).first().click();
    await page.waitForSelector('text=Places an order in the account', { timeout: 60_000 });
    await page.waitForSelector('text=Invalid order size', { timeout: 60_000 });
    await screenshot(page, 'openapi-sim');
    expect(elsewhere).toEqual([]);
    // Nothing is missing, the favicon the browser asks for on its own included.
    expect(missing).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('renders the earlier family and the Playground pages too', async () => {
    const { page, errors, context } = await newPage(stage.browser);
    for (const m of REFERENCE_MOUNTS.filter((x) => x.pagePath !== '/api/sim/openapi')) {
      await page.goto(`${stage.server.base}${m.pagePath}`);
      // The first tag is open: its first endpoint's summary shows.
      await page.waitForSelector(`text=${m.reference.sections[0].endpoints[0].summary.slice(0, 30)}`, { timeout: 60_000 });
    }
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});
