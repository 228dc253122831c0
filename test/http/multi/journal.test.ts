// The journal over a session of several instruments (issue 34's journal, issue 30's review): each
// round trip is read on its own contract — its symbol named, its prices at its own tick, its initial
// stop among its own contract's stops, its excursions on its own bars and tick value — in the detail,
// the review and the CSV. NQ ($5 a 0.25 tick, $1.40 a side) beside GC ($10 a 0.1 tick, $1.62 a side),
// hand-built bars (multi.ts), so every figure below is worked out by hand.
import { beforeAll, describe, expect, it } from 'bun:test';
import type { ChallengeApp, Row } from '../../support/challenge.ts';
import { webCall, webLogin } from '../../support/app.ts';
import { marketOn, type Multi, multiApp, NQ, ok } from './multi.ts';

const DAY = '2025-03-04';
const at = (mm: string) => `${DAY}T15:${mm}:00Z`;
const PASSWORD = 'journal of two contracts';
// NQ: flat at 20,000 but for 15:02 (high 20,010, low 19,990); GC: flat at 2,900.0 but for 15:02
// (high 2,905.0, low 2,898.0), then 2,903.0.
const DATA: Record<string, Row[]> = {
  NQ: [[at('00'), 20_000], [at('01'), 20_000], [at('02'), 20_000, 20_010, 19_990, 20_000], [at('03'), 20_000], [at('04'), 20_000]],
  GC: [[at('00'), 2_900], [at('01'), 2_900], [at('02'), 2_900, 2_905, 2_898, 2_903], [at('03'), 2_903], [at('04'), 2_903]],
};

let t: ChallengeApp;
let x: Multi;
let cookie: string;
let GC: string;

beforeAll(async () => {
  t = await multiApp(DATA);
  await t.s.webAuth.setPassword(t.email, PASSWORD);
  cookie = await webLogin(t, t.email, PASSWORD);
  const started = await ok(t, 'Replay/start', { instrumentSymbols: ['NQ', 'GC'], startDate: DAY, timeframe: '1m' });
  x = { accountId: started.accountId, contracts: started.instruments.map((i: any) => i.contractId) };
  GC = x.contracts[1];
  expect(GC).toStartWith('CON.F.US.GCE.');
  const a = x.accountId;
  await ok(t, 'Replay/step', { accountId: a }); // 15:00 played
  // GC long 1 at 2,900.0 with a stop at 2,897.0 (30 ticks, $300 at risk); an NQ stop far away that
  // must not be taken for GC's (it is nearer GC's entry in price units than GC's own is not).
  await marketOn(t, x, GC, 1);
  await ok(t, 'Order/place', { accountId: a, contractId: GC, type: 4, side: 1, size: 1, stopPrice: 2_897 });
  await marketOn(t, x, NQ, -1); // NQ short 1 at 20,000, no stop
  await ok(t, 'Replay/step', { accountId: a, steps: 3 }); // 15:01..15:03 played
  await ok(t, 'Position/closeContract', { accountId: a, contractId: GC }); // at 2,903.0
  await ok(t, 'Position/closeContract', { accountId: a, contractId: NQ }); // at 20,000
  await ok(t, 'Replay/end', { accountId: a });
});

const get = (path: string) => webCall(t, 'GET', `/api/auth/journal/${x.accountId}${path}`, { cookie });

describe('the journal of a session over NQ and GC', () => {
  it('the detail names each trade\'s contract and prices it at its own tick', async () => {
    const r = await get('');
    expect(r.body.trades.map((tr: any) => [tr.tradeNumber, tr.symbol, tr.side, tr.entryPrice, tr.exitPrice, tr.pnl])).toEqual([
      // GC: +30 ticks × $10 = $300, less 2 × $1.62; NQ: flat, less 2 × $1.40. Closed in this order.
      [1, 'GC', 'long', 2_900, 2_903, 296.76],
      [2, 'NQ', 'short', 20_000, 20_000, -2.8],
    ]);
  });

  it('the review reads R on GC\'s own stop and the excursions on GC\'s bars and tick value', async () => {
    const r = await get('/review');
    const [gc, nq] = r.body.trades;
    // GC: stop 2,897.0 → 30 ticks × $10 = $300 at risk; R = 296.76 / 300 = 0.99. Low 2,898.0 → MAE
    // 20 ticks ($200); high 2,905.0 → MFE 50 ticks ($500).
    expect(gc).toMatchObject({ symbol: 'GC', initialStop: 2_897, risk: 300, rMultiple: 0.99, maeTicks: 20, mfeTicks: 50, mae: 200, mfe: 500 });
    // NQ short at 20,000: high 20,010 → MAE 40 ticks ($200), low 19,990 → MFE 40 ticks; no stop of its own.
    expect(nq).toMatchObject({ symbol: 'NQ', initialStop: null, risk: null, rMultiple: null, maeTicks: 40, mfeTicks: 40, mae: 200, mfe: 200 });
  });

  it('the CSV names each trade\'s symbol, with its own tick\'s decimals', async () => {
    const r = await get('/trades.csv');
    const rows = (r.body as string).split('\r\n');
    expect(rows[0].split(',').slice(0, 5)).toEqual(['tradeNumber', 'symbol', 'side', 'size', 'entryTime']);
    expect(rows[1].split(',').slice(0, 8)).toEqual(['1', 'GC', 'long', '1', `${DAY}T15:01:00Z`, '2900.0', `${DAY}T15:04:00Z`, '2903.0']);
    expect(rows[2].split(',').slice(0, 8)).toEqual(['2', 'NQ', 'short', '1', `${DAY}T15:01:00Z`, '20000.00', `${DAY}T15:04:00Z`, '20000.00']);
  });
});
