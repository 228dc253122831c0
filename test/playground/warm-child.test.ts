// A serving child warms up before it says `ready` (runner/child/warm.ts): a short built-in run over
// synthetic bars through the real harness, bridge and engine, then the interpreter put back as it was.
// A run's child reports the warm-up's bars among its timings (none when it failed), and the run sees
// a fresh interpreter: no fill, order or engine state of the warm-up, the first order id and fill id 1.

import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { WARM_BARS } from '../../runner/limits.ts';
import { limits } from '../../src/config.ts';
import { Execution } from '../../src/service/playground/execution.ts';
import { makePlaygroundApp, type PlaygroundApp, SANDBOX_HOOK_MS, SANDBOX_TEST_MS } from '../support/playground.ts';

const FRESH = `
import sys, linecache

def init(ctx):
    ctx.seen = []
    if ctx.fills or ctx.orders or ctx.position.qty or ctx.balance != ctx.starting_balance:
        ctx.seen.append('account')
    if any('EMA' + '(30)' in line for line in linecache.getlines('strategy.py')):
        ctx.seen.append('warm-up source')

def on_bar(ctx, bar):
    if bar.index == 0:
        ctx.buy(1)
    elif bar.index == 1:
        o = ctx.fills[0]
        print('seen:', ','.join(ctx.seen) or 'nothing', 'order:', o.order_id, 'fill:', o.id)
`;

let p: PlaygroundApp;
beforeAll(async () => {
  p = await makePlaygroundApp();
  await p.s.runner().warm();
}, SANDBOX_HOOK_MS);
afterAll(async () => {
  await p?.close();
}, SANDBOX_HOOK_MS);

describe('a warmed-up child', () => {
  it('says how many bars it warmed up on, and its run starts from a fresh interpreter and engine', async () => {
    const userId = (await p.s.users.list())[0].id;
    const planned = await p.s.runs.plan(userId, { instrument: 'NQ', startDate: '2025-02-27', endDate: '2025-02-27', timeframe: '1m', code: FRESH, params: {} });
    if (!planned.ok) throw new Error(JSON.stringify(planned.error));
    const x = planned.value;
    const exec = new Execution(
      {
        id: crypto.randomUUID(), userId, span: { inst: x.inst, tf: x.tf, ctx: x.ctx, startS: x.startS, endS: x.endS }, code: x.code, params: x.params,
        totalBars: x.totalBars, speed: null, timeoutMs: 600_000, slippageTicks: 1, startingBalanceCents: limits.startingBalanceCents, nowMs: () => Date.now(),
        logError: () => {},
      },
      p.s.bars,
    );
    await exec.run(await p.s.runner().acquire());
    expect([exec.status, exec.error]).toEqual(['completed', null]);
    expect(exec.childTimings.warmBars).toBe(WARM_BARS);
    expect(WARM_BARS).toBeGreaterThan(0);
    expect(exec.logs.view().filter((l) => l.startsWith('seen:'))).toEqual(['seen: nothing order: 1 fill: 1']);
  }, SANDBOX_TEST_MS);
});
