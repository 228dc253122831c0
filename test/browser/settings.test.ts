// Settings in a real browser: the plan, rotating the API key (confirmed, shown once, copied), the
// new key working for a bot over plain HTTP while the old key and its tokens stop at once, the
// connection details; the key's API profile (shown, chosen with a new key, changed: the key's
// tokens answer under it at once); and a free-plan user told why no key is available.
import { describe, expect, it } from 'bun:test';
import type { Page } from 'playwright-core';
import { loginThroughForm, newPage, noBrowser, screenshot, type Server, adminCli, browserStage, docScreenshot } from './support.ts';

/** What a bot does: POST JSON to the current family, optionally with a bearer token. */
async function call(server: Server, path: string, body: unknown, token?: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server.base}/api/sim/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json().catch(() => null) };
}

async function text(page: Page, sel: string): Promise<string> {
  return ((await page.textContent(sel)) ?? '').replace(/\s+/g, ' ').trim();
}

describe.skipIf(noBrowser)('console: settings', () => {
  const stage = browserStage();

  it('rotates the API key: shown once, copied, works for a bot; the old key and its tokens stop', async () => {
    const { userName, apiKey: oldKey } = stage.server.creds;
    // A bot signed in with the demo key before the rotation.
    const before = await call(stage.server, 'Auth/loginKey', { userName, apiKey: oldKey });
    expect(before.json.success).toBe(true);
    const oldToken: string = before.json.token;
    expect((await call(stage.server, 'Account/search', {}, oldToken)).json.success).toBe(true);

    const { page, errors, context } = await newPage(stage.browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stage.server.base });
    await loginThroughForm(page, stage.server);
    await page.goto(`${stage.server.base}/#/settings`);
    await page.waitForSelector('[data-testid=api-key-status]:not(:has-text("Checking"))');
    expect(await page.textContent('[data-testid=settings-plan]')).toBe('pro');
    expect(await page.textContent('[data-testid=api-key-status]')).toContain('A key exists for this account');
    expect(await page.textContent('[data-testid=api-base]')).toBe(`${stage.server.base}/api/sim`);
    expect(await page.getAttribute('[data-testid=api-reference]', 'href')).toBe('/api/sim/openapi');
    // No key on the page until one is made.
    expect(await page.$('[data-testid=api-key]')).toBeNull();

    // Rotating asks first; canceling changes nothing.
    await page.click('[data-testid=generate-key]');
    expect(await page.textContent('[data-testid=confirm-rotate]')).toContain('every token it issued is revoked');
    await page.click('[data-testid=confirm-rotate] >> text=Cancel');
    expect(await page.$('[data-testid=confirm-rotate]')).toBeNull();
    expect((await call(stage.server, 'Auth/loginKey', { userName, apiKey: oldKey })).json.success).toBe(true);

    await page.click('[data-testid=generate-key]');
    await page.click('[data-testid=confirm-rotate-yes]');
    await page.waitForSelector('[data-testid=api-key]');
    const newKey = ((await page.textContent('[data-testid=api-key]')) ?? '').trim();
    expect(newKey.length).toBeGreaterThan(20);
    expect(newKey).not.toBe(oldKey);
    expect(await page.textContent('[data-testid=new-key]')).toContain('shown once and will not be shown again');
    await page.click('[data-testid=copy-key]');
    await page.waitForSelector('[data-testid=copy-key]:has-text("Copied")');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(newKey);
    await page.mouse.move(10, 890);
    await screenshot(page, 'settings-key');

    // The new key works like curl would use it: loginKey → token → Account/search.
    const login = await call(stage.server, 'Auth/loginKey', { userName, apiKey: newKey });
    expect(login.json).toMatchObject({ success: true, errorCode: 0 });
    const accounts = await call(stage.server, 'Account/search', {}, login.json.token);
    expect(accounts.status).toBe(200);
    expect(accounts.json.success).toBe(true);
    expect(Array.isArray(accounts.json.accounts)).toBe(true);
    // The old key and the token it issued are revoked.
    expect((await call(stage.server, 'Auth/loginKey', { userName, apiKey: oldKey })).json).toMatchObject({ success: false, errorCode: 3, errorMessage: 'Invalid credentials' });
    expect((await call(stage.server, 'Account/search', {}, oldToken)).status).toBe(401);

    // Shown once: after a reload the page no longer has it.
    await page.reload();
    await page.waitForSelector('[data-testid=api-key-status]:not(:has-text("Checking"))');
    expect(await page.$('[data-testid=api-key]')).toBeNull();
    expect(await page.content()).not.toContain(newKey);
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  }, 90_000);

  it('shows the key\'s API profile, gives a new key the one chosen, and changes it at once for every token of the key', async () => {
    const { page, errors, context } = await newPage(stage.browser);
    await loginThroughForm(page, stage.server);
    await page.goto(`${stage.server.base}/#/settings`);
    await page.waitForSelector('[data-testid=api-key-status]:not(:has-text("Checking"))');
    // The server's default is the spec: the key follows it until it chooses.
    await page.waitForFunction("document.querySelector('[data-testid=api-profile-effective]').textContent === 'Spec'");
    expect(await text(page, '[data-testid=api-profile]')).toContain("In force: Spec (the server's default)");
    expect(await page.inputValue('select[name=apiProfile]')).toBe('');
    expect(await page.$eval('select[name=apiProfile]', (s: any) => [...s.options].map((o: any) => o.textContent))).toEqual(['Spec', 'Live gateway', 'Server default (Spec)']);
    expect(await text(page, '[data-testid=api-profile]')).toContain('Live gateway: bots using the public ProjectX gateway client libraries');
    expect(await text(page, '[data-testid=api-profile-urls]')).toContain(`${stage.server.base}/live/api/sim answers as the live gateway, ${stage.server.base}/spec/api/sim as the spec`);

    // A new key with the live gateway's profile: its token reads contracts as the live gateway names them.
    expect(await page.$eval('select[name=newKeyProfile]', (s: any) => s.selectedOptions[0].textContent)).toBe('As now: Server default (Spec)');
    await page.selectOption('select[name=newKeyProfile]', 'live');
    await page.click('[data-testid=generate-key]');
    await page.click('[data-testid=confirm-rotate-yes]');
    await page.waitForSelector('[data-testid=api-key]');
    const apiKey = await text(page, '[data-testid=api-key]');
    await page.waitForFunction("document.querySelector('[data-testid=api-profile-effective]').textContent === 'Live gateway'");
    expect(await text(page, '[data-testid=api-profile]')).toContain('In force: Live gateway (this key’s choice)');
    expect(await page.inputValue('select[name=apiProfile]')).toBe('live');
    const login = await call(stage.server, 'Auth/loginKey', { userName: stage.server.creds.userName, apiKey });
    expect(login.json.success).toBe(true);
    const token: string = login.json.token;
    const symbolId = async () => {
      const found = await call(stage.server, 'Contract/search', { searchText: 'NQ' }, token);
      const byId = await call(stage.server, 'Contract/searchById', { contractId: found.json.contracts[0].id }, token);
      return byId.json.contract.symbolId;
    };
    expect(await symbolId()).toBe('F.US.ENQ');
    await page.evaluate("window.scrollTo(0, document.querySelector('[data-testid=api-key-card]').getBoundingClientRect().top + window.scrollY - 64)");
    await page.mouse.move(10, 10);
    await docScreenshot(page, 'settings-api-profile');
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.evaluate("window.scrollTo(0, document.querySelector('[data-testid=api-key-card]').getBoundingClientRect().top + window.scrollY - 64)");
    await docScreenshot(page, 'settings-api-profile-1280');

    // Changed on the page, saved at once: the same token answers under the new choice.
    await page.selectOption('select[name=apiProfile]', 'spec');
    await page.waitForSelector('[data-testid=api-profile-saved]');
    expect(await text(page, '[data-testid=api-profile-effective]')).toBe('Spec');
    expect(await symbolId()).toBe('NQ');
    await page.selectOption('select[name=apiProfile]', 'live');
    await page.waitForFunction("document.querySelector('[data-testid=api-profile-effective]').textContent === 'Live gateway'");
    expect(await symbolId()).toBe('F.US.ENQ');
    // Back to the server's default, kept across a reload.
    await page.selectOption('select[name=apiProfile]', '');
    await page.waitForFunction("document.querySelector('[data-testid=api-profile-effective]').textContent === 'Spec'");
    expect(await symbolId()).toBe('NQ');
    await page.reload();
    await page.waitForFunction("document.querySelector('[data-testid=api-profile-effective]')?.textContent === 'Spec'");
    expect(await text(page, '[data-testid=api-profile]')).toContain("(the server's default)");
    const profile: any = await page.evaluate("fetch('/api/auth/api-key/profile').then((r) => r.json())");
    expect(profile).toMatchObject({ profile: null, serverDefault: 'spec', effective: 'spec' });
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  }, 90_000);

  it('tells a free-plan user why no API key is available', async () => {
    const email = 'free-trader@example.com';
    const password = 'free-plan-password-1';
    const created = adminCli(stage.server, ['user', 'create', '--email', email, '--password', password, '--plan', 'free']);
    expect(created.email).toBe(email);
    const { page, errors, context } = await newPage(stage.browser);
    await page.goto(`${stage.server.base}/`);
    await page.fill('input[name=email]', email);
    await page.fill('input[name=password]', password);
    await page.click('button[type=submit]');
    await page.waitForSelector('[data-testid=user-email]');
    await page.goto(`${stage.server.base}/#/settings`);
    await page.waitForSelector('[data-testid=api-key-unavailable]');
    expect(await page.textContent('[data-testid=settings-plan]')).toBe('free');
    expect(await page.textContent('[data-testid=api-key-unavailable]')).toContain('API keys are a Pro-plan feature: this account is on the free plan');
    expect(await page.$('[data-testid=generate-key]')).toBeNull();
    // The endpoint agrees: a free user cannot make a key.
    const made: any = await page.evaluate("fetch('/api/auth/api-key', {method: 'POST', headers: {'content-type': 'application/json'}, body: '{}'}).then((r) => r.status)");
    expect(made).toBe(403);
    await screenshot(page, 'settings-free');
    expect(errors.filter((e) => !e.includes('401') && !e.includes('403'))).toEqual([]);
    await context.close();
  }, 60_000);
});
