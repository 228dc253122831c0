// The playground trades exactly as Replay does. A strategy places market (with slippage), limit,
// stop and stop-limit orders with brackets, cancels and flattens over one NQ session on 1 m bars,
// printing every decision and every fill it sees. The test then drives the same decisions through
// Replay/step, Order/place, Order/cancel and Position/closeContract over HTTP and asserts the same
// fills (order id, side, size, price, time) and the same final balance, to the cent.

import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { isoFromEpochS } from '../../src/lib/iso-time.ts';
import { makePlaygroundApp, type PlaygroundApp, SANDBOX_HOOK_MS, SANDBOX_TEST_MS } from '../support/playground.ts';

const STRATEGY = `
def fmt(x):
    return '-' if x is None else repr(x)

def do(ctx, bar, *parts):
    print('DO', bar.time, *[fmt(p) if not isinstance(p, str) else p for p in parts])

def on_fill(ctx, f):
    print('FILL', f.order_id, f.side, f.size, repr(f.price), f.time)

def place(ctx, bar, method, type_code, side, size, limit=None, stop=None, sl=None, tp=None):
    args = [a for a in (stop, limit) if a is not None] if type_code == 3 else [a for a in (limit, stop) if a is not None]
    o = getattr(ctx, method)(*args, size=size, stop_loss=sl, take_profit=tp)
    do(ctx, bar, 'place', type_code, side, size, limit, stop, sl, tp)
    return o

def init(ctx):
    ctx.keep = []

def on_bar(ctx, bar):
    i = bar.index % 180
    c = bar.close
    t = ctx.tick_size
    if i == 3:
        place(ctx, bar, 'buy', 2, 0, 1, sl=12, tp=16)
    elif i == 20:
        ctx.keep.append(place(ctx, bar, 'buy_limit', 1, 0, 2, limit=c - 4 * t, sl=10, tp=10))
    elif i == 40:
        ctx.keep.append(place(ctx, bar, 'sell_stop', 4, 1, 1, stop=c - 6 * t))
    elif i == 60:
        for o in ctx.keep:
            if o.is_working:
                ctx.cancel(o)
                do(ctx, bar, 'cancel', o.id)
        ctx.keep = []
    elif i == 70:
        place(ctx, bar, 'buy_stop_limit', 3, 0, 1, limit=c + 5 * t, stop=c + 3 * t, tp=8)
    elif i == 100:
        place(ctx, bar, 'sell', 2, 1, 3)
    elif i == 130 or i == 179:
        ctx.flatten()
        do(ctx, bar, 'flatten')
    elif i == 150:
        place(ctx, bar, 'sell_limit', 1, 1, 1, limit=c + 2 * t, sl=6)
`;

let p: PlaygroundApp;
beforeAll(async () => {
  p = await makePlaygroundApp({ slippageTicks: 1 });
}, SANDBOX_HOOK_MS);
afterAll(async () => {
  await p.close();
}, SANDBOX_HOOK_MS);

type Decision = string[];

describe('playground and Replay', () => {
  it('give identical fills, prices, times and balances for the same decisions', async () => {
    const x = await p.waitEnd(await p.run({ instrument: 'NQ', startDate: '2025-02-27', timeframe: '1m', code: STRATEGY }));
    expect({ status: x.status, error: x.error }).toEqual({ status: 'completed', error: null });
    const decisions = new Map<string, Decision[]>();
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
    expect(decisions.size).toBeGreaterThan(40);
    expect(playgroundFills.length).toBeGreaterThan(20);

    // The same decisions through the current family.
    const token = await p.login();
    const start = await p.post('Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-02-26', endDate: '2025-02-27', timeframe: '1m' }, token);
    const accountId = start.body.accountId;
    const contractId = start.body.instrument.contractId;
    // The session opens Wednesday 17:00 CT = 23:00Z; nothing trades before it.
    await p.post('Replay/jumpTo', { accountId, targetTime: '2025-02-26T23:00:00Z' }, token);
    const num = (v: string) => (v === '-' ? null : Number(v));
    for (let n = 0; n < x.progress.barsTotal; n++) {
      let step = await p.post('Replay/step', { accountId, steps: 1 }, token);
      // 503 + Retry-After: the session is loading its next day; clients retry (spec Errors 3).
      for (let tries = 0; step.status === 503 && tries < 100; tries++) {
        await Bun.sleep(20);
        step = await p.post('Replay/step', { accountId, steps: 1 }, token);
      }
      expect({ n, status: step.status, processed: step.body.barsProcessed }).toEqual({ n, status: 200, processed: 1 });
      for (const d of decisions.get(step.body.bars[0].t) ?? []) {
        let r;
        if (d[0] === 'place') {
          const [type, side, size, limit, stop, sl, tp] = d.slice(1).map(num);
          r = await p.post('Order/place', {
            accountId, contractId, type, side, size, limitPrice: limit, stopPrice: stop,
            stopLossBracket: sl === null ? null : { ticks: sl }, takeProfitBracket: tp === null ? null : { ticks: tp },
          }, token);
        } else if (d[0] === 'cancel') {
          r = await p.post('Order/cancel', { accountId, orderId: Number(d[1]) }, token);
        } else {
          const open = await p.post('Order/searchOpen', { accountId }, token);
          for (const o of open.body.orders) await p.post('Order/cancel', { accountId, orderId: o.id }, token);
          const pos = await p.post('Position/searchOpen', { accountId }, token);
          r = pos.body.positions.length > 0 ? await p.post('Position/closeContract', { accountId, contractId }, token) : { body: { success: true } };
        }
        expect({ d, ok: r.body.success }).toEqual({ d, ok: true });
      }
    }
    const replayFills = (await p.post('Trade/search', { accountId }, token)).body.trades
      .slice()
      .reverse()
      .map((f: any) => `${f.orderId} ${f.side} ${f.size} ${f.price} ${f.creationTimestamp}`);
    const end = await p.post('Replay/end', { accountId }, token);

    // The end of the run flattens at the last close with slippage, as Replay/end does.
    expect(replayFills.slice(0, playgroundFills.length)).toEqual(playgroundFills);
    expect(end.body.account.balance).toBe(x.balance);
    expect(end.body.account.balance).toBe(x.results.finalBalance);
    expect(x.totalPnl).toBe(Math.round((end.body.account.balance - 50_000) * 100) / 100);
  }, SANDBOX_TEST_MS);
});
