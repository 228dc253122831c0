// Per-request cost of bearer authentication: an authenticated small POST (Account/search, one
// account) through app.handle, in process, so the figures are the server's own work and no socket's.
//
// Timed, one request at a time after a warm-up:
// - `Account/search` with a valid bearer token (verify + token row + user row + handler + JSON);
// - the same POST without a token (HTTP 401 before any verify): routing and envelope, the floor;
// - `await s.auth.authenticate(token)` alone: signature, claims, token row, user row;
// - `s.auth.authenticate` of a token on its first use (2,000 users, one login each, each token
//   authenticated once: no verifier can have seen it before);
// - `s.auth.authenticate` of a token with a bad signature (refused at the signature check).
// The database is a file in a temporary directory (WAL), as in production.
//
// A/B: ROOT=<checkout> measures that checkout's src/ (bench/root.ts loads it; any commit since the
// previous release: only modules and exports they all have), the same load from this file and bench/'s
// helpers; `npm run bench -- --baseline <commit> --only auth-cost` runs this checkout and <commit> in turn.
// Run: ./node_modules/.bin/bun bench/auth-cost.bench.ts

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, percentile } from './support.ts';
import { load } from './root.ts';

const { buildApp } = await load<typeof import('../src/app.ts')>('src/app.ts');
const { defaultConfig } = await load<typeof import('../src/config.ts')>('src/config.ts');
const { systemClock } = await load<typeof import('../src/lib/clock.ts')>('src/lib/clock.ts');
const { randomSecret } = await load<typeof import('../src/lib/secrets.ts')>('src/lib/secrets.ts');
const { createServices } = await load<typeof import('../src/service/services.ts')>('src/service/services.ts');
const { openDb } = await load<typeof import('../src/store/db.ts')>('src/store/db.ts');

const REQUESTS = 50_000;
const VERIFIES = 100_000;
const WARMUP = 2_000;
const FIRST_USES = 2_000;

const dir = mkdtempSync(join(tmpdir(), 'rd-bench-auth-'));
const db = openDb(join(dir, 'replaydesk.db'));
const s = await createServices({ config: defaultConfig(), clock: systemClock, db, jwtSecret: new TextEncoder().encode(randomSecret()) });
const app = buildApp(s);

const email = 'bench-auth@example.com';
const created = await s.users.create({ email, plan: 'pro' });
if (!created.ok) throw new Error('cannot create bench user');

async function post(path: string, body: object, token: string | null): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await app.handle(new Request(`http://localhost/api/sim/${path}`, { method: 'POST', headers, body: JSON.stringify(body) }));
  return { status: res.status, text: await res.text() };
}

const login = JSON.parse((await post('Auth/loginKey', { userName: email, apiKey: created.value.apiKey }, null)).text);
if (!login.success) throw new Error(`login failed: ${JSON.stringify(login)}`);
const token: string = login.token;
const badToken = `${token.slice(0, -4)}${token.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;

const first = await post('Account/search', { onlyActiveAccounts: true }, token);
if (first.status !== 200 || !JSON.parse(first.text).success) throw new Error(`Account/search failed: ${first.text}`);

/** Times `n` sequential runs of `f` after `WARMUP` untimed ones; microseconds per run. */
async function timed(n: number, f: () => unknown): Promise<Float64Array> {
  for (let i = 0; i < WARMUP; i++) await f();
  const us = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const t0 = Bun.nanoseconds();
    await f();
    us[i] = (Bun.nanoseconds() - t0) / 1e3;
  }
  return us;
}

function report(label: string, us: Float64Array): void {
  const total = us.reduce((a, b) => a + b, 0);
  console.log(
    `${label.padEnd(44)} median ${median(us).toFixed(1).padStart(7)} µs  p99 ${percentile(us, 0.99).toFixed(1).padStart(7)} µs  ` +
      `mean ${(total / us.length).toFixed(1).padStart(7)} µs  (n=${us.length})`,
  );
}

const authed = await timed(REQUESTS, async () => {
  const r = await post('Account/search', { onlyActiveAccounts: true }, token);
  if (r.status !== 200) throw new Error(`HTTP ${r.status}`);
});
const floor = await timed(REQUESTS, async () => {
  const r = await post('Account/search', { onlyActiveAccounts: true }, null);
  if (r.status !== 401) throw new Error(`HTTP ${r.status}`);
});
const verify = await timed(VERIFIES, async () => {
  if (!(await s.auth.authenticate(token))) throw new Error('token refused');
});
const refuse = await timed(VERIFIES, async () => {
  if (await s.auth.authenticate(badToken)) throw new Error('bad token accepted');
});

// Fresh tokens, one per user, each from its own address (logins are throttled per user and address).
const freshTokens: string[] = [];
for (let i = 0; i < FIRST_USES; i++) {
  const u = await s.users.create({ email: `bench-auth-${i}@example.com`, plan: 'pro' });
  if (!u.ok) throw new Error('cannot create bench user');
  const r = await s.auth.login(`bench-auth-${i}@example.com`, u.value.apiKey, `bench-${i}`);
  if (!r.ok) throw new Error(`login failed: ${JSON.stringify(r.error)}`);
  freshTokens.push(r.value.token);
}
const firstUse = new Float64Array(FIRST_USES);
for (let i = 0; i < FIRST_USES; i++) {
  const t0 = Bun.nanoseconds();
  const p = await s.auth.authenticate(freshTokens[i]);
  firstUse[i] = (Bun.nanoseconds() - t0) / 1e3;
  if (!p) throw new Error('fresh token refused');
}

report('Account/search, bearer token (app.handle)', authed);
report('Account/search, no token → 401 (app.handle)', floor);
report('await s.auth.authenticate(valid token)', verify);
report('await s.auth.authenticate(first use of a token)', firstUse);
report('await s.auth.authenticate(bad signature)', refuse);
console.log(`authenticated request over the 401 floor (verify, lookups, handler): ${(median(authed) - median(floor)).toFixed(1)} µs (medians)`);

db.close();
rmSync(dir, { recursive: true, force: true });
