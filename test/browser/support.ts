// Browser tests: the real server process (`bun src/main.ts` on a temp data directory) driven by
// Debian's Chromium through playwright-core. No browser is downloaded: without Chromium the tests
// are skipped locally, and fail when REQUIRE_BROWSER=1 (set by .ci/run, which installs Chromium).

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'bun:test';
import { type ServerProcess, spawnServer } from '../support/server-process.ts';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const ROOT = join(import.meta.dir, '..', '..');
/** The synthetic span the test server serves (short, so it starts fast). */
const DATA_SPAN = { DATA_START_DATE: '2025-02-24', DATA_END_DATE: '2025-03-14' };
export const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR ?? join(ROOT, 'test', '.screenshots');
export const INSTALL_HINT = 'apt-get install -y chromium-headless-shell';

/**
 * Chromium's headless shell first: the same Blink and V8 without the browser's own UI, which in
 * Chromium's `--headless` mode still runs a WebUI renderer for its top bar and costs about twice
 * the CPU over the same pages (a desk file: 28 CPU s against 64, measured on 2 cores). The full
 * browser is the fallback.
 */
function findChromium(): string | null {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium-headless-shell', '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
  for (const c of candidates) if (c && existsSync(c)) return c;
  return null;
}

export const CHROMIUM = findChromium();
if (!CHROMIUM) {
  if (process.env.REQUIRE_BROWSER === '1') throw new Error(`REQUIRE_BROWSER=1 but no Chromium found; install it with: ${INSTALL_HINT}`);
  console.warn(`[browser tests skipped] no Chromium found; install it with: ${INSTALL_HINT}`);
}
/** `describe.skipIf(noBrowser)` for every browser suite. */
export const noBrowser = CHROMIUM === null;

export interface Server {
  base: string;
  dataDir: string;
  creds: { userName: string; apiKey: string; password: string };
  proc: ServerProcess['proc'];
  log: () => string;
  stop(): Promise<void>;
}

/**
 * The runner env of a server whose pages run no strategy: no warm Pyodide child kept ready (a run
 * would still start one on demand). The playground's stages pass PLAYGROUND_RUNNER instead.
 */
const NO_WARM_RUNNER = { RUNNER_POOL_SIZE: '0' };
/** The product's default pool (one warm child), for the stages whose pages run strategies. */
export const PLAYGROUND_RUNNER = { RUNNER_POOL_SIZE: '1' };

/** Starts the server as `npm start` does, on an ephemeral port, with a short synthetic span. */
export async function startServer(env: Record<string, string> = {}): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), 'replaydesk-browser-'));
  const { proc, base, log } = await spawnServer({
    env: { DATA_DIR: dataDir, ...DATA_SPAN, RUNNER_CACHE_DIR: process.env.RUNNER_CACHE_DIR ?? '/tmp/replaydesk-test-runner', ...NO_WARM_RUNNER, ...env },
  });
  const creds = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8'));
  return {
    base,
    dataDir,
    creds,
    proc,
    log,
    async stop() {
      proc.kill('SIGTERM');
      await proc.exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM!,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/** A fresh browser context on a laptop-sized viewport; console errors and page errors are collected. */
export async function newPage(browser: Browser): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    // A failed resource names only its error in the text: the URL is in the location.
    if (m.type() === 'error') errors.push(m.text().startsWith('Failed to load resource') ? `${m.text()} (${m.location().url})` : m.text());
  });
  return { context, page, errors };
}

/** Signs in through the login form with the demo credentials. */
export async function loginThroughForm(page: Page, server: Server): Promise<void> {
  await page.goto(`${server.base}/`);
  await page.fill('input[name=email]', server.creds.userName);
  await page.fill('input[name=password]', server.creds.password);
  await page.click('button[type=submit]');
  await page.waitForSelector('[data-testid=user-email]');
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}

/**
 * A screenshot README shows: written to test/.screenshots like any, and to docs/screenshots when
 * UPDATE_DOC_SCREENSHOTS=1 (so a test run leaves the tracked files alone unless asked).
 */
export async function docScreenshot(page: Page, name: string): Promise<string> {
  const path = await screenshot(page, name);
  if (process.env.UPDATE_DOC_SCREENSHOTS === '1') await page.screenshot({ path: join(ROOT, 'docs', 'screenshots', `${name}.png`), fullPage: false });
  return path;
}

export interface Stage {
  server: Server;
  browser: Browser;
}

let shared: Promise<Browser> | null = null;

/**
 * One Chromium for every stage of the test process (bun test runs the files in one process): a
 * launch and a close cost seconds of a busy machine per stage. Stages keep apart by contexts, each
 * closed after its stage. A browser that crashed or disconnected is launched again at the next
 * stage; the browser ends with the process (its pipe closes).
 */
function sharedBrowser(): Promise<Browser> {
  if (shared) return shared;
  const launching = launchBrowser().then((b) => {
    b.on('disconnected', () => {
      if (shared === launching) shared = null;
    });
    return b;
  });
  launching.catch(() => {
    if (shared === launching) shared = null;
  });
  return (shared = launching);
}

/**
 * One server and one browser for a describe block: started before its tests, stopped after them
 * (the browser's contexts closed; the browser itself is shared, see sharedBrowser).
 */
export function browserStage(env: Record<string, string> = {}): Stage {
  const stage = {} as Stage;
  beforeAll(async () => {
    // Together: neither needs the other to start (each takes seconds on a busy machine).
    const [server, browser] = await Promise.allSettled([startServer(env), sharedBrowser()]);
    if (server.status === 'fulfilled') stage.server = server.value;
    if (browser.status === 'fulfilled') stage.browser = browser.value;
    // A failed start fails the file; afterAll stops whichever started.
    if (server.status === 'rejected') throw server.reason;
    if (browser.status === 'rejected') throw browser.reason;
  }, 60_000);
  afterAll(async () => {
    if (stage.browser?.isConnected()) await Promise.all(stage.browser.contexts().map((c) => c.close()));
    await stage.server?.stop();
  });
  return stage;
}

/** Runs the admin CLI against the server's data directory (SQLite WAL: beside the running server); its JSON answer. */
export function adminCli(server: Server, args: string[]): any {
  const r = Bun.spawnSync([process.execPath, join(ROOT, 'src', 'admin', 'cli.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: server.dataDir, ...DATA_SPAN },
  });
  const out = r.stdout.toString();
  if (r.exitCode !== 0) throw new Error(`admin ${args.join(' ')} failed: ${out} ${r.stderr.toString()}`);
  return JSON.parse(out);
}

/** A bot of the server's demo user: `call(path, body)` posts to /api/sim/{path} with its token and answers the body, throwing on a refusal. */
export async function simCaller(server: Server): Promise<(path: string, body: unknown) => Promise<any>> {
  const login: any = await (await fetch(`${server.base}/api/sim/Auth/loginKey`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userName: server.creds.userName, apiKey: server.creds.apiKey }) })).json();
  return async (path, body) => {
    const r = await fetch(`${server.base}/api/sim/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${login.token}` }, body: JSON.stringify(body) });
    const json: any = await r.json();
    if (!json.success) throw new Error(`${path}: ${JSON.stringify(json)}`);
    return json;
  };
}
