// Replay/jumpTo over 30 days of NQ 1 s bars with working orders, end to end over loopback (a real
// Bun.serve on 127.0.0.1, the production fetch handler, a temp-dir database), and the same jump on a
// challenge session (the rules may slow the matching loop by at most 20%).
// Targets (bench/README.md): median ≤ 200 ms end to end when the days come from the store, ≤ 50 ms of
// it in the engine.
//
// Data: 30+ days of generated NQ 1 s bars (generateDay) written as imported chunks
// (BarChunkStore.put); the synthetic span is moved to 2020 so nothing else is generated. The
// "synthetic" case uses a second database without chunks whose synthetic span covers the days, so
// they are generated on demand.
//
// Every run: (A) a services instance starts a 1 m session on 2025-03-03 and places far-away orders
// that stay working; Replay/start reads every day of the session to count its bars, which warms the
// day cache. (B) "cold": the database is reopened and a fresh services instance restores the session
// (as after a restart), so the BarSource cache is empty; login, then the timed Replay/jumpTo to
// 2025-04-02T00:00Z (30 days). "warm": the jump is made in instance A right after the start.
// The split comes from wrappers installed below on the prototypes (bench only, nothing in src/):
// engine = SessionEngine.processBars, rule = ChallengeRule.run (engine included), load = BarSource's
// day load (chunk read or generation), advance = LiveSession.jumpTo (load + engine + bar count),
// commit = the SQLite transaction, service = ReplayService.jumpTo (the lock's event-loop yield, the
// advance, the commit and the prefetch of the next day).
// Cases alternate run by run, so drift in machine speed hits all alike.
// The challenge comparison uses 10 orders on both sides: a 50K challenge allows 5 contracts, and the
// pre-trade check counts every working entry on one side (5 buys + 5 sells is the most it accepts).
// The challenge session stays flat (no fills), so it is never violated; the rule still rolls its
// trade date at every 17:00 CT and splits the scan there.
//
// A/B: ROOT=<checkout> measures that checkout's src/ (bench/root.ts loads it; any commit since the
// previous release: only modules and exports they all have), the same load from this file and bench/'s
// helpers; `npm run bench -- --baseline <commit> --only replay-jump` runs this checkout and <commit> in turn.
// Run: ./node_modules/.bin/bun bench/replay-jump.bench.ts

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../src/config.ts';
import type { Instrument } from '../src/domain/instrument.ts';
import type { Services } from '../src/service/services.ts';
import { storeGeneratedDays, SIM_POLICY } from './support.ts';
import { load, loadIfPresent } from './root.ts';

const { buildApp, silentLogger } = await load<typeof import('../src/app.ts')>('src/app.ts');
const { ChallengeRule } = await load<typeof import('../src/challenge/rules.ts')>('src/challenge/rules.ts');
const { defaultConfig } = await load<typeof import('../src/config.ts')>('src/config.ts');
const { BarSource } = await load<typeof import('../src/data/bar-source.ts')>('src/data/bar-source.ts');
const { findInstrument } = await load<typeof import('../src/domain/instrument.ts')>('src/domain/instrument.ts');
const { daysFromCivil } = await load<typeof import('../src/domain/timeframe.ts')>('src/domain/timeframe.ts');
const { SessionEngine } = await load<typeof import('../src/engine/engine.ts')>('src/engine/engine.ts');
const { OrderSide, OrderType } = await load<typeof import('../src/engine/types.ts')>('src/engine/types.ts');
const { systemClock } = await load<typeof import('../src/lib/clock.ts')>('src/lib/clock.ts');
const { dayToDateString } = await load<typeof import('../src/lib/iso-time.ts')>('src/lib/iso-time.ts');
const { randomSecret } = await load<typeof import('../src/lib/secrets.ts')>('src/lib/secrets.ts');
const { ReplayService } = await load<typeof import('../src/service/replay/service.ts')>('src/service/replay/service.ts');
const { LiveSession } = await load<typeof import('../src/service/replay/session.ts')>('src/service/replay/session.ts');
const { createServices } = await load<typeof import('../src/service/services.ts')>('src/service/services.ts');
const { createFetch } = await load<typeof import('../src/server.ts')>('src/server.ts');
const { openDb } = await load<typeof import('../src/store/db.ts')>('src/store/db.ts');

const RUNS = 15;
const WARMUP = 2;
const DAY_S = 86_400;
const START_DAY = daysFromCivil(2025, 3, 3); // a Monday
const JUMP_DAYS = 30;
const STORE_FIRST_DAY = START_DAY - 3; // the Friday before: the session's last price
const STORE_LAST_DAY = START_DAY + JUMP_DAYS + 4;
const NQ = findInstrument('NQ') as Instrument;
const EMAIL = 'bench@example.com';
const JWT_SECRET = new TextEncoder().encode(randomSecret());

// ---- Bench-only instrumentation: accumulated milliseconds per run. ----
const acc = { engine: 0, rule: 0, load: 0, advance: 0, commit: 0, service: 0 };
function wrap(proto: any, name: string, key: keyof typeof acc): void {
  const original = proto[name];
  proto[name] = function (this: unknown, ...args: unknown[]) {
    const t0 = performance.now();
    const r = original.apply(this, args);
    if (r instanceof Promise) return r.finally(() => (acc[key] += performance.now() - t0));
    acc[key] += performance.now() - t0;
    return r;
  };
}
wrap(SessionEngine.prototype, 'processBars', 'engine');
wrap(ChallengeRule.prototype, 'run', 'rule');
wrap(BarSource.prototype, 'load', 'load');
wrap(LiveSession.prototype, 'jumpTo', 'advance');
// The commit is SessionCommands' (src/service/replay/commands.ts); ReplayService's before the service
// was split, so the same file measures both sides of that change.
const commands = await loadIfPresent<typeof import('../src/service/replay/commands.ts')>('src/service/replay/commands.ts');
wrap((commands?.SessionCommands ?? ReplayService).prototype, 'commit', 'commit');
wrap(ReplayService.prototype, 'jumpTo', 'service');
const resetAcc = () => {
  for (const k of Object.keys(acc) as (keyof typeof acc)[]) acc[k] = 0;
};

// ---- Databases ----
const dir = mkdtempSync(join(tmpdir(), 'rd-bench-jump-'));
const storePath = join(dir, 'store.db');
const synthPath = join(dir, 'synthetic.db');
const storeConfig = defaultConfig({ dataStartDate: '2020-01-06', dataEndDate: '2020-01-07' });
const synthConfig = defaultConfig({ dataStartDate: dayToDateString(STORE_FIRST_DAY), dataEndDate: dayToDateString(STORE_LAST_DAY) });

let lo: number;
let hi: number;
{
  const db = openDb(storePath);
  const s = await services(db, storeConfig);
  const r = storeGeneratedDays(s, NQ, STORE_FIRST_DAY, STORE_LAST_DAY);
  ({ lo, hi } = r);
  let jumpBars = 0;
  for (const [d, n] of r.barsByDay) if (d >= START_DAY && d < START_DAY + JUMP_DAYS) jumpBars += n;
  console.log(
    `stored ${r.stored.toLocaleString('en-US')} NQ 1 s bars (${dayToDateString(STORE_FIRST_DAY)}..${dayToDateString(STORE_LAST_DAY)}); ` +
      `the jump walks ${jumpBars.toLocaleString('en-US')} of them; price range ${lo}..${hi} ticks`,
  );
  db.close();
}

function services(db: ReturnType<typeof openDb>, config: Config): Promise<Services> {
  return createServices({ config, clock: systemClock, db, jwtSecret: JWT_SECRET });
}

/** The bench user (created once per database); returns its id and API key. */
const users = new Map<string, { id: number; apiKey: string }>();
async function benchUser(path: string, s: Services): Promise<{ id: number; apiKey: string }> {
  const known = users.get(path);
  if (known) return known;
  const created = await s.users.create({ email: EMAIL, plan: 'pro' });
  if (!created.ok) throw new Error('cannot create bench user');
  const u = { id: created.value.user.id, apiKey: created.value.apiKey };
  users.set(path, u);
  return u;
}

/** Far buy limits and sell stops below every price, far sell limits and buy stops above: never filled. */
async function placeFarOrders(s: Services, userId: number, accountId: number, count: number): Promise<void> {
  const contractId = s.contracts.contractFor(NQ).id;
  for (let k = 0; k < count; k++) {
    const kind = k % 4;
    const below = (lo - 2000 - k) / 4;
    const above = (hi + 2000 + k) / 4;
    const type = kind < 2 ? OrderType.Limit : OrderType.Stop;
    const side = kind === 0 || kind === 2 ? OrderSide.Buy : OrderSide.Sell;
    const price = kind === 0 || kind === 3 ? below : above;
    const r = await s.trading.place(userId, {
      accountId, contractId, type, side, size: 1,
      limitPrice: type === OrderType.Limit ? price : undefined,
      stopPrice: type === OrderType.Stop ? price : undefined,
      stopLossTicks: undefined, takeProfitTicks: undefined,
    });
    if (!r.ok) throw new Error(`Order/place failed: ${JSON.stringify(r.error)}`);
  }
}

interface CaseSpec {
  label: string;
  path: string;
  config: Config;
  orders: number;
  challenge: boolean;
  cold: boolean;
}

interface Sample {
  e2e: number;
  engine: number;
  rule: number;
  load: number;
  advance: number;
  commit: number;
  service: number;
}

async function post(base: string, path: string, body: unknown, token: string | null): Promise<any> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${base}/${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return res.json();
}

function serve(s: Services) {
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: createFetch(buildApp(s), silentLogger, false) });
  return { server, base: `http://127.0.0.1:${server.port}/api/sim` };
}

async function timedJump(s: Services, accountId: number, c: CaseSpec): Promise<Sample> {
  const { server, base } = serve(s);
  const user = users.get(c.path) as { id: number; apiKey: string };
  const login = await post(base, 'Auth/loginKey', { userName: EMAIL, apiKey: user.apiKey }, null);
  if (!login.success) throw new Error(`login failed: ${JSON.stringify(login)}`);
  resetAcc();
  const t0 = performance.now();
  const r = await post(base, 'Replay/jumpTo', { accountId, targetTime: `${dayToDateString(START_DAY + JUMP_DAYS)}T00:00:00Z` }, login.token);
  const e2e = performance.now() - t0;
  const sample = { e2e, ...acc };
  if (!r.success) throw new Error(`Replay/jumpTo failed: ${JSON.stringify(r)}`);
  if (r.account.pendingOrders !== c.orders || r.filledOrders.length !== 0 || r.violations.length !== 0) {
    throw new Error(`orders did not stay working: ${JSON.stringify(r.account)}`);
  }
  if (c.challenge && r.propFirm?.status !== 'active') throw new Error(`challenge not active: ${JSON.stringify(r.propFirm)}`);
  const end = await post(base, 'Replay/end', { accountId }, login.token);
  if (!end.success) throw new Error(`Replay/end failed: ${JSON.stringify(end)}`);
  await server.stop(true);
  return sample;
}

async function runOnce(c: CaseSpec): Promise<Sample> {
  let db = openDb(c.path);
  let s = await services(db, c.config);
  const user = await benchUser(c.path, s);
  const challengeId = c.challenge ? (await s.challenges.create(user.id, '50K', 'evaluation', 'standard')).account.id : undefined;
  const started = await s.replay.start(user.id, {
    instrumentSymbol: 'NQ', contractId: undefined, startDate: dayToDateString(START_DAY),
    endDate: dayToDateString(START_DAY + JUMP_DAYS + 2), timeframe: '1m', accountId: challengeId,
  }, SIM_POLICY.start);
  if (!started.ok) throw new Error(`Replay/start failed: ${JSON.stringify(started.error)}`);
  const accountId = started.value.session.accountId;
  await placeFarOrders(s, user.id, accountId, c.orders);
  if (c.cold) {
    await s.shutdown();
    db.close();
    db = openDb(c.path);
    s = await services(db, c.config);
  }
  const sample = await timedJump(s, accountId, c);
  await s.shutdown();
  db.close();
  return sample;
}

const median = (xs: number[]): number => {
  const v = [...xs].sort((a, b) => a - b);
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};

const cases: CaseSpec[] = [
  { label: 'store, 20 orders, cold cache', path: storePath, config: storeConfig, orders: 20, challenge: false, cold: true },
  { label: 'store, 20 orders, warm (after start)', path: storePath, config: storeConfig, orders: 20, challenge: false, cold: false },
  { label: 'synthetic, 20 orders, cold cache', path: synthPath, config: synthConfig, orders: 20, challenge: false, cold: true },
  { label: 'store, 10 orders, cold cache', path: storePath, config: storeConfig, orders: 10, challenge: false, cold: true },
  { label: 'store, 10 orders, cold, challenge 50K', path: storePath, config: storeConfig, orders: 10, challenge: true, cold: true },
];
const samples = cases.map(() => [] as Sample[]);
// The plain/challenge pair (the last two cases) swaps places every round: in a fixed order, the
// engine time of a case moved by up to 30% with the case run before it (memory and GC state).
for (let k = 0; k < WARMUP + RUNS; k++) {
  const order = cases.map((_, i) => i);
  if (k % 2 === 1) order.splice(-2, 2, order.length - 1, order.length - 2);
  for (const i of order) {
    const sample = await runOnce(cases[i]);
    if (k >= WARMUP) samples[i].push(sample);
  }
}

const f = (x: number, w = 6) => x.toFixed(1).padStart(w);
console.log(`Replay/jumpTo ${JUMP_DAYS} days of NQ 1 s bars, 1 m session, over loopback; ${RUNS} runs per case (medians, ms)`);
console.log(`${'case'.padEnd(40)} ${'e2e'.padStart(6)} ${'min'.padStart(6)} ${'engine'.padStart(6)} ${'rule'.padStart(6)} ${'load'.padStart(6)} ${'advance'.padStart(7)} ${'commit'.padStart(6)} ${'service'.padStart(7)}`);
for (let i = 0; i < cases.length; i++) {
  const xs = samples[i];
  const m = (key: keyof Sample) => median(xs.map((x) => x[key]));
  console.log(
    `${cases[i].label.padEnd(40)} ${f(m('e2e'))} ${f(Math.min(...xs.map((x) => x.e2e)))} ${f(m('engine'))} ${f(m('rule'))} ${f(m('load'))} ${f(m('advance'), 7)} ${f(m('commit'))} ${f(m('service'), 7)}`,
  );
}
const plain = median(samples[3].map((x) => x.e2e));
const ruled = median(samples[4].map((x) => x.e2e));
const plainAdvance = median(samples[3].map((x) => x.advance));
const ruledAdvance = median(samples[4].map((x) => x.advance));
const plainEngine = median(samples[3].map((x) => x.engine));
const ruledLoop = median(samples[4].map((x) => x.rule));
console.log(
  `challenge / plain (10 orders, cold): end to end ${ruled.toFixed(1)} / ${plain.toFixed(1)} ms = ${(ruled / plain).toFixed(3)}; ` +
    `advance ${(ruledAdvance / plainAdvance).toFixed(3)}; matching loop (rule.run vs processBars) ${ruledLoop.toFixed(1)} / ${plainEngine.toFixed(1)} ms = ${(ruledLoop / plainEngine).toFixed(3)}  (target ≤ 1.20)`,
);
console.log('targets: store cold end to end ≤ 200 ms, engine ≤ 50 ms');
rmSync(dir, { recursive: true, force: true });
