// A long advance on cold data (100 daily bars whose days must first be generated) runs in slices:
// the event loop turns while it works, the session answers 503 meanwhile, and the bars are the ones
// a single uninterrupted walk gives.
import { describe, expect, it } from 'bun:test';
import { makeApp } from '../support/app.ts';

async function dailySession() {
  const t = await makeApp({ config: { dataStartDate: '2024-01-01', dataEndDate: '2025-03-07' } });
  const token = await t.login();
  const r = await t.post('Replay/start', { instrumentSymbol: 'NQ', startDate: '2024-01-02', endDate: '2024-12-31', timeframe: '1d' }, token);
  if (!r.body.success) throw new Error(JSON.stringify(r.body));
  return { t, token, accountId: r.body.accountId as number };
}

describe('long advances yield', () => {
  it('a 100-day step lets the event loop turn, refuses a concurrent step with 503, and plays the same bars as one walk', async () => {
    const a = await dailySession();
    let turns = 0;
    const timer = setInterval(() => turns++, 1);
    const pending = a.t.post('Replay/step', { accountId: a.accountId, steps: 100 }, a.token);
    await Bun.sleep(5);
    const concurrent = await a.t.post('Replay/step', { accountId: a.accountId, steps: 1 }, a.token);
    const sliced = await pending;
    clearInterval(timer);
    expect(sliced.body.barsProcessed).toBe(100);
    expect(concurrent.status).toBe(503);
    expect(turns).toBeGreaterThan(3);

    const b = await dailySession();
    const live = await b.t.s.replay.live((await b.t.s.users.list())[0].id, b.accountId);
    if (!live.ok) throw new Error('no session');
    const whole = live.value.step(100);
    const bars = whole.bars!;
    const walked = Array.from({ length: bars.length }, (_, i) => [bars.time[i], bars.open[i], bars.high[i], bars.low[i], bars.close[i], bars.volume[i]]);
    const tick = 0.25;
    expect(sliced.body.bars.map((x: any) => [Date.parse(x.t) / 1000, x.o / tick, x.h / tick, x.l / tick, x.c / tick, x.v])).toEqual(walked);
  }, 300_000); // CPU-heavy: a generous bound for a loaded machine
});
