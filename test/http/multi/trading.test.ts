// Orders, fills and one account across the contracts of a session (issue 34), against a hand
// computation, under both API profiles: market orders fill at their own contract's last price, resting
// limits when their own contract's bar reaches them; Position/searchOpen lists a row per contract;
// Order/search and Trade/search list every contract's rows with ids unique across the account; the
// snapshot is the account's (balance, Σ unrealized, Σ |qty| × day margin, contracts held). A contract
// that is not in the session is refused as in one-instrument sessions.
import { describe, expect, it } from 'bun:test';
import type { ChallengeApp, Row } from '../../support/challenge.ts';
import { LIVE } from '../../support/live.ts';
import { account } from '../../support/replay.ts';
import { byContract, ES, limitOn, marketOn, type Multi, multiApp, NQ, ok, startMulti } from './multi.ts';

const DAY = '2025-03-04';
const m = (minute: string) => `${DAY}T15:${minute}:00Z`;
// NQ reaches 20,010 at 15:01 (not ES's minute); ES reaches 4,990 at 15:02 (not NQ's).
const DATA: Record<string, Row[]> = {
  NQ: [[m('00'), 20_000], [m('01'), 20_000, 20_010, 19_995, 20_008], [m('03'), 20_012]],
  ES: [[m('00'), 5_000], [m('02'), 5_000, 5_004, 4_990, 4_996], [m('03'), 5_010]],
};
const GC = 'CON.F.US.GCE.J25';

const pause = async (t: ChallengeApp, x: Multi) => (await ok(t, 'Replay/pause', { accountId: x.accountId })).account;
const step = (t: ChallengeApp, x: Multi) => ok(t, 'Replay/step', { accountId: x.accountId });
const positionRows = async (t: ChallengeApp, x: Multi) =>
  byContract((await ok(t, 'Position/searchOpen', { accountId: x.accountId })).positions).map((p: any) => [p.contractId, p.type, p.size, p.averagePrice]);

const SYMBOL_IDS: Record<string, Record<string, string>> = { spec: { [NQ]: 'NQ', [ES]: 'ES' }, live: { [NQ]: 'F.US.ENQ', [ES]: 'F.US.EP' } };

for (const [profile, config, mismatchCode] of [['spec', {}, 2], ['live', LIVE, 9]] as const) {
  describe(`trading NQ and ES on one account (${profile})`, () => {
    it('fills on each contract\'s own bars; balance, equity, margin and positions are the account\'s', async () => {
      const t = await multiApp(DATA, config);
      const x = await startMulti(t, ['NQ', 'ES'], DAY);
      await step(t, x); // 15:00: NQ 20,000, ES 5,000
      expect(await marketOn(t, x, NQ, 2)).toBe(1); // long 2 NQ at 20,000, fees 2.80
      expect(await marketOn(t, x, ES, -1)).toBe(2); // short 1 ES at 5,000, fee 1.40
      expect(await limitOn(t, x, ES, 1, 4_992)).toBe(3); // buy 1 ES at 4,992: reached at 15:02
      expect(await limitOn(t, x, NQ, -1, 20_009)).toBe(4); // sell 1 NQ at 20,009: reached at 15:01
      // 50,000 − 4.20; margin 2 × 1,000 + 500.
      expect(await pause(t, x)).toEqual(account(49_995.8, { marginUsed: 2_500, positions: 2, pendingOrders: 2 }));
      expect(await positionRows(t, x)).toEqual([[NQ, 1, 2, 20_000], [ES, 2, 1, 5_000]]);

      // 15:01, NQ only: the NQ limit sells 1 at 20,009 (+9 points × $20 − 1.40) → 50,174.40; the
      // NQ left open at its close 20,008: +160.
      const s1 = await step(t, x);
      expect(s1.filledOrders).toEqual([{ orderId: 4, fillPrice: 20_009, fillQty: 1 }]);
      expect(s1.account).toEqual(account(50_174.4, { equity: 50_334.4, unrealizedPnl: 160, marginUsed: 1_500, positions: 2, pendingOrders: 1 }));
      // 15:02, ES only: the ES limit buys 1 at 4,992 and closes the short (+8 points × $50 − 1.40).
      const s2 = await step(t, x);
      expect(s2.filledOrders).toEqual([{ orderId: 3, fillPrice: 4_992, fillQty: 1 }]);
      expect(s2.account).toEqual(account(50_573, { equity: 50_733, unrealizedPnl: 160, marginUsed: 1_000, positions: 1 }));
      expect(await positionRows(t, x)).toEqual([[NQ, 1, 1, 20_000]]);

      // Buy 3 ES at its last price 4,996 (−4.20); 15:03: NQ 20,012 (+240), ES 5,010 (+14 × 3 × $50).
      expect(await marketOn(t, x, ES, 3)).toBe(5);
      const s3 = await step(t, x);
      expect(s3.account).toEqual(account(50_568.8, { equity: 52_908.8, unrealizedPnl: 2_340, marginUsed: 2_500, positions: 2 }));
      expect(await positionRows(t, x)).toEqual([[NQ, 1, 1, 20_000], [ES, 1, 3, 4_996]]);
      await ok(t, 'Position/closeContract', { accountId: x.accountId, contractId: ES }); // +2,100 − 4.20
      await ok(t, 'Position/closeContract', { accountId: x.accountId, contractId: NQ }); // +240 − 1.40
      // 50,000 + (180 + 400 + 2,100 + 240) − 12 sides × $1.40.
      expect(await pause(t, x)).toEqual(account(52_903.2));
      expect(await positionRows(t, x)).toEqual([]);

      const orders = (await ok(t, 'Order/search', { accountId: x.accountId })).orders;
      expect(orders.map((o: any) => [o.id, o.contractId, o.side, o.size, o.fillVolume, o.filledPrice]).sort((a: any, b: any) => a[0] - b[0])).toEqual([
        [1, NQ, 0, 2, 2, 20_000], [2, ES, 1, 1, 1, 5_000], [3, ES, 0, 1, 1, 4_992], [4, NQ, 1, 1, 1, 20_009],
        [5, ES, 0, 3, 3, 4_996], [6, ES, 1, 3, 3, 5_010], [7, NQ, 1, 1, 1, 20_012],
      ]);
      for (const o of orders) expect(o.symbolId).toBe(SYMBOL_IDS[profile][o.contractId]);
      const fills = (await ok(t, 'Trade/search', { accountId: x.accountId })).trades;
      expect(fills.map((f: any) => [f.orderId, f.contractId, f.side, f.size, f.price, f.fees]).sort((a: any, b: any) => a[0] - b[0])).toEqual([
        [1, NQ, 0, 2, 20_000, 2.8], [2, ES, 1, 1, 5_000, 1.4], [3, ES, 0, 1, 4_992, 1.4], [4, NQ, 1, 1, 20_009, 1.4],
        [5, ES, 0, 3, 4_996, 4.2], [6, ES, 1, 3, 5_010, 4.2], [7, NQ, 1, 1, 20_012, 1.4],
      ]);
      const listed = (await ok(t, 'Account/search', {})).accounts.find((a: any) => a.id === x.accountId);
      expect(listed.balance).toBe(52_903.2);
      // Replay/end's snapshot lists the fills of closing what was open: nothing here.
      expect((await ok(t, 'Replay/end', { accountId: x.accountId })).account).toEqual({ ...account(52_903.2), filledOrders: [] });
    });

    it('a contract not in the session is refused, and nothing changes', async () => {
      const t = await multiApp(DATA, config);
      const x = await startMulti(t, ['NQ', 'ES'], DAY);
      await step(t, x);
      await marketOn(t, x, ES, 1);
      const before = await pause(t, x);
      const r = await t.post('Order/place', { accountId: x.accountId, contractId: GC, type: 2, side: 0, size: 1 }, t.token);
      expect(r.body).toMatchObject({ success: false, errorCode: mismatchCode });
      expect(r.body.errorMessage).toEndWith('GC cannot be traded in it');
      expect(await pause(t, x)).toEqual(before);
      expect((await ok(t, 'Order/search', { accountId: x.accountId })).orders.map((o: any) => o.contractId)).toEqual([ES]);
    });
  });
}
