// Earlier family: Contract/search and Contract/searchById over its own instrument table.
import { describe, expect, it } from 'bun:test';
import { makeApp, type TestApp } from '../../support/app.ts';
import { envelope, failure, legacyLogin, legacyPost } from '../../support/legacy.ts';

// T0 is 2025-03-03: the index front month is H25 (rolls 2025-03-13), gold's J25, crude's J25 (CL
// rolls as LIGHTCMDUSD), EURUSD spot carries the calendar month, H25.
const CONTRACTS = [
  { id: 'CON.F.US.NQ.H25', name: 'NQ', description: 'E-mini NASDAQ-100', tickSize: 0.25, tickValue: 5, contractSize: 20 },
  { id: 'CON.F.US.ES.H25', name: 'ES', description: 'E-mini S&P 500', tickSize: 0.25, tickValue: 12.5, contractSize: 50 },
  { id: 'CON.F.US.MNQ.H25', name: 'MNQ', description: 'Micro E-mini NASDAQ-100', tickSize: 0.25, tickValue: 0.5, contractSize: 2 },
  { id: 'CON.F.US.MES.H25', name: 'MES', description: 'Micro E-mini S&P 500', tickSize: 0.25, tickValue: 1.25, contractSize: 5 },
  { id: 'CON.F.US.GC.J25', name: 'GC', description: 'Gold (COMEX, 100 troy oz)', tickSize: 0.1, tickValue: 10, contractSize: 100 },
  { id: 'CON.F.US.CL.J25', name: 'CL', description: 'Crude Oil WTI (1,000 barrels)', tickSize: 0.01, tickValue: 10, contractSize: 1000 },
  {
    id: 'CON.F.US.EURUSD.H25', name: 'EURUSD', description: 'Euro / US Dollar (spot, 1 standard lot)',
    tickSize: 0.00005, tickValue: 5, contractSize: 100000,
  },
];
const bySymbol = (s: string) => CONTRACTS.find((c) => c.name === s)!;

async function app(): Promise<TestApp & { token: string }> {
  const t = await makeApp();
  return Object.assign(t, { token: await legacyLogin(t) });
}

describe('Contract/search', () => {
  it('returns every contract, each field exact, for null, empty, blank or omitted searchText', async () => {
    const t = await app();
    for (const body of [{}, { searchText: null }, { searchText: '' }, { searchText: '  ' }]) {
      expect((await legacyPost(t, 'Contract/search', body, t.token)).body).toEqual({ contracts: CONTRACTS, ...envelope });
    }
  });

  it.each([
    ['nq', ['NQ', 'MNQ']],
    ['NASDAQ', ['NQ', 'MNQ']],
    ['cl', ['CL']],
    ['crude', ['CL']],
    ['eur', ['EURUSD']],
    ['F.US.CL', ['CL']],
    ['f.us.gc', ['GC']],
    ['CON.F.US.CL.Z26', ['CL']],
    ['con.f.us.eurusd.x26', ['EURUSD']],
    ['CON.F.US.ES.H25', ['ES']],
    ['LIGHTCMDUSD', []],
    ['ENQ', []],
    ['zzz', []],
  ])('searchText %p matches %p', async (text, symbols) => {
    const t = await app();
    const r = await legacyPost(t, 'Contract/search', { searchText: text }, t.token);
    expect(r.body.success).toBe(true);
    expect(r.body.contracts.map((c: any) => c.name)).toEqual(symbols);
  });

  it('the front month is read at call time (CL rolls with the oil history)', async () => {
    const t = await makeApp({ nowMs: Date.UTC(2025, 2, 20) });
    const ids = (await legacyPost(t, 'Contract/search', {}, await legacyLogin(t))).body.contracts.map((c: any) => c.id);
    expect(ids).toEqual([
      'CON.F.US.NQ.M25', 'CON.F.US.ES.M25', 'CON.F.US.MNQ.M25', 'CON.F.US.MES.M25', 'CON.F.US.GC.J25', 'CON.F.US.CL.K25', 'CON.F.US.EURUSD.H25',
    ]);
  });

  it.each([['a number', 5], ['a boolean', true], ['an object', {}]])('searchText %s → 1 searchText must be a string or null', async (_n, v) => {
    const t = await app();
    expect((await legacyPost(t, 'Contract/search', { searchText: v }, t.token)).body).toEqual(failure(1, 'searchText must be a string or null'));
  });

  it('without a valid token answers 401', async () => {
    const t = await app();
    expect((await legacyPost(t, 'Contract/search', {}, null)).status).toBe(401);
  });
});

describe('Contract/searchById', () => {
  it.each([
    ['CON.F.US.CL.Z26', 'CL'],
    ['CON.F.US.EURUSD.H25', 'EURUSD'],
    ['con.f.us.gc.q25', 'GC'],
    ['F.US.NQ', 'NQ'],
    ['ES', 'ES'],
  ])('%p → a contracts array of one, matched on the symbol, id echoing the ID sent', async (id, symbol) => {
    const t = await app();
    const r = await legacyPost(t, 'Contract/searchById', { contractId: id }, t.token);
    expect(r.body).toEqual({ contracts: [{ ...bySymbol(symbol), id }], ...envelope });
  });

  it.each([
    ['missing', {}],
    ['null', { contractId: null }],
    ['empty', { contractId: '' }],
    ['a number', { contractId: 42 }],
    ['an unknown symbol', { contractId: 'CON.F.US.XYZ.H25' }],
    ['a current-family exchange symbol', { contractId: 'CON.F.US.ENQ.H25' }],
    ['the oil history’s current-family symbol', { contractId: 'CON.F.US.LIGHTCMDUSD.J25' }],
  ])('%s → 1 Contract not found', async (_n, body) => {
    const t = await app();
    expect((await legacyPost(t, 'Contract/searchById', body, t.token)).body).toEqual(failure(1, 'Contract not found'));
  });
});
