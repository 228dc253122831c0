// Prop-firm rules on a multi-instrument session (issue 34) are the account's: the daily loss and the
// trailing maximum loss are checked on the combined equity, a violation flattens every contract and
// cancels every working order, and the plan's position limit counts all contracts (micros as 1/10 of
// a mini). Each scenario is a 50K evaluation (start 50,000, maximum loss 2,000 trailing from 48,000,
// daily loss 1,000, 5 contracts) whose two positions each stay above the floor alone while their sum
// breaches it; the bars that decide are flat and open beyond the touch, so every liquidation price is
// the bar's one price and the money follows by hand.
import { describe, expect, it } from 'bun:test';
import { accountEntry, type ChallengeApp, createChallenge, failure, propFirm, type Row } from '../../support/challenge.ts';
import { LIVE } from '../../support/live.ts';
import { account } from '../../support/replay.ts';
import { byContract, ENVELOPE, ES, limitOn, marketOn, MNQ, type Multi, multiApp, NQ, ok, startMulti } from './multi.ts';

const at = (day: string, hm: string) => `2025-03-${day}T${hm}:00Z`;

/** After a violation: the session is finished, every contract flat, nothing working, the balance kept. */
async function expectFlattened(t: ChallengeApp, c: number, x: Multi, balance: number) {
  expect((await t.post('Replay/step', { accountId: x.accountId }, t.token)).body).toEqual(failure(1, 'No active replay session for this account'));
  expect((await ok(t, 'Position/searchOpen', { accountId: x.accountId })).positions).toEqual([]);
  expect((await ok(t, 'Order/searchOpen', { accountId: x.accountId })).orders).toEqual([]);
  for (const contractId of x.contracts) {
    const place = await t.post('Order/place', { accountId: c, contractId, type: 2, side: 0, size: 1 }, t.token);
    expect(place.body).toEqual(failure(4, 'Account violation'));
  }
  expect(await accountEntry(t, c)).toMatchObject({ balance, canTrade: false });
}

/** The liquidation fills of the deciding step, per contract: `[contractId, side, size, price, time]`. */
async function liquidations(t: ChallengeApp, x: Multi, orderIds: number[]) {
  const fills = (await ok(t, 'Trade/search', { accountId: x.accountId })).trades.filter((f: any) => orderIds.includes(f.orderId));
  return byContract(fills).map((f: any) => [f.contractId, f.side, f.size, f.price, f.creationTimestamp]);
}

describe('daily loss on the combined equity', () => {
  // Buy 2 NQ at 20,000 and 2 ES at 5,000 (4 × 1.40) → 49,994.40; the day's floor is 49,000.
  // NQ at 19,985 alone: −15 × 2 × $20 = −600 → equity 49,394.40. ES at 4,995 alone: −5 × 2 × $50 =
  // −500 → 49,494.40. Both: 48,894.40, a day P&L of −1,105.60: violated. ES's bar opens beyond the
  // touch (4,996.06), so NQ goes at 19,985 and ES at 4,995, 4 × 1.40 more: 48,888.80.
  const message = 'Daily net P&L -$1,105.60 reached the daily loss limit -$1,000.00';

  const cases = [['a later minute than NQ\'s', '15:03', 'spec'], ['the same minute as NQ\'s', '15:02', 'spec'], ['a later minute than NQ\'s', '15:03', 'live']] as const;
  for (const [name, esDrop, profile] of cases) {
    it(`two positions, each above the floor alone, breach it together when ES drops at ${name}: both flattened (${profile})`, async () => {
      const t = await multiApp({
        NQ: [[at('04', '15:00'), 20_000], [at('04', '15:02'), 19_985], [at('04', '15:04'), 19_985]],
        ES: [[at('04', '15:00'), 5_000], [at('04', esDrop), 4_995], [at('04', '15:04'), 4_995]],
      }, profile === 'live' ? LIVE : {});
      const c = await createChallenge(t);
      const x = await startMulti(t, ['NQ', 'ES'], '2025-03-04', c);
      await ok(t, 'Replay/step', { accountId: x.accountId });
      await marketOn(t, x, NQ, 2);
      await marketOn(t, x, ES, 2);
      expect(await limitOn(t, x, ES, 1, 4_900)).toBe(3); // working: cancelled by the violation
      const union = esDrop === '15:03' ? 4 : 3;
      if (esDrop === '15:03') {
        const alone = await ok(t, 'Replay/step', { accountId: x.accountId });
        expect(alone).toMatchObject({ violations: [], propFirm: propFirm({ tradingDaysCount: 1 }) });
        expect(alone.account).toEqual(account(49_994.4, { equity: 49_394.4, unrealizedPnl: -600, marginUsed: 3_000, positions: 2, pendingOrders: 1 }));
      }
      const r = await ok(t, 'Replay/step', { accountId: x.accountId, steps: 5 });
      const decidingIndex = union - 2;
      expect(r).toMatchObject({
        barsProcessed: 1,
        currentIndex: decidingIndex + 1,
        totalBars: union,
        account: account(48_888.8),
        propFirm: propFirm({ status: 'violated', tradingDaysCount: 1 }),
        violations: [{ rule: 'dailyLossLimit', message, value: -1_105.6, limit: -1_000, time: at('04', esDrop), barIndex: decidingIndex, phase: 'evaluation' }],
        ...ENVELOPE,
      });
      expect(r.filledOrders.map((f: any) => [f.fillPrice, f.fillQty]).sort()).toEqual([[19_985, 2], [4_995, 2]].sort());
      expect(await liquidations(t, x, r.filledOrders.map((f: any) => f.orderId))).toEqual([
        [NQ, 1, 2, 19_985, at('04', esDrop)], [ES, 1, 2, 4_995, at('04', esDrop)],
      ]);
      const limit = (await ok(t, 'Order/search', { accountId: x.accountId })).orders.find((o: any) => o.id === 3);
      // Cancelled (3); under live an order working when the session finishes is Expired (4), as at Replay/end.
      expect(limit).toMatchObject({ contractId: ES, status: profile === 'live' ? 4 : 3, fillVolume: 0 });
      await expectFlattened(t, c, x, 48_888.8);
    });
  }
});

describe('the trailing maximum loss on the combined equity', () => {
  // 2025-03-04 and 05: buy 3 NQ at 20,000, close at 19,990: −600 − 8.40 each day → 48,783.20; the
  // floor stays at 48,000 and 2025-03-06's daily floor is 47,783.20. On 03-06 buy 1 NQ at 20,000 and
  // 1 ES at 5,000 (−2.80) → 48,780.40. NQ at 19,980 alone (15:01): −400 → 48,380.40; ES at 4,992
  // alone would be −400 too; both (15:02): 47,980.40, under 48,000 and above the daily floor.
  // Liquidated at 19,980 and 4,992, 2 × 1.40 → 47,977.60.
  const day = (d: string, nq: number, es: number): Row[][] => [
    [[at(d, '15:00'), 20_000], [at(d, '15:01'), nq]],
    [[at(d, '15:00'), 5_000], [at(d, '15:01'), es]],
  ];
  const [nq4, es4] = day('04', 19_990, 5_000);
  const [nq5, es5] = day('05', 19_990, 5_000);
  const data = {
    NQ: [...nq4, ...nq5, [at('06', '15:00'), 20_000], [at('06', '15:01'), 19_980], [at('06', '15:03'), 19_980]] as Row[],
    ES: [...es4, ...es5, [at('06', '15:00'), 5_000], [at('06', '15:02'), 4_992], [at('06', '15:03'), 4_992]] as Row[],
  };

  it('the sum of an NQ and an ES loss reaches the floor that neither reaches alone: violation, both flattened', async () => {
    const t = await multiApp(data);
    const c = await createChallenge(t);
    const x = await startMulti(t, ['NQ', 'ES'], '2025-03-04', c);
    for (let d = 0; d < 2; d++) {
      await ok(t, 'Replay/step', { accountId: x.accountId });
      await marketOn(t, x, NQ, 3);
      await ok(t, 'Replay/step', { accountId: x.accountId });
      await ok(t, 'Position/closeContract', { accountId: x.accountId, contractId: NQ });
    }
    await ok(t, 'Replay/step', { accountId: x.accountId }); // 03-06 15:00
    await marketOn(t, x, NQ, 1);
    await marketOn(t, x, ES, 1);
    const alone = await ok(t, 'Replay/step', { accountId: x.accountId });
    expect(alone.account).toEqual(account(48_780.4, { equity: 48_380.4, unrealizedPnl: -400, marginUsed: 1_500, positions: 2 }));
    expect(alone.violations).toEqual([]);
    const r = await ok(t, 'Replay/step', { accountId: x.accountId, steps: 5 });
    expect(r).toMatchObject({
      barsProcessed: 1,
      currentIndex: 7,
      totalBars: 8,
      account: account(47_977.6),
      propFirm: propFirm({ status: 'violated', tradingDaysCount: 3 }),
      violations: [{
        rule: 'maxLossLimit', message: 'Equity $47,980.40 reached the maximum loss limit $48,000.00', value: 47_980.4,
        limit: 48_000, time: at('06', '15:02'), barIndex: 6, phase: 'evaluation',
      }],
    });
    expect(await liquidations(t, x, r.filledOrders.map((f: any) => f.orderId))).toEqual([
      [NQ, 1, 1, 19_980, at('06', '15:02')], [ES, 1, 1, 4_992, at('06', '15:02')],
    ]);
    await expectFlattened(t, c, x, 47_977.6);
  });
});

describe('the plan\'s position limit across contracts', () => {
  const flat = (p: number): Row[] => [[at('04', '15:00'), p], [at('04', '15:01'), p]];

  /** An app with NQ, ES and MNQ flat, a challenge session on them at 15:00; `refused(contract, size)` checks a refusal. */
  async function limitApp() {
    const t = await multiApp({ NQ: flat(20_000), ES: flat(5_000), MNQ: flat(20_000) });
    const c = await createChallenge(t);
    const x = await startMulti(t, ['NQ', 'ES', 'MNQ'], '2025-03-04', c);
    await ok(t, 'Replay/step', { accountId: x.accountId });
    const refused = async (contractId: string, size: number) => {
      const r = await t.post('Order/place', { accountId: x.accountId, contractId, type: 2, side: size > 0 ? 0 : 1, size: Math.abs(size) }, t.token);
      expect(r.body).toMatchObject({ success: false, errorCode: 2 });
      expect(r.body.errorMessage).toStartWith('Maximum position size exceeded');
    };
    return { t, c, x, refused };
  }

  it('positions of every contract add up, a micro counts 1/10; refused orders change nothing and are no violation', async () => {
    const { t, c, x, refused } = await limitApp();
    await marketOn(t, x, NQ, 3);
    await marketOn(t, x, ES, 1); // 4
    await marketOn(t, x, MNQ, 10); // 4 + 10 × 1/10 = 5
    await refused(MNQ, 1);
    await refused(ES, 1);
    await refused(NQ, 1);
    await refused(NQ, -9); // NQ short 6
    const paused = await ok(t, 'Replay/pause', { accountId: x.accountId });
    // 3 × 1,000 + 500 + 10 × 100 margin; 50,000 − (3 + 1) × 1.40 − 10 × 0.37.
    expect(paused.account).toEqual(account(49_990.7, { marginUsed: 4_500, positions: 3 }));
    expect(paused.propFirm).toEqual(propFirm({ tradingDaysCount: 1 }));
    expect(await accountEntry(t, c)).toMatchObject({ canTrade: true });
  });

  // Another contract's resting entries count, as a one-instrument session counts its own
  // (test/http/sim/challenge.test.ts, "Working entries count"): 3 NQ held and 2 ES resting leave no room.
  it('working entries count as in one-instrument sessions, whatever their contract', async () => {
    const { t, x, refused } = await limitApp();
    await marketOn(t, x, NQ, 3);
    await limitOn(t, x, ES, 2, 4_900); // 3 held + 2 working = 5
    await refused(ES, 1);
    await refused(NQ, 1);
    await refused(MNQ, 1);
    const paused = await ok(t, 'Replay/pause', { accountId: x.accountId });
    expect(paused.account).toEqual(account(49_995.8, { marginUsed: 3_000, positions: 1, pendingOrders: 1 }));
  });
});
