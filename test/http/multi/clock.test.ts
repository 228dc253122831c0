// One clock over several instruments (issue 34): a step of n advances to the end of the n-th next
// 1 m bucket in which ANY instrument has a bar; totalBars, currentIndex and barsProcessed count those
// buckets; Replay/step answers `barsByContract` (every contract of the session, an empty array when
// it has no bar in the span) beside `bars` (the first instrument's); jumpTo and play move all
// instruments together. Hand-built gaps first (both profiles), then the synthetic history of a real
// day in 5 m buckets against History/retrieveBars of each contract.
import { describe, expect, it } from 'bun:test';
import { gatewayHubs } from '../../../src/http/hubs/index.ts';
import { makeApp, waitFor } from '../../support/app.ts';
import { type Row, userIdOf } from '../../support/challenge.ts';
import { recordingConnection } from '../../support/hub-recording.ts';
import { LIVE } from '../../support/live.ts';
import { account, WALL_MS } from '../../support/replay.ts';
import { ES, flatBar, marketOn, multiApp, NQ, ok, startMulti } from './multi.ts';

const DAY = '2025-03-04';
const m = (minute: string) => `${DAY}T15:${minute}:00Z`;
// NQ has bars at 15:00, 01, 03, 05; ES at 15:01, 02, 05, 06: the union is 15:00, 01, 02, 03, 05, 06.
const DATA: Record<string, Row[]> = {
  NQ: [[m('00'), 20_000], [m('01'), 20_000, 20_004, 19_998, 20_002], [m('03'), 20_003], [m('05'), 20_006]],
  ES: [[m('01'), 5_000], [m('02'), 5_000, 5_002, 4_999, 5_001], [m('05'), 5_003], [m('06'), 5_004]],
};
const NQ01 = { t: m('01'), o: 20_000, h: 20_004, l: 19_998, c: 20_002, v: 1 };

for (const [profile, config] of [['spec', {}], ['live', LIVE]] as const) {
  describe(`the union clock over NQ and ES (${profile})`, () => {
    it('steps, jumps and plays over the union of the buckets; bars per contract, empty where a contract has none', async () => {
      const t = await multiApp(DATA, config);
      const x = await startMulti(t, ['NQ', 'ES'], DAY);
      const first = await ok(t, 'Replay/step', { accountId: x.accountId, steps: 2 });
      expect(first).toMatchObject({ barsProcessed: 2, currentIndex: 2, totalBars: 6, filledOrders: [], violations: [] });
      expect(first.bars).toEqual([flatBar(m('00'), 20_000), NQ01]);
      expect(first.barsByContract).toEqual({ [NQ]: first.bars, [ES]: [flatBar(m('01'), 5_000)] });
      // Up to 15:04: the 15:02 (ES only) and 15:03 (NQ only) buckets.
      const jump = await ok(t, 'Replay/jumpTo', { accountId: x.accountId, targetTime: `${DAY}T15:04:00Z` });
      expect(jump).toMatchObject({ barsProcessed: 2, currentIndex: 4, totalBars: 6 });
      const next = await ok(t, 'Replay/step', { accountId: x.accountId });
      expect(next).toMatchObject({ barsProcessed: 1, currentIndex: 5, bars: [flatBar(m('05'), 20_006)] });
      expect(next.barsByContract).toEqual({ [NQ]: [flatBar(m('05'), 20_006)], [ES]: [flatBar(m('05'), 5_003)] });
      // A long ES at its last price, 5,003 (−1.40), then play plays the last bucket (ES only, 5,004).
      await marketOn(t, x, ES, 1);
      const quotes = await recordingConnection(t, gatewayHubs(t.s)[1], t.token);
      for (const c of [NQ, ES]) await quotes.invoke('SubscribeContractQuotes', c);
      quotes.sent.length = 0;
      expect((await ok(t, 'Replay/play', { accountId: x.accountId, speed: 50 })).playing).toBe(true);
      t.clock.advance(1000);
      await waitFor(() => quotes.sent.some((q) => q.args[0] === ES));
      const paused = await ok(t, 'Replay/pause', { accountId: x.accountId });
      expect(paused.account).toEqual(account(49_998.6, { equity: 50_048.6, unrealizedPnl: 50, marginUsed: 500, positions: 1 }));
      const end = await ok(t, 'Replay/step', { accountId: x.accountId });
      expect(end).toMatchObject({ barsProcessed: 0, currentIndex: 6, totalBars: 6, bars: [] });
      expect((quotes.sent.filter((q) => q.args[0] === ES).at(-1)!.args[1] as any).lastPrice).toBe(5_004);
    });

    it('the first instrument having no bar in a step: `bars` is empty, the other contract has its bar', async () => {
      const t = await multiApp(DATA, config);
      const x = await startMulti(t, ['ES', 'NQ'], DAY);
      const r = await ok(t, 'Replay/step', { accountId: x.accountId });
      expect(r).toMatchObject({ barsProcessed: 1, currentIndex: 1, totalBars: 6, bars: [] });
      expect(r.barsByContract).toEqual({ [ES]: [], [NQ]: [flatBar(m('00'), 20_000)] });
    });
  });
}

// ---- a real day: the synthetic history of 2025-03-03 in 5 m buckets ----

/** Each contract's 5 m bars of the day through History/retrieveBars (spec: oldest first). */
async function historyOf(t: Awaited<ReturnType<typeof synthetic>>, contractId: string): Promise<any[]> {
  const r = await ok(t, 'History/retrieveBars', {
    contractId, unit: 2, unitNumber: 5, startTime: '2025-03-03T00:00:00Z', endTime: '2025-03-04T00:00:00Z', limit: 20_000,
  });
  return r.bars.filter((b: any) => b.t < '2025-03-04');
}

async function synthetic() {
  const t = await makeApp({ nowMs: WALL_MS, config: { dataStartDate: '2025-03-03', dataEndDate: '2025-03-03' } });
  return Object.assign(t, { token: await t.login(), userId: await userIdOf(t, t.email) });
}

describe('a day of synthetic NQ and ES in 5 m buckets', () => {
  it('stepped, jumped and played, each contract\'s bars are History\'s for the same span', async () => {
    const t = await synthetic();
    const hist: Record<string, any[]> = { [NQ]: await historyOf(t, NQ), [ES]: await historyOf(t, ES) };
    const union = [...new Set([...hist[NQ], ...hist[ES]].map((b) => b.t))].sort();
    expect(union.length).toBeGreaterThan(200);
    const span = (from: number, to: number) => Object.fromEntries([NQ, ES].map((c) => [c, hist[c].filter((b) => b.t >= union[from] && b.t < (union[to] ?? '~'))]));
    const started = await ok(t, 'Replay/start', { instrumentSymbols: ['NQ', 'ES'], startDate: '2025-03-03', timeframe: '5m' });
    expect(started.totalBars).toBe(union.length);
    const accountId = started.accountId;

    const six = await ok(t, 'Replay/step', { accountId, steps: 6 });
    expect(six).toMatchObject({ barsProcessed: 6, currentIndex: 6, totalBars: union.length });
    expect(six.barsByContract).toEqual(span(0, 6));
    expect(six.bars).toEqual(span(0, 6)[NQ]);

    const k = union.indexOf('2025-03-03T14:30:00Z');
    expect(k).toBeGreaterThan(6);
    const jump = await ok(t, 'Replay/jumpTo', { accountId, targetTime: '2025-03-03T14:30:00Z' });
    expect(jump).toMatchObject({ barsProcessed: k - 6, currentIndex: k });
    const twelve = await ok(t, 'Replay/step', { accountId, steps: 12 });
    expect(twelve).toMatchObject({ barsProcessed: 12, currentIndex: k + 12 });
    expect(twelve.barsByContract).toEqual(span(k, k + 12));

    // Play part of the day: wherever it paused, the next step continues both contracts from there,
    // and each contract's last quote is its close of the last bucket played.
    const quotes = await recordingConnection(t, gatewayHubs(t.s)[1], t.token);
    for (const c of [NQ, ES]) await quotes.invoke('SubscribeContractQuotes', c);
    quotes.sent.length = 0;
    await ok(t, 'Replay/play', { accountId, speed: 50 });
    t.clock.advance(240); // 24 buckets due at 100 a second
    await waitFor(() => [NQ, ES].every((c) => quotes.sent.some((q) => q.args[0] === c)));
    await ok(t, 'Replay/pause', { accountId });
    const playedQuotes = [...quotes.sent];
    const after = await ok(t, 'Replay/step', { accountId });
    const played = after.currentIndex - 1;
    expect(played).toBeGreaterThan(k + 12);
    expect(after.barsProcessed).toBe(1);
    expect(after.barsByContract).toEqual(span(played, played + 1));
    for (const c of [NQ, ES]) {
      const last = playedQuotes.filter((q) => q.args[0] === c).at(-1)!.args[1] as any;
      expect(last.lastPrice).toBe(span(0, played)[c].at(-1).c);
      // The step after the pause quotes the bucket it played.
      expect((quotes.sent.filter((q) => q.args[0] === c).at(-1)!.args[1] as any).lastPrice).toBe(span(played, played + 1)[c].at(-1).c);
    }

    // Play to the end of the data: the step after it has nothing left.
    await ok(t, 'Replay/play', { accountId, speed: 50 });
    t.clock.advance(100_000);
    await waitFor(() => t.s.replay.liveSessionsOf(t.userId)[0].playTimer === null, 120_000);
    for (const c of [NQ, ES]) expect((quotes.sent.filter((q) => q.args[0] === c).at(-1)!.args[1] as any).lastPrice).toBe(hist[c].at(-1).c);
    expect(await ok(t, 'Replay/step', { accountId })).toMatchObject({ barsProcessed: 0, currentIndex: union.length, totalBars: union.length });
  }, 120_000);
});
