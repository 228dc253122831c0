// Replay/addInstrument and Replay/removeInstrument (issue 34), both API profiles: `{accountId,
// instrumentSymbol}`, answered with the envelope and the session's instruments after the change; the
// new contract trades and steps from the session's clock on, a removed one no longer does. Refusals
// change nothing: a contract with a position or a working order (7), the first instrument (7), one
// already there (1), an unknown symbol (1), a fifth (1).
import { describe, expect, it } from 'bun:test';
import type { ChallengeApp, Row } from '../../support/challenge.ts';
import { LIVE } from '../../support/live.ts';
import { ENVELOPE, ES, flatBar, INSTRUMENT, limitOn, marketOn, MNQ, type Multi, multiApp, NQ, ok, startMulti } from './multi.ts';

const DAY = '2025-03-04';
const flat = (p: number): Row[] => ['00', '01', '02', '03'].map((mm) => [`${DAY}T15:${mm}:00Z`, p] as Row);
const DATA = { NQ: flat(20_000), ES: flat(5_000), MNQ: flat(20_000), MES: flat(5_000), GC: flat(2_900) };
const fail = (errorCode: number, errorMessage: string) => ({ success: false, errorCode, errorMessage });
const BUSY = 'ES has an open position or working orders; close them before removing it';

const change = (t: ChallengeApp, x: Multi, path: 'add' | 'remove', instrumentSymbol: string) =>
  t.post(`Replay/${path}Instrument`, { accountId: x.accountId, instrumentSymbol }, t.token);
const instruments = (...symbols: string[]) => ({ instruments: symbols.map((s) => INSTRUMENT[s]), ...ENVELOPE });

for (const [profile, config, mismatchCode] of [['spec', {}, 2], ['live', LIVE, 9]] as const) {
  describe(`adding and removing instruments (${profile})`, () => {
    it('an added contract steps and trades on the session\'s clock; refusals leave the list as it was', async () => {
      const t = await multiApp(DATA, config);
      const x = await startMulti(t, ['NQ', 'ES'], DAY);
      await ok(t, 'Replay/step', { accountId: x.accountId }); // 15:00
      expect((await change(t, x, 'add', 'MNQ')).body).toEqual(instruments('NQ', 'ES', 'MNQ'));
      const s = await ok(t, 'Replay/step', { accountId: x.accountId }); // 15:01
      expect(s.barsByContract).toEqual({
        [NQ]: [flatBar(`${DAY}T15:01:00Z`, 20_000)], [ES]: [flatBar(`${DAY}T15:01:00Z`, 5_000)], [MNQ]: [flatBar(`${DAY}T15:01:00Z`, 20_000)],
      });
      await marketOn(t, x, MNQ, 2); // at 20,000: 2 × 0.37
      expect((await ok(t, 'Replay/pause', { accountId: x.accountId })).account).toMatchObject({ balance: 49_999.26, marginUsed: 200, positions: 1 });

      expect((await change(t, x, 'add', 'NQ')).body).toEqual(fail(1, 'NQ is already in this session'));
      expect((await change(t, x, 'add', 'ZZZ')).body).toEqual(fail(1, 'Instrument not found: ZZZ'));
      expect((await change(t, x, 'add', 'MES')).body).toEqual(instruments('NQ', 'ES', 'MNQ', 'MES'));
      expect((await change(t, x, 'add', 'GC')).body).toEqual(fail(1, 'instrumentSymbols must list 1 to 4 instrument symbols'));
      expect((await change(t, x, 'remove', 'MES')).body).toEqual(instruments('NQ', 'ES', 'MNQ'));
      expect((await change(t, x, 'remove', 'MNQ')).body).toEqual(fail(7, 'MNQ has an open position or working orders; close them before removing it'));
    });

    it('a contract with a position or a working order cannot be removed, the first one never; once flat and idle it goes', async () => {
      const t = await multiApp(DATA, config);
      const x = await startMulti(t, ['NQ', 'ES'], DAY);
      await ok(t, 'Replay/step', { accountId: x.accountId });
      await marketOn(t, x, ES, 1);
      const before = await ok(t, 'Replay/pause', { accountId: x.accountId });
      expect((await change(t, x, 'remove', 'ES')).body).toEqual(fail(7, BUSY));
      expect(await ok(t, 'Replay/pause', { accountId: x.accountId })).toEqual(before);
      expect((await ok(t, 'Position/searchOpen', { accountId: x.accountId })).positions.map((p: any) => [p.contractId, p.size])).toEqual([[ES, 1]]);

      await ok(t, 'Position/closeContract', { accountId: x.accountId, contractId: ES });
      const working = await limitOn(t, x, ES, 1, 4_900);
      expect((await change(t, x, 'remove', 'ES')).body).toEqual(fail(7, BUSY));
      expect((await ok(t, 'Replay/step', { accountId: x.accountId })).barsByContract[ES]).toEqual([flatBar(`${DAY}T15:01:00Z`, 5_000)]);
      await ok(t, 'Order/cancel', { accountId: x.accountId, orderId: working });

      expect((await change(t, x, 'remove', 'NQ')).body).toEqual(fail(7, 'The session\'s first instrument cannot be removed'));
      expect((await change(t, x, 'remove', 'ES')).body).toEqual(instruments('NQ'));
      const s = await ok(t, 'Replay/step', { accountId: x.accountId });
      expect(s.barsByContract).toEqual({ [NQ]: [flatBar(`${DAY}T15:02:00Z`, 20_000)] });
      const r = await t.post('Order/place', { accountId: x.accountId, contractId: ES, type: 2, side: 0, size: 1 }, t.token);
      expect(r.body).toMatchObject({ success: false, errorCode: mismatchCode });
      expect(r.body.errorMessage).toEndWith('ES cannot be traded in it');
      // The account keeps ES's round trip: 2 × 1.40.
      expect((await ok(t, 'Replay/pause', { accountId: x.accountId })).account.balance).toBe(49_997.2);
      expect((await change(t, x, 'add', 'ES')).body).toEqual(instruments('NQ', 'ES'));
      expect(await marketOn(t, x, ES, 1)).toBeGreaterThan(working);
    });
  });
}
