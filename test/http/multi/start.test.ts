// Replay/start over several instruments (issue 34): `instrumentSymbols` beside the spec's
// `instrumentSymbol`, the answer's `instruments` in the order asked with `instrument` the first, and
// the refusals (errorCode 1) with nothing started. Both API profiles.
import { describe, expect, it } from 'bun:test';
import type { Row } from '../../support/challenge.ts';
import { LIVE } from '../../support/live.ts';
import { ENVELOPE, INSTRUMENT, multiApp } from './multi.ts';

const DAY = '2025-03-04';
const flat = (price: number): Row[] => [[`${DAY}T15:00:00Z`, price], [`${DAY}T15:01:00Z`, price]];
const DATA = { NQ: flat(20_000), ES: flat(5_000), MNQ: flat(20_000), MES: flat(5_000) };
const fail = (errorMessage: string) => ({ success: false, errorCode: 1, errorMessage });

for (const [profile, config] of [['spec', {}], ['live', LIVE]] as const) {
  describe(`Replay/start with instrumentSymbols (${profile})`, () => {
    it('answers one instrument object per symbol in the order asked; `instrument` is the first', async () => {
      const t = await multiApp(DATA, config);
      const r = await t.post('Replay/start', { instrumentSymbols: ['ES', 'NQ', 'MES'], startDate: DAY, timeframe: '1m' }, t.token);
      expect(r.body).toEqual({
        accountId: expect.any(Number),
        sessionId: expect.stringMatching(/^rs_/),
        totalBars: 2,
        historyBars: 0,
        instrument: INSTRUMENT.ES,
        instruments: [INSTRUMENT.ES, INSTRUMENT.NQ, INSTRUMENT.MES],
        ...ENVELOPE,
      });
    });

    it('a list of one is a multi-instrument session; instrumentSymbol equal to the first is accepted', async () => {
      const t = await multiApp(DATA, config);
      const one = await t.post('Replay/start', { instrumentSymbols: ['NQ'], startDate: DAY, timeframe: '1m' }, t.token);
      expect(one.body).toMatchObject({ success: true, instrument: INSTRUMENT.NQ, instruments: [INSTRUMENT.NQ] });
      const step = await t.post('Replay/step', { accountId: one.body.accountId }, t.token);
      expect(step.body.barsByContract).toEqual({ [INSTRUMENT.NQ.contractId]: step.body.bars });
      const both = await t.post('Replay/start', { instrumentSymbol: 'NQ', instrumentSymbols: ['NQ', 'ES', 'MNQ', 'MES'], startDate: DAY, timeframe: '1m' }, t.token);
      expect(both.body).toMatchObject({ success: true, instrument: INSTRUMENT.NQ, instruments: ['NQ', 'ES', 'MNQ', 'MES'].map((s) => INSTRUMENT[s]) });
    });

    it.each([
      ['an empty list', { instrumentSymbols: [] }, 'instrumentSymbols must list 1 to 4 instrument symbols'],
      ['five symbols', { instrumentSymbols: ['NQ', 'ES', 'MNQ', 'MES', 'GC'] }, 'instrumentSymbols must list 1 to 4 instrument symbols'],
      ['an unknown symbol', { instrumentSymbols: ['NQ', 'ZZZ'] }, 'Instrument not found: ZZZ'],
      ['a symbol twice', { instrumentSymbols: ['NQ', 'ES', 'NQ'] }, 'instrumentSymbols lists NQ twice'],
      ['instrumentSymbol not the first', { instrumentSymbol: 'ES', instrumentSymbols: ['NQ', 'ES'] }, 'instrumentSymbol must be the first of instrumentSymbols'],
    ])('%s → 1, nothing started', async (_n, over, message) => {
      const t = await multiApp(DATA, config);
      const r = await t.post('Replay/start', { startDate: DAY, timeframe: '1m', ...over }, t.token);
      expect(r.status).toBe(200);
      expect(r.body).toEqual(fail(message));
      expect((await t.post('Account/search', {}, t.token)).body.accounts).toEqual([]);
    });
  });
}
