import { describe, expect, it } from 'bun:test';
import { makeApp } from '../../support/app.ts';

// T0 is 2025-03-03: before the March roll (2025-03-13), so the index front month is H25.
describe('Contract/search', () => {
  it('returns the whole catalog for null, empty or omitted searchText', async () => {
    const t = await makeApp();
    const token = await t.login();
    for (const body of [{}, { searchText: null }, { searchText: '' }]) {
      const r = await t.post('Contract/search', body, token);
      expect(r.body.success).toBe(true);
      expect(r.body.contracts.map((c: any) => c.symbolId)).toEqual(['NQ', 'ES', 'MNQ', 'MES', 'GC', 'EURUSD', 'LIGHTCMDUSD']);
    }
  });

  it('prints every field of a contract exactly', async () => {
    const t = await makeApp();
    const token = await t.login();
    const r = await t.post('Contract/search', { searchText: 'ES' }, token);
    const es = r.body.contracts.find((c: any) => c.symbolId === 'ES');
    expect(es).toEqual({
      id: 'CON.F.US.EP.H25',
      name: 'ESH5',
      description: 'E-mini S&P 500',
      tickSize: 0.25,
      tickValue: 12.5,
      activeContract: true,
      symbolId: 'ES',
    });
  });

  it.each([
    ['nq', ['NQ', 'MNQ']],
    ['NASDAQ', ['NQ', 'MNQ']],
    ['gold', ['GC']],
    ['F.US.ENQ', ['NQ']],
    ['f.us.ep', ['ES']],
    ['GCE', ['GC']],
    ['GCJ5', ['GC']],
    ['CON.F.US.ENQ.Z24', ['NQ']],
    ['eurusd', ['EURUSD']],
    ['crude', ['LIGHTCMDUSD']],
    ['zzz', []],
  ])('searchText %p matches %p', async (text, symbols) => {
    const t = await makeApp();
    const token = await t.login();
    const r = await t.post('Contract/search', { searchText: text }, token);
    expect(r.body.contracts.map((c: any) => c.symbolId)).toEqual(symbols);
  });

  it('Contract/available is an alias', async () => {
    const t = await makeApp();
    const token = await t.login();
    const a = await t.post('Contract/available', { searchText: 'ES' }, token);
    const b = await t.post('Contract/search', { searchText: 'ES' }, token);
    expect(a.body).toEqual(b.body);
  });

  it('catalog tick sizes and values', async () => {
    const t = await makeApp();
    const token = await t.login();
    const r = await t.post('Contract/search', {}, token);
    const got = Object.fromEntries(r.body.contracts.map((c: any) => [c.symbolId, [c.id, c.tickSize, c.tickValue]]));
    expect(got).toEqual({
      NQ: ['CON.F.US.ENQ.H25', 0.25, 5],
      ES: ['CON.F.US.EP.H25', 0.25, 12.5],
      MNQ: ['CON.F.US.MNQ.H25', 0.25, 0.5],
      MES: ['CON.F.US.MES.H25', 0.25, 1.25],
      GC: ['CON.F.US.GCE.J25', 0.1, 10],
      EURUSD: ['CON.F.US.EURUSD.H25', 0.00001, 1],
      LIGHTCMDUSD: ['CON.F.US.LIGHTCMDUSD.J25', 0.01, 10],
    });
  });

  it('a non-string searchText is a clear error', async () => {
    const t = await makeApp();
    const token = await t.login();
    const r = await t.post('Contract/search', { searchText: 5 }, token);
    expect(r.body).toEqual({ success: false, errorCode: 1, errorMessage: 'searchText must be a string or null' });
  });
});

describe('Contract/searchById', () => {
  it('matches on the symbol only and echoes the ID sent', async () => {
    const t = await makeApp();
    const token = await t.login();
    const r = await t.post('Contract/searchById', { contractId: 'CON.F.US.ENQ.Z24' }, token);
    expect(r.body.success).toBe(true);
    expect(r.body.contract).toEqual({
      id: 'CON.F.US.ENQ.Z24',
      name: 'NQH5',
      description: 'E-mini NASDAQ-100',
      tickSize: 0.25,
      tickValue: 5,
      activeContract: true,
      symbolId: 'NQ',
    });
  });

  it.each([[{}], [{ contractId: 'CON.F.US.XYZ.H25' }], [{ contractId: 42 }], [{ contractId: '' }]])(
    '%p → errorCode 1 Contract not found',
    async (body) => {
      const t = await makeApp();
      const token = await t.login();
      const r = await t.post('Contract/searchById', body, token);
      expect(r.body).toEqual({ success: false, errorCode: 1, errorMessage: 'Contract not found' });
    },
  );
});
