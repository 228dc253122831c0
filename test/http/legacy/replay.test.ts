// Earlier family: Replay/start, step, jumpTo, play, pause, end.
import { describe, expect, it } from 'bun:test';
import type { ManualClock } from '../../../src/lib/clock.ts';
import { waitFor } from '../../support/app.ts';
import type { BarSpec } from '../../support/replay.ts';
import { envelope, failure } from '../../support/legacy.ts';
import { legacyApp, legacyPlaceOk, legacyStart, legacyStep, legacyTradingApp, NQ_LEGACY } from '../../support/legacy-trading.ts';

const BAR0: BarSpec = [19995, 20005, 19990, 20000];
const start = { instrumentSymbol: 'NQ', startDate: '2025-03-03', timeframe: '1m' };

describe('Replay/start', () => {
  it('answers accountId, contractId, totalBars and the trade date session as startTime/endTime', async () => {
    const t = await legacyApp([BAR0, 20000, 20000]);
    const r = await t.call('Replay/start', start);
    expect(r.body).toEqual({
      accountId: expect.any(Number),
      contractId: expect.stringMatching(NQ_LEGACY),
      totalBars: 3,
      // 17:00 CT the evening before to 16:00 CT (CST, UTC-6).
      startTime: '2025-03-02T23:00:00Z',
      endTime: '2025-03-03T22:00:00Z',
      ...envelope,
    });
  });

  it('CL plays the oil history and shows CL contract IDs', async () => {
    const t = await legacyApp([BAR0]);
    const r = await t.call('Replay/start', { instrumentSymbol: 'CL', startDate: '2024-01-08', timeframe: '1h' });
    expect(r.body.success).toBe(true);
    expect(r.body.contractId).toMatch(/^CON\.F\.US\.CL\.[FGHJKMNQUVXZ]\d\d$/);
    expect(r.body.totalBars).toBeGreaterThan(20); // hour bars of 17:00 to 16:00 CT, where the history has bars
  });

  it('1D is a timeframe; endDate extends the span to that date\'s session close', async () => {
    const t = await legacyApp([BAR0]);
    const r = await t.call('Replay/start', { instrumentSymbol: 'ES', startDate: '2024-01-08', endDate: '2024-01-09', timeframe: '1D' });
    expect(r.body).toMatchObject({ startTime: '2024-01-07T23:00:00Z', endTime: '2024-01-09T22:00:00Z', success: true });
  });

  it.each([
    ['unknown instrument', { instrumentSymbol: 'ZZ' }, 'Instrument not found'],
    ['a current-family-only symbol', { instrumentSymbol: 'LIGHTCMDUSD' }, 'Instrument not found'],
    ['missing instrument', { instrumentSymbol: undefined }, 'instrumentSymbol is required'],
    ['no data on the date', { startDate: '2025-03-05' }, 'No data available for the specified date'],
    ['a Saturday', { startDate: '2025-03-08' }, 'No data available for the specified date'],
    ['unknown timeframe', { timeframe: '2m' }, 'Invalid timeframe'],
    ['lower-case 1d', { timeframe: '1d' }, 'Invalid timeframe'],
    ['missing timeframe', { timeframe: undefined }, 'Invalid timeframe'],
    ['missing startDate', { startDate: undefined }, 'startDate is required'],
    ['bad startDate', { startDate: '03/03/2025' }, 'startDate must be a date in YYYY-MM-DD format'],
    ['endDate before startDate', { endDate: '2025-03-02' }, 'endDate must not be before startDate'],
  ])('%s → errorCode 1 "%s"', async (_n, over, message) => {
    const t = await legacyApp([BAR0]);
    expect((await t.call('Replay/start', { ...start, ...over })).body).toEqual(failure(1, message));
    expect(t.s.replay.liveCount(1)).toBe(0);
  });

  it('one live session per user, whichever family started it', async () => {
    const t = await legacyApp([BAR0]);
    const x = await legacyStart(t);
    expect((await t.call('Replay/start', start)).body).toEqual(failure(1, 'An active session already exists'));
    await t.call('Replay/end', { accountId: x.accountId });
    expect((await t.call('Replay/start', start)).body.success).toBe(true);
    const u = await legacyApp([BAR0]);
    await u.post('Replay/start', start, u.token);
    expect((await u.call('Replay/start', start)).body).toEqual(failure(1, 'An active session already exists'));
  });
});

describe('Replay/step', () => {
  it('returns bars, currentBar (0-based), totalBars and complete', async () => {
    const t = await legacyApp([BAR0, 20010, 20020]);
    const x = await legacyStart(t);
    expect(await legacyStep(t, x)).toEqual({
      currentBar: 0, totalBars: 3, complete: false,
      bars: [{ t: '2025-03-03T14:30:00Z', o: 19995, h: 20005, l: 19990, c: 20000, v: 1 }],
      ...envelope,
    });
    const rest = await legacyStep(t, x, 5);
    expect([rest.currentBar, rest.complete, rest.bars.length]).toEqual([2, true, 2]);
    const after = await legacyStep(t, x);
    expect([after.currentBar, after.complete, after.bars]).toEqual([2, true, []]);
  });

  it.each([
    ['steps over 1000', { steps: 1001 }, 'steps must be a whole number from 1 to 1000'],
    ['steps 0', { steps: 0 }, 'steps must be a whole number from 1 to 1000'],
    ['unknown account', { accountId: 999_999 }, 'Account not found'],
  ])('%s → errorCode 1', async (_n, over, message) => {
    const t = await legacyApp([BAR0]);
    const x = await legacyStart(t);
    expect((await t.call('Replay/step', { accountId: x.accountId, ...over })).body).toEqual(failure(1, message));
  });

  it('1000 steps are allowed', async () => {
    const t = await legacyApp([BAR0]);
    const x = await legacyStart(t);
    expect((await legacyStep(t, x, 1000)).complete).toBe(true);
  });
});

describe('Replay/jumpTo', () => {
  it('takes `timestamp`; complete when it is past the end', async () => {
    const t = await legacyApp([BAR0, 20000, 20000, 20000]);
    const x = await legacyStart(t);
    const r = await t.call('Replay/jumpTo', { accountId: x.accountId, timestamp: '2025-03-03T14:32:00Z' });
    expect(r.body).toEqual({ currentBar: 1, totalBars: 4, complete: false, ...envelope });
    const end = await t.call('Replay/jumpTo', { accountId: x.accountId, timestamp: '2025-03-04T00:00:00Z' });
    expect(end.body).toEqual({ currentBar: 3, totalBars: 4, complete: true, ...envelope });
    expect((await t.call('Replay/jumpTo', { accountId: x.accountId, timestamp: 'soon' })).body).toEqual(failure(1, 'Invalid timestamp'));
  });
});

/** A playing session's look period in the tests below (the product's is limits.replayPlayLookMsMax). */
const LOOK_MS = 20;

/** Counts the reads of the app's clock (a playing session reads it once a look). */
function countLooks(clock: ManualClock): { n: number } {
  const looks = { n: 0 };
  const now = clock.nowMs.bind(clock);
  clock.nowMs = () => {
    looks.n++;
    return now();
  };
  return looks;
}

describe('Replay/play and pause', () => {
  it('speed 1 is real time on the session timeframe: a 1 m session plays one bar a minute', async () => {
    // The session looks at the clock every LOOK_MS of real time (a second in the product): the test
    // counts the looks, so "nothing played yet" is checked after looks at 59 s, not after a sleep.
    const t = await legacyApp([BAR0, 20000, 20000, 20000], { replayPlayLookMsMax: LOOK_MS });
    const looks = countLooks(t.clock);
    const x = await legacyStart(t);
    expect((await t.call('Replay/play', { accountId: x.accountId })).body).toEqual(envelope);
    const session = t.s.replay.liveSessionsOf(1)[0];
    t.clock.advance(59_000);
    const seen = looks.n;
    await waitFor(() => looks.n >= seen + 3);
    expect(session.currentIndex).toBe(0);
    t.clock.advance(1_000);
    await waitFor(() => session.currentIndex === 1);
    expect((await t.call('Replay/pause', { accountId: x.accountId })).body).toEqual(envelope);
    t.clock.advance(120_000);
    // Paused, two minutes later: still one bar after five look periods (the old wait was one period).
    await Bun.sleep(5 * LOOK_MS);
    expect(session.currentIndex).toBe(1);
  });

  it('speed 30 plays a 1 m bar every two seconds', async () => {
    const t = await legacyApp([BAR0, 20000, 20000, 20000], { replayPlayLookMsMax: LOOK_MS });
    const x = await legacyStart(t);
    expect((await t.call('Replay/play', { accountId: x.accountId, speed: 30 })).body).toEqual(envelope);
    const session = t.s.replay.liveSessionsOf(1)[0];
    t.clock.advance(4_000);
    await waitFor(() => session.currentIndex === 2);
    await t.call('Replay/pause', { accountId: x.accountId });
  });

  it.each([[0], [51], ['fast']])('speed %p → errorCode 1', async (speed) => {
    const t = await legacyApp([BAR0]);
    const x = await legacyStart(t);
    expect((await t.call('Replay/play', { accountId: x.accountId, speed })).body).toEqual(failure(1, 'speed must be a number from 1 to 50'));
  });
});

describe('Replay/end', () => {
  it('closes positions and reports results: trades net of fees, win rate, averages, drawdown, final balance', async () => {
    // Bars close at 20000, 20010, 20005, 20000, 19990.
    const t = await legacyTradingApp([BAR0, 20010, 20005, 20000, 19990], 1);
    await legacyPlaceOk(t, t, { type: 2, side: 0 }); // buy 20000
    await legacyStep(t, t);
    await legacyPlaceOk(t, t, { type: 2, side: 1 }); // sell 20010: +200 - 2.80 = +197.20
    await legacyPlaceOk(t, t, { type: 2, side: 1 }); // short 20010
    await legacyStep(t, t, 3); // last close 19990
    const r = await t.call('Replay/end', { accountId: t.accountId }); // buy back 19990: +400 - 2.80 = +397.20
    expect(r.body).toEqual({
      results: {
        totalPnl: 594.4, totalTrades: 2, winningTrades: 2, losingTrades: 0, winRate: 100,
        averageWin: 297.2, averageLoss: 0, largestWin: 397.2, largestLoss: 0, profitFactor: null,
        maxDrawdown: -1.4, finalBalance: 50594.4, // the entry fees, on the balance after each fill
      },
      ...envelope,
    });
    expect((await t.call('Replay/step', { accountId: t.accountId })).body).toEqual(failure(1, 'No active replay session for this account'));
  });

  it('a losing and a winning trade', async () => {
    const t = await legacyTradingApp([BAR0, 19990, 20020], 1);
    await legacyPlaceOk(t, t, { type: 2, side: 0 }); // buy 20000
    await legacyStep(t, t);
    await legacyPlaceOk(t, t, { type: 2, side: 1 }); // sell 19990: -200 - 2.80
    await legacyPlaceOk(t, t, { type: 2, side: 0 }); // buy 19990
    await legacyStep(t, t); // 20020
    const r = await t.call('Replay/end', { accountId: t.accountId }); // sell 20020: +600 - 2.80
    expect(r.body.results).toEqual({
      totalPnl: 394.4, totalTrades: 2, winningTrades: 1, losingTrades: 1, winRate: 50,
      averageWin: 597.2, averageLoss: -202.8, largestWin: 597.2, largestLoss: -202.8, profitFactor: 2.94,
      maxDrawdown: -204.2, finalBalance: 50394.4, // down 202.80 after the loss, then the next entry's fee
    });
  });

  it('unknown account → errorCode 1', async () => {
    const t = await legacyApp([BAR0]);
    expect((await t.call('Replay/end', { accountId: 999_999 })).body).toEqual(failure(1, 'Account not found'));
    expect((await t.call('Replay/pause', { accountId: 999_999 })).body).toEqual(failure(1, 'Account not found'));
  });
});
