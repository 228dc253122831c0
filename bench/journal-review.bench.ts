// The journal's review (issue 30, "A journal that teaches"): GET /api/auth/journal/:id/review on an
// ended 1 m NQ session of TRADES round trips (default 1,000) over a week of generated 1 s bars, each
// with a 40-tick stop-loss bracket, held four bars: the initial stops, MAE/MFE on the stored bars
// and the statistics. Then the statistics across sessions (GET /journal/review, no bars read) and
// the CSV export. Through app.handle (no socket): the handlers' own cost, on this machine's load.
//
// The week's bars are in BarSource's cache from the replay (as on a server shortly after the session
// ended); prints the first review and the median of REPEAT more.
//
// Run: ./node_modules/.bin/bun bench/journal-review.bench.ts   (TRADES=5000 for the listed maximum)
// A/B: ROOT=<checkout> measures that checkout's src/ (bench/root.ts), from the commit that added the review on.

import { median } from './support.ts';
import { load } from './root.ts';

const { defaultConfig } = await load<typeof import('../src/config.ts')>('src/config.ts');
const { buildApp } = await load<typeof import('../src/app.ts')>('src/app.ts');
const { systemClock } = await load<typeof import('../src/lib/clock.ts')>('src/lib/clock.ts');
const { randomSecret } = await load<typeof import('../src/lib/secrets.ts')>('src/lib/secrets.ts');
const { createServices } = await load<typeof import('../src/service/services.ts')>('src/service/services.ts');
const { openDb } = await load<typeof import('../src/store/db.ts')>('src/store/db.ts');

const TRADES = Number(process.env.TRADES ?? 1000);
const REPEAT = 9;

const s = await createServices({
  config: defaultConfig({ dataStartDate: '2025-03-03', dataEndDate: '2025-03-07', logRequests: false }),
  clock: systemClock,
  db: openDb(':memory:'),
  jwtSecret: new TextEncoder().encode(randomSecret()),
});
const app = buildApp(s);
const email = 'bench@example.com';
const created = await s.users.create({ email, password: 'correct horse battery staple', plan: 'pro' });
if (!created.ok) throw new Error('user');
const web = await s.webAuth.login(email, 'correct horse battery staple', 'bench');
const bot = await s.auth.login(email, created.value.apiKey, 'bench');
if (!web.ok || !bot.ok) throw new Error('login');
const cookie = `rd_session=${web.value.cookieValue}`;

async function call(path: string, body: unknown): Promise<any> {
  const r = await app.handle(new Request(`http://localhost/api/sim/${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${bot.ok ? bot.value.token : ''}` }, body: JSON.stringify(body),
  }));
  const json: any = await r.json();
  if (!json.success) throw new Error(`${path}: ${JSON.stringify(json)}`);
  return json;
}

async function timedGet(path: string): Promise<{ ms: number; body: any }> {
  const t0 = performance.now();
  const r = await app.handle(new Request(`http://localhost/api/auth/${path}`, { headers: { cookie } }));
  const text = await r.text();
  const ms = performance.now() - t0;
  return { ms, body: r.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text };
}

const st = await call('Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-03', endDate: '2025-03-07', timeframe: '1m' });
const accountId: number = st.accountId;
const contractId: string = st.instrument.contractId;
await call('Replay/jumpTo', { accountId, targetTime: '2025-03-03T01:00:00Z' });
for (let i = 0; i < TRADES; i++) {
  await call('Order/place', { accountId, contractId, type: 2, side: i % 2, size: 1, stopLossBracket: { ticks: 40 } });
  await call('Replay/step', { accountId, steps: 4 });
  const open = await call('Position/searchOpen', { accountId });
  if (open.positions.length > 0) await call('Position/closeContract', { accountId, contractId });
  await call('Replay/step', { accountId, steps: 1 });
}
await call('Replay/end', { accountId });

const first = await timedGet(`journal/${accountId}/review?timeZone=America/Chicago`);
const warm: number[] = [];
for (let k = 0; k < REPEAT; k++) warm.push((await timedGet(`journal/${accountId}/review?timeZone=America/Chicago`)).ms);
const across: number[] = [];
for (let k = 0; k < REPEAT; k++) across.push((await timedGet('journal/review')).ms);
const csv: number[] = [];
let csvChars = 0;
for (let k = 0; k < REPEAT; k++) {
  const r = await timedGet(`journal/${accountId}/trades.csv`);
  csv.push(r.ms);
  csvChars = String(r.body).length;
}
const b = first.body;
console.log(`${b.trades.length} trades over ${b.stats.calendar.length} trading days, ${b.stats.tradesWithR} with R (expectancy ${b.stats.expectancy} USD, ${b.stats.expectancyR} R)`);
console.log(`review: first ${first.ms.toFixed(0)} ms, then median ${median(warm).toFixed(1)} ms`);
console.log(`across sessions: median ${median(across).toFixed(1)} ms`);
console.log(`CSV: median ${median(csv).toFixed(1)} ms, ${csvChars.toLocaleString('en-US')} characters`);
await s.shutdown();
