// Builds an app on an in-memory database with a manual clock and a Pro demo user, for black-box
// tests through app.handle(new Request(...)).

import { buildApp } from '../../src/app.ts';
import { defaultConfig, type Config } from '../../src/config.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { randomSecret } from '../../src/lib/secrets.ts';
import { createServices, type Services } from '../../src/service/services.ts';
import { openDb } from '../../src/store/db.ts';
import { appDatabase } from './pg-app-databases.ts';
import { TEST_PASSWORD_COST } from './test-env.ts';

export const T0 = Date.UTC(2025, 2, 3, 14, 30, 0); // 2025-03-03T14:30:00Z, a Monday

export interface TestApp {
  app: ReturnType<typeof buildApp>;
  s: Services;
  clock: ManualClock;
  email: string;
  apiKey: string;
  /** POST JSON to a current-family path (`Auth/loginKey`), returns status, headers and parsed body. */
  post(path: string, body?: unknown, token?: string | null, headers?: Record<string, string>): Promise<Reply>;
  login(): Promise<string>;
}

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

/** A response as tests read it: status, headers, and the body parsed as JSON (as text if it is not). */
export async function readReply(res: Response): Promise<Reply> {
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, headers: res.headers, body: parsed };
}

/**
 * The store tests run on: `TEST_STORE=postgres` puts users, accounts, sessions and runs in an empty
 * PostgreSQL database per app (test/support/pg-app-databases.ts); SQLite otherwise.
 */
export const TEST_STORE: 'sqlite' | 'postgres' = process.env.TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

export async function makeApp(opts: { config?: Partial<Config>; dbPath?: string; nowMs?: number } = {}): Promise<TestApp> {
  const clock = new ManualClock(opts.nowMs ?? T0);
  const db = openDb(opts.dbPath ?? ':memory:');
  // A reopened SQLite file (dbPath) keeps the whole store there, as a restarted server would.
  // One app per database: a single server on PostgreSQL (no leases or LISTEN connection, whose
  // cluster behaviour test/cluster runs through real nodes), empty at the start, reused after the
  // test when test/support/pg-app-databases.ts may.
  const pg = TEST_STORE === 'postgres' && opts.dbPath === undefined ? await appDatabase() : undefined;
  const s = await createServices({ config: defaultConfig({ passwordHash: TEST_PASSWORD_COST, ...opts.config }), clock, db, sql: pg?.sql, cluster: false, jwtSecret: new TextEncoder().encode(randomSecret()) });
  pg?.onTestEnd(() => s.shutdown());
  const app = buildApp(s);
  const email = 'trader@example.com';
  // On a reopened database the user exists already: give it a fresh key instead.
  const created = await s.users.create({ email, plan: 'pro' });
  const apiKey = created.ok ? created.value.apiKey : await rotateOrThrow(s, email);
  const t: TestApp = {
    app,
    s,
    clock,
    email,
    apiKey,
    async post(path, body = {}, token = null, headers = {}) {
      const h: Record<string, string> = { 'content-type': 'application/json', ...headers };
      if (token) h.authorization = `Bearer ${token}`;
      const res = await app.handle(
        new Request(`http://localhost/api/sim/${path}`, {
          method: 'POST',
          headers: h,
          body: typeof body === 'string' ? body : JSON.stringify(body),
        }),
      );
      const reply = await readReply(res);
      // As a client over the network sees them: the hub events of a call leave after its answer
      // (service/events/fanout.ts); an in-process caller waits for them before it reads what hubs got.
      await s.replay.events.settled();
      return reply;
    },
    async login() {
      const r = await t.post('Auth/loginKey', { userName: email, apiKey: t.apiKey });
      if (!r.body.success) throw new Error(`login failed: ${JSON.stringify(r.body)}`);
      return r.body.token as string;
    },
  };
  return t;
}

async function rotateOrThrow(s: Services, email: string): Promise<string> {
  const r = await s.users.rotateKey(email);
  if (!r.ok) throw new Error('cannot create test user');
  return r.value.apiKey;
}

/** Polls `cond` until it holds (timers need a few event-loop turns); throws after `timeoutMs`. */
export async function waitFor(cond: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await Bun.sleep(5);
  }
}

/** A call to the web-facing families (`/api/auth/…`, `/api/playground/…`), optionally with the session cookie. */
export async function webCall(
  t: TestApp,
  method: string,
  path: string,
  opts: { cookie?: string | null; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const h: Record<string, string> = {};
  const hasBody = method !== 'GET' && method !== 'DELETE';
  if (hasBody) h['content-type'] = 'application/json';
  if (opts.cookie) h.cookie = `rd_session=${opts.cookie}`;
  Object.assign(h, opts.headers ?? {});
  const body = hasBody ? (typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body ?? {})) : undefined;
  const res = await t.app.handle(new Request(`http://localhost${path}`, { method, headers: h, body }));
  return readReply(res);
}

/** The `rd_session` value a response sets (null when it sets none). */
export function sessionCookieOf(r: Reply): string | null {
  const line = r.headers.get('set-cookie');
  const m = line ? /(?:^|,\s*)rd_session=([^;]*)/.exec(line) : null;
  return m ? m[1] : null;
}

/** Creates a user with a password (Pro unless told) for the web login. */
export async function makeWebUser(
  t: TestApp,
  opts: { email?: string; password?: string; plan?: 'pro' | 'free'; verified?: boolean; disabled?: boolean } = {},
): Promise<{ email: string; password: string }> {
  const email = opts.email ?? 'web@example.com';
  const password = opts.password ?? 'correct horse battery staple';
  const r = await t.s.users.create({ email, password, plan: opts.plan ?? 'pro', verified: opts.verified, disabled: opts.disabled });
  if (!r.ok) throw new Error(`cannot create ${email}: ${r.error.kind}`);
  return { email, password };
}

/** Logs in through POST /api/auth/login and returns the session cookie's value. */
export async function webLogin(t: TestApp, email: string, password: string): Promise<string> {
  const r = await webCall(t, 'POST', '/api/auth/login', { body: { email, password } });
  const cookie = sessionCookieOf(r);
  if (!r.body.success || !cookie) throw new Error(`web login failed: ${JSON.stringify(r.body)}`);
  return cookie;
}
