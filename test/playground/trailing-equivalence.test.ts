// The playground's trailing stops and modify trade exactly as a replay session does. A strategy
// places entries with trailing stop-losses, trailing stop orders and limits it then modifies (size,
// price, a leg's trail), printing every decision and every fill it sees. The run must complete: the
// server's ledger replays the child's actions and stops the run if its balance or fill count ever
// differs from the child's engine. The same decisions then go through TradingService (the gateway's
// order model: allowExtendedTypes, trailPrice in price units) on a Replay session of the same bars,
// and give the same fills (order id, side, size, price, time) and the same final balance.

import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { coreLimits } from '../../src/core-limits.ts';
import { isoFromEpochS } from '../../src/lib/iso-time.ts';
import { makePlaygroundApp, type PlaygroundApp, SANDBOX_HOOK_MS, SANDBOX_TEST_MS } from '../support/playground.ts';

const STRATEGY = `
def fmt(x):
    return '-' if x is None else repr(x)

def do(bar, *parts):
    print('DO', bar.time, *[fmt(p) if not isinstance(p, str) else p for p in parts])

def on_fill(ctx, f):
    print('FILL', f.order_id, f.side, f.size, repr(f.price), f.time)

def init(ctx):
    ctx.entry = None

def on_bar(ctx, bar):
    i = bar.index % 120
    t = ctx.tick_size
    if i == 5 and ctx.position.qty == 0:
        ctx.buy(1, trail=12, take_profit=60)
        do(bar, 'place', 2, 0, 1, None, None, 12, 60, None, 5)
    elif i == 30:
        for o in ctx.orders:
            if o.type == 'trailing_stop':
                ctx.modify(o.id, trail=8)
                do(bar, 'modify', o.id, None, None, None, 8)
    elif i == 50 and ctx.position.qty == 0:
        ctx.sell_trailing_stop(10)
        do(bar, 'place', 5, 1, 1, None, None, None, None, 10, None)
    elif i == 70:
        ctx.entry = ctx.buy_limit(bar.close - 8 * t, trail=6)
        do(bar, 'place', 1, 0, 1, bar.close - 8 * t, None, 6, None, None, 5)
    elif i == 71 and ctx.entry is not None and ctx.entry.is_working:
        ctx.modify(ctx.entry, size=2, limit=bar.close - 4 * t)
        do(bar, 'modify', ctx.entry.id, 2, bar.close - 4 * t, None, None)
    elif i == 110:
        ctx.flatten()
        do(bar, 'flatten')
`;

let p: PlaygroundApp;
beforeAll(async () => {
  p = await makePlaygroundApp({ slippageTicks: 1 });
}, SANDBOX_HOOK_MS);
afterAll(async () => {
  await p.close();
}, SANDBOX_HOOK_MS);

describe('playground trailing stops and modify against Replay', () => {
  it('give identical fills, prices, times and balances for the same decisions', async () => {
    const x = await p.waitEnd(await p.run({ instrument: 'NQ', startDate: '2025-02-27', timeframe: '1m', code: STRATEGY }));
    expect({ status: x.status, error: x.error }).toEqual({ status: 'completed', error: null });
    const decisions = new Map<string, string[][]>();
    const playgroundFills: string[] = [];
    for (const line of x.logs as string[]) {
      const w = line.split(' ');
      if (w[0] === 'DO') {
        const at = isoFromEpochS(Number(w[1]));
        decisions.set(at, [...(decisions.get(at) ?? []), w.slice(2)]);
      } else if (w[0] === 'FILL') {
        playgroundFills.push(`${w[1]} ${w[2] === 'buy' ? 0 : 1} ${w[3]} ${Number(w[4])} ${isoFromEpochS(Number(w[5]))}`);
      }
    }
    const kinds = [...decisions.values()].flat().map((d) => d[0]);
    expect(kinds.filter((k) => k === 'modify').length).toBeGreaterThan(5);
    expect(playgroundFills.length).toBeGreaterThan(10);

    const token = await p.login();
    const userId = (await p.s.users.list()).find((u) => u.email === p.email)!.id;
    const start = await p.post('Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-02-26', endDate: '2025-02-27', timeframe: '1m' }, token);
    const accountId = start.body.accountId;
    const contractId = start.body.instrument.contractId;
    await p.post('Replay/jumpTo', { accountId, targetTime: '2025-02-26T23:00:00Z' }, token);
    const num = (v: string) => (v === '-' ? null : Number(v));
    const tick = 0.25;
    for (let n = 0; n < x.progress.barsTotal; n++) {
      let step = await p.post('Replay/step', { accountId, steps: 1 }, token);
      for (let tries = 0; step.status === 503 && tries < 100; tries++) {
        await Bun.sleep(20);
        step = await p.post('Replay/step', { accountId, steps: 1 }, token);
      }
      expect({ n, status: step.status, processed: step.body.barsProcessed }).toEqual({ n, status: 200, processed: 1 });
      for (const d of decisions.get(step.body.bars[0].t) ?? []) {
        let ok: boolean;
        if (d[0] === 'place') {
          const [type, side, size, limit, stop, sl, tp, trail, slType] = d.slice(1).map(num);
          const r = await p.s.trading.place(userId, {
            accountId, contractId, type: type as 1, side: side as 0, size: size as number, limitPrice: limit, stopPrice: stop,
            stopLossTicks: sl, takeProfitTicks: tp, trailPrice: trail === null ? null : trail * tick, stopLossType: slType,
            allowExtendedTypes: true,
          });
          ok = r.ok;
        } else if (d[0] === 'modify') {
          const [id, size, limit, stop, trail] = d.slice(1).map(num);
          const r = await p.s.trading.modify(userId, { accountId, orderId: id as number, size, limitPrice: limit, stopPrice: stop, trailPrice: trail === null ? null : trail * tick });
          // A leg may have gone between the decision and now in both worlds alike; the playground ignores it then too.
          ok = r.ok || r.error.kind === 'order_filled' || r.error.kind === 'order_canceled';
        } else {
          const open = await p.s.trading.searchOpen(userId, accountId, 'gateway');
          for (const o of open.ok ? open.value.rows : []) await p.post('Order/cancel', { accountId, orderId: o.id }, token);
          const pos = await p.post('Position/searchOpen', { accountId }, token);
          ok = pos.body.positions.length === 0 || (await p.post('Position/closeContract', { accountId, contractId }, token)).body.success;
        }
        expect({ d, ok }).toEqual({ d, ok: true });
      }
    }
    const replayFills = (await p.post('Trade/search', { accountId }, token)).body.trades
      .slice()
      .reverse()
      .map((f: any) => `${f.orderId} ${f.side} ${f.size} ${f.price} ${f.creationTimestamp}`);
    const end = await p.post('Replay/end', { accountId }, token);
    expect(replayFills.slice(0, playgroundFills.length)).toEqual(playgroundFills);
    expect(end.body.account.balance).toBe(x.balance);
  }, SANDBOX_TEST_MS);
});

it("the strategy API's trail bound is the engine's (runner/python/strategy_api.py mirrors src/core-limits.ts)", () => {
  const py = readFileSync(join(import.meta.dir, '..', '..', 'runner', 'python', 'strategy_api.py'), 'utf8');
  expect(Number(/^TRAIL_TICKS_MAX = ([0-9_]+)/m.exec(py)?.[1].replaceAll('_', ''))).toBe(coreLimits.trailTicksMax);
});
