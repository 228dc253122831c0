// A run's statistics (GET executions/:id `results`: Sharpe, Sortino, Calmar, return and CAGR, exposure,
// expectancy, average trade duration, the buy-and-hold benchmark, the monthly returns) against an
// independent computation on the same trade list: a plain Python script (statistics_reference.py,
// empyrical's definitions and the common backtesting libraries' written from scratch) fed the trades the API serves
// and the first and last bar as the strategy itself printed them.

import { describe, expect, it } from 'bun:test';
import { join } from 'node:path';
import { playgroundAppPerFile, SANDBOX_TEST_MS } from '../support/playground.ts';

// Flat at every trade date's close: in at the 14:30 UTC bar's close, out at the 19:00 bar's; long 1
// after an hour up, short 2 after an hour down, so days win and lose by different amounts.
const STRATEGY = `
def on_bar(ctx, bar):
    if bar.index == 0:
        print('FIRST', bar.time, bar.open)
    ctx.last = (bar.end, bar.close)
    t = bar.time % 86400
    if t == 14 * 3600 + 30 * 60 and ctx.position.qty == 0 and len(ctx.closes) > 12:
        if bar.close >= ctx.closes[-13]:
            ctx.buy(1)
        else:
            ctx.sell(2)
    elif t == 19 * 3600 and ctx.position.qty != 0:
        ctx.flatten()

def on_end(ctx):
    print('LAST', ctx.last[0], ctx.last[1])
`;

const REFERENCE = join(import.meta.dir, 'statistics_reference.py');

function reference(input: unknown): any {
  const r = Bun.spawnSync(['python3', REFERENCE], { stdin: Buffer.from(JSON.stringify(input)), stdout: 'pipe', stderr: 'pipe' });
  if (r.exitCode !== 0) throw new Error(`statistics_reference.py failed: ${r.stderr.toString()}`);
  return JSON.parse(r.stdout.toString());
}

/** The server rounds to two decimals (cents, percent, ratios): equal within half a hundredth. */
function near(server: number | null, ref: number): void {
  expect(server).not.toBeNull();
  expect(Math.abs((server as number) - ref)).toBeLessThanOrEqual(0.005 + 1e-9);
}

const fixture = playgroundAppPerFile();

describe('run statistics', () => {
  it('equal an independent Python computation on the same trades', async () => {
    const p = fixture.app;
    const x = await p.waitEnd(await p.run({ instrument: 'NQ', startDate: '2025-01-27', endDate: '2025-02-07', timeframe: '5m', code: STRATEGY }));
    expect({ status: x.status, error: x.error }).toEqual({ status: 'completed', error: null });
    const logs = x.logs as string[];
    const [, firstTime, firstOpen] = logs.find((l) => l.startsWith('FIRST'))!.split(' ').map(Number);
    const [, lastEnd, lastClose] = logs.find((l) => l.startsWith('LAST'))!.split(' ').map(Number);
    const trades = (await p.call('GET', `executions/${x.id}/trades?limit=1000`)).body.trades;
    const ref = reference({
      startingBalance: 50_000, trades, bars: x.progress.barsTotal, barSeconds: 300, firstTime, firstOpen, lastEnd, lastClose, pointValue: 20,
    });
    // Ten trade dates (two weeks), one trade each: the reference's premise (a trade date per exit date).
    expect({ trades: trades.length, tradeDates: ref.tradeDates }).toEqual({ trades: 10, tradeDates: 10 });
    const r = x.results;
    for (const k of ['returnPct', 'cagrPct', 'sharpeRatio', 'sortinoRatio', 'calmarRatio', 'exposurePct', 'expectancy'] as const) near(r[k], ref[k]);
    expect(Math.abs(r.averageTradeDurationS - ref.averageTradeDurationS)).toBeLessThanOrEqual(0.5);
    expect(r.buyAndHold.entryPrice).toBe(ref.buyAndHold.entryPrice);
    expect(r.buyAndHold.exitPrice).toBe(ref.buyAndHold.exitPrice);
    for (const k of ['pnl', 'returnPct', 'priceChangePct'] as const) near(r.buyAndHold[k], ref.buyAndHold[k]);
    expect(r.monthlyReturns.map((m: any) => m.month)).toEqual(['2025-01', '2025-02']);
    r.monthlyReturns.forEach((m: any, i: number) => near(m.returnPct, ref.monthlyReturns[i].returnPct));
    // A run with losing and winning days has every ratio; the figures are not all alike.
    expect(new Set([r.sharpeRatio, r.sortinoRatio, r.calmarRatio]).size).toBe(3);
  }, SANDBOX_TEST_MS);
});
