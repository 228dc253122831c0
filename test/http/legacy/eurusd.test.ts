// EURUSD in the earlier family: the same bars on a 0.00005 / $5.00 tick. Order prices must sit on
// that grid; fills and P&L come from the same engine, so a round trip pays the same dollars in both
// families.
import { describe, expect, it } from 'bun:test';
import { makeApp } from '../../support/app.ts';
import { legacyLogin, legacyPost } from '../../support/legacy.ts';

async function sessions() {
  const t = await makeApp({ config: { dataStartDate: '2025-02-24', dataEndDate: '2025-03-07' } });
  const ltoken = await legacyLogin(t);
  const legacy = (path: string, body: Record<string, unknown>) => legacyPost(t, path, body, ltoken);
  const start = await legacy('Replay/start', { instrumentSymbol: 'EURUSD', startDate: '2025-03-04', timeframe: '1m' });
  expect(start.body.contractId).toMatch(/^CON\.F\.US\.EURUSD\.[FGHJKMNQUVXZ]\d\d$/);
  return { t, legacy, accountId: start.body.accountId as number, contractId: start.body.contractId as string };
}

describe('EURUSD on the earlier family\'s tick', () => {
  it('lists EURUSD at 0.00005 worth 5.00, 100,000 a price unit', async () => {
    const { legacy } = await sessions();
    const r = await legacy('Contract/search', { searchText: 'EURUSD' });
    expect(r.body.contracts.map((c: any) => [c.name, c.tickSize, c.tickValue, c.contractSize])).toEqual([['EURUSD', 0.00005, 5, 100000]]);
  });

  it('refuses a limit price between its ticks and takes one on them', async () => {
    const { legacy, accountId, contractId } = await sessions();
    await legacy('Replay/jumpTo', { accountId, timestamp: '2025-03-04T14:30:00Z' });
    const off = await legacy('Order/place', { accountId, contractId, type: 1, side: 0, size: 1, limitPrice: 1.00003 });
    expect(off.body).toMatchObject({ success: false, errorCode: 1 });
    expect(off.body.errorMessage).toContain('0.00005');
    const on = await legacy('Order/place', { accountId, contractId, type: 1, side: 0, size: 1, limitPrice: 1.00005 });
    expect(on.body).toMatchObject({ success: true, orderStatus: 6 });
    const open = await legacy('Order/searchOpen', { accountId });
    expect(open.body.orders.map((o: any) => o.limitPrice)).toEqual([1.00005]);
  });

  it('a round trip pays what the current family pays for the same fills', async () => {
    const { t, legacy, accountId, contractId } = await sessions();
    await legacy('Replay/jumpTo', { accountId, timestamp: '2025-03-04T14:30:00Z' });
    await legacy('Replay/step', { accountId, steps: 1 });
    await legacy('Order/place', { accountId, contractId, type: 2, side: 0, size: 2 });
    await legacy('Replay/step', { accountId, steps: 30 });
    await legacy('Order/place', { accountId, contractId, type: 2, side: 1, size: 2 });
    const fills = (await legacy('Trade/search', { accountId })).body.trades;
    const end = await legacy('Replay/end', { accountId });
    const [buy, sell] = fills.map((f: any) => f.price);
    // $1.00 per 0.00001 of the base tick = 100,000 a price unit, 2 contracts, $2.50 a side each.
    const expected = Math.round((sell - buy) * 100_000 * 2 * 100) / 100 - 4 * 2.5;
    expect(end.body.results.totalPnl).toBeCloseTo(expected, 6);

    const token = await t.login();
    const cur = await t.post('Replay/start', { instrumentSymbol: 'EURUSD', startDate: '2025-03-04', endDate: '2025-03-05', timeframe: '1m' }, token);
    const a = cur.body.accountId;
    await t.post('Replay/jumpTo', { accountId: a, targetTime: '2025-03-04T14:30:00Z' }, token);
    await t.post('Replay/step', { accountId: a, steps: 1 }, token);
    await t.post('Order/place', { accountId: a, contractId: cur.body.instrument.contractId, type: 2, side: 0, size: 2 }, token);
    await t.post('Replay/step', { accountId: a, steps: 30 }, token);
    await t.post('Order/place', { accountId: a, contractId: cur.body.instrument.contractId, type: 2, side: 1, size: 2 }, token);
    const curFills = (await t.post('Trade/search', { accountId: a }, token)).body.trades.map((f: any) => f.price).reverse();
    expect(curFills).toEqual([buy, sell]);
    const curEnd = await t.post('Replay/end', { accountId: a }, token);
    expect(curEnd.body.account.balance).toBe(end.body.results.finalBalance);
  });
});
