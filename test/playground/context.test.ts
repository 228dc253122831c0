// Context timeframes: closed higher-timeframe bars, visible from the first run bar that ends at or
// after their end and never before (no look-ahead), equal to the bars History serves.

import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { isoFromEpochS } from '../../src/lib/iso-time.ts';
import { makePlaygroundApp, type PlaygroundApp, SANDBOX_HOOK_MS, SANDBOX_TEST_MS } from '../support/playground.ts';

const STRATEGY = `
def init(ctx):
    ctx.seen = {'1h': 0, '4h': 0}

def on_bar(ctx, bar):
    for tf in ('1h', '4h'):
        s = ctx.context(tf)
        if len(s) != ctx.seen[tf]:
            ctx.seen[tf] = len(s)
            c = s[-1]
            print('CTX', tf, bar.end, len(s), c.time, c.end, c.open, c.high, c.low, c.close, c.volume)
    try:
        ctx.context('1d')
    except KeyError as e:
        if bar.index == 0:
            print('NO1D', e)
`;

let p: PlaygroundApp;
beforeAll(async () => {
  p = await makePlaygroundApp();
}, SANDBOX_HOOK_MS);
afterAll(async () => {
  await p.close();
}, SANDBOX_HOOK_MS);

describe('contextTimeframes', () => {
  it('shows each closed 1 h and 4 h bar at the first run bar ending at or after it, with History\'s values', async () => {
    const x = await p.waitEnd(await p.run({ instrument: 'NQ', startDate: '2025-02-27', timeframe: '1m', contextTimeframes: ['1h', '4h'], code: STRATEGY }));
    expect({ status: x.status, error: x.error }).toEqual({ status: 'completed', error: null });
    const lines = (x.logs as string[]).filter((l) => l.startsWith('CTX')).map((l) => l.split(' '));
    expect((x.logs as string[]).some((l) => l.startsWith(`NO1D "context timeframe '1d' was not requested for this run (requested: 1h, 4h)"`))).toBe(true);
    const hours = lines.filter((w) => w[1] === '1h');
    // 23:00Z to 22:00Z: 23 one-hour bars, the last (21:00–22:00) shown at the session's last bar.
    expect(hours.map((w) => Number(w[3]))).toEqual(Array.from({ length: 23 }, (_, i) => i + 1));
    const token = await p.login();
    const hist = await p.post('History/retrieveBars', { contractId: 'CON.F.US.ENQ.H25', unit: 3, unitNumber: 1, startTime: '2025-02-26T23:00:00Z', endTime: '2025-02-27T22:00:00Z' }, token);
    expect(hist.body.bars).toHaveLength(23);
    for (const [, , barEnd, n, t, end, o, h, l, c, v] of hours) {
      const ctxEnd = Number(end);
      // Visible at the run bar that ends exactly when it does: never before (no look-ahead), never later.
      expect(Number(barEnd)).toBe(ctxEnd);
      expect(ctxEnd - Number(t)).toBe(3600);
      const hb = hist.body.bars[Number(n) - 1];
      expect({ t: isoFromEpochS(Number(t)), o: Number(o), h: Number(h), l: Number(l), c: Number(c), v: Number(v) }).toEqual(hb);
    }
    const fours = lines.filter((w) => w[1] === '4h');
    expect(fours.length).toBeGreaterThanOrEqual(5);
    for (const w of fours) {
      expect(Number(w[2])).toBe(Number(w[5]));
      expect(Number(w[5]) % (4 * 3600)).toBe(0);
    }
  }, SANDBOX_TEST_MS);
});

describe('ctx.history(n)', () => {
  it('gives the last n bars (and closed context bars) as float columns in the sandbox', async () => {
    const code = `
def on_bar(ctx, bar):
    if bar.index in (0, 90):
        h = ctx.history(3)
        c = ctx.history(2, '1h')
        print('H', bar.index, h.close == [float(x) for x in ctx.closes[-3:]], h.time == [float(x) for x in ctx.times[-3:]],
              len(h.open), type(h.volume[0]).__name__, c.close == [float(x) for x in ctx.context('1h').closes[-2:]], len(c.close))
`;
    const x = await p.waitEnd(await p.run({ instrument: 'NQ', startDate: '2025-02-27', timeframe: '1m', contextTimeframes: ['1h'], code }));
    expect({ status: x.status, error: x.error }).toEqual({ status: 'completed', error: null });
    expect((x.logs as string[]).filter((l) => l.startsWith('H '))).toEqual(['H 0 True True 1 float True 0', 'H 90 True True 3 float True 1']);
  }, SANDBOX_TEST_MS);
});
