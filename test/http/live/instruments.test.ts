// The gateway's common list under the live profile (src/domain/instruments.json, its `profiles`
// column): Contract/* lists and finds every row, Replay/start and History take them; the spec profile
// answers exactly as before (its seven; CL, ZN unknown). One new instrument end to end: ZN, 1/64 of a
// point worth $15.625, $0.86 a side, over hand-built 1 m bars on 2025-03-03 (a Monday after the
// treasury roll of Tue 02-25: the front is M25).
import { describe, expect, it } from 'bun:test';
import { marketHub } from '../../../src/http/hubs/market-hub.ts';
import { makeApp, type TestApp, waitFor } from '../../support/app.ts';
import { recordingConnection } from '../../support/hub-recording.ts';
import { barsOf, dayOf } from '../../support/bars.ts';
import { LIVE, specPost } from '../../support/live.ts';
import { at, DAY, OPEN_S, WALL_MS } from '../../support/replay.ts';

const SEVEN = ['NQ', 'ES', 'MNQ', 'MES', 'GC', 'EURUSD', 'LIGHTCMDUSD'];
const ZN = 'CON.F.US.TYA.M25';
const z = (price: number) => Math.round(price * 64); // ZN price → ticks (exact: every price below is k/64)
const ok = { success: true, errorCode: 0, errorMessage: null };

/** An app under API_PROFILE=live whose ZN data is one 1 s bar a minute from 14:30 on 2025-03-03. */
async function znApp(bars: Array<[number, number, number, number]>): Promise<TestApp & { token: string }> {
  const t = await makeApp({ nowMs: WALL_MS, config: { dataStartDate: '2024-01-08', dataEndDate: '2024-01-09', ...LIVE } });
  const rows = bars.map(([o, h, l, c], i) => [OPEN_S + i * 60, z(o), z(h), z(l), z(c), 5]);
  t.s.chunks.put('ZN', dayOf(`${DAY}T00:00:00Z`), 'import', barsOf(rows));
  return Object.assign(t, { token: await t.login() });
}

describe('Contract/* by profile', () => {
  it('live lists all twenty in the table\'s order, gateway symbol IDs; spec exactly the seven, as before', async () => {
    const t = await znApp([[110.5, 110.5, 110.5, 110.5]]);
    const live = await t.post('Contract/available', {}, t.token);
    expect(live.body.contracts.map((c: any) => c.symbolId)).toEqual([
      'F.US.ENQ', 'F.US.EP', 'F.US.MNQ', 'F.US.MES', 'F.US.GCE', 'F.US.EURUSD', 'F.US.LIGHTCMDUSD', 'F.US.YM', 'F.US.MYM',
      'F.US.RTY', 'F.US.M2K', 'F.US.CLE', 'F.US.MCLE', 'F.US.MGC', 'F.US.NGE', 'F.US.TYA', 'F.US.USA', 'F.US.EU6', 'F.US.BP6', 'F.US.JY6',
    ]);
    const spec = await specPost(t, 'Contract/available', {});
    expect(spec.contracts.map((c: any) => c.symbolId)).toEqual(SEVEN);
    expect((await specPost(t, 'Contract/search', { searchText: 'crude' })).contracts.map((c: any) => c.symbolId)).toEqual(['LIGHTCMDUSD']);
    expect((await t.post('Contract/search', { searchText: 'crude' }, t.token)).body.contracts.map((c: any) => c.symbolId)).toEqual(['F.US.LIGHTCMDUSD', 'F.US.CLE', 'F.US.MCLE']);
  });

  it('searchById: ZN under live with its exact fields; Contract not found under spec', async () => {
    const t = await znApp([[110.5, 110.5, 110.5, 110.5]]);
    const live = await t.post('Contract/searchById', { contractId: 'CON.F.US.TYA.H25' }, t.token);
    // The ID sent is echoed; the name carries the replay clock's front month (no session: the wall clock's, M25).
    expect(live.body.contract).toEqual({ id: 'CON.F.US.TYA.H25', name: 'ZNM5', description: '10-Year U.S. Treasury Note', tickSize: 0.015625, tickValue: 15.625, activeContract: true, symbolId: 'F.US.TYA' });
    expect(await specPost(t, 'Contract/searchById', { contractId: 'CON.F.US.TYA.H25' })).toEqual({ success: false, errorCode: 1, errorMessage: 'Contract not found' });
  });

  it('Replay/start: ZN and CL are unknown under spec (as before), ZN starts under live', async () => {
    const t = await znApp([[110.5, 110.5, 110.5, 110.5]]);
    for (const instrumentSymbol of ['ZN', 'CL']) {
      const r = await specPost(t, 'Replay/start', { instrumentSymbol, startDate: DAY, timeframe: '1m' });
      expect([r.success, r.errorCode, r.errorMessage]).toEqual([false, 1, 'Instrument not found']);
    }
    const r = await t.post('Replay/start', { instrumentSymbol: 'ZN', startDate: DAY, timeframe: '1m' }, t.token);
    expect(r.body.success).toBe(true);
    expect(r.body.instrument).toMatchObject({ contractId: ZN, name: 'ZNM5', tickSize: 0.015625, tickValue: 15.625 });
  });
});

describe('ZN end to end under live', () => {
  it('steps, fills on its 1/64 grid, lists its position, and books P&L at $15.625 a tick in whole cents', async () => {
    const t = await znApp([
      [110.5, 110.5, 110.5, 110.5], // last price 110.5 after the first step
      [110.5, 110.546875, 110.5, 110.53125], // reaches 110 35/64: the sell limit fills there
      [110.515625, 110.515625, 110.515625, 110.515625],
    ]);
    const started = await t.post('Replay/start', { instrumentSymbol: 'ZN', startDate: DAY, timeframe: '1m' }, t.token);
    const accountId = started.body.accountId as number;
    const step = async () => (await t.post('Replay/step', { accountId, steps: 1 }, t.token)).body;
    const place = async (body: object) => (await t.post('Order/place', { accountId, contractId: ZN, size: 1, ...body }, t.token)).body;
    await step();

    expect(await place({ type: 2, side: 0, size: 2 })).toEqual({ orderId: 1, ...ok }); // long 2 at 110.5
    const offGrid = await place({ type: 1, side: 1, limitPrice: 110.55 }); // between 110 35/64 and 110 36/64
    expect(offGrid).toEqual({ success: false, errorCode: 2, errorMessage: 'limitPrice 110.55 is not a multiple of the tick size 0.015625' });
    expect(await place({ type: 1, side: 1, limitPrice: 110.546875 })).toEqual({ orderId: 2, ...ok });

    const filled = await step();
    expect(filled.filledOrders).toEqual([{ orderId: 2, fillPrice: 110.546875, fillQty: 1 }]);
    // 3 ticks × $15.625 = $46.875 → $46.88 (half a cent away from zero); 3 sides × $0.86.
    // Marked at the close 110 34/64: 2 ticks on the one left = $31.25; day margin $500 a contract.
    expect(filled.account).toEqual({ balance: 50044.3, equity: 50075.55, unrealizedPnl: 31.25, marginUsed: 500, positions: 1, pendingOrders: 0 });
    const open = await t.post('Position/searchOpen', { accountId }, t.token);
    expect(open.body.positions).toEqual([expect.objectContaining({ accountId, contractId: ZN, type: 1, size: 1, averagePrice: 110.5 })]);

    await step();
    expect(await place({ type: 2, side: 1 })).toEqual({ orderId: 3, ...ok }); // sell 1 at 110 33/64: +1 tick
    const trades = (await t.post('Trade/search', { accountId, startTimestamp: '2025-03-03T00:00:00Z' }, t.token)).body.trades;
    // Newest first, as the live gateway lists them.
    expect(trades.map((x: any) => [x.orderId, x.price, x.profitAndLoss, x.fees, x.size])).toEqual([
      [3, 110.515625, 15.63, 0.86, 1], [2, 110.546875, 46.88, 0.86, 1], [1, 110.5, null, 1.72, 2],
    ]);
    const end = (await t.post('Replay/pause', { accountId }, t.token)).body.account;
    expect(end).toMatchObject({ balance: 50059.07, positions: 0 }); // 50,000 + 46.88 + 15.63 − 4 × 0.86
    expect(trades[0].creationTimestamp).toBe(at(3)); // the session's time after three 1 m steps
  });

  it('History/retrieveBars reads ZN\'s bars under live (newest first); spec does not know the contract', async () => {
    const t = await znApp([[110.5, 110.515625, 110.484375, 110.5], [110.5, 110.546875, 110.5, 110.53125]]);
    const body = { contractId: ZN, live: false, unit: 2, unitNumber: 1, startTime: '2025-03-03T14:30:00Z', endTime: '2025-03-03T14:32:00Z', limit: 10 };
    const live = await t.post('History/retrieveBars', body, t.token);
    expect(live.body.bars).toEqual([
      { t: '2025-03-03T14:31:00Z', o: 110.5, h: 110.546875, l: 110.5, c: 110.53125, v: 5 },
      { t: '2025-03-03T14:30:00Z', o: 110.5, h: 110.515625, l: 110.484375, c: 110.5, v: 5 },
    ]);
    const spec = await specPost(t, 'History/retrieveBars', { contractId: ZN, unit: 2, unitNumber: 1, startTime: '2025-03-03T14:30:00Z', endTime: '2025-03-03T14:32:00Z' });
    expect([spec.success, spec.errorCode, spec.errorMessage]).toEqual([false, 1, 'Contract not found']);
  });
});

describe('the market hub by profile', () => {
  it('live: quotes of a ZN session name its contract and its 1/64 prices; spec: Contract not found, as before', async () => {
    const t = await znApp([[110.5, 110.5, 110.5, 110.5], [110.5, 110.546875, 110.5, 110.53125]]);
    const accountId = (await t.post('Replay/start', { instrumentSymbol: 'ZN', startDate: DAY, timeframe: '1m' }, t.token)).body.accountId;
    const market = await recordingConnection(t, marketHub(t.s), t.token);
    expect((await market.invoke('SubscribeContractQuotes', ZN)).ok).toBe(true);
    await t.post('Replay/step', { accountId, steps: 2 }, t.token);
    const quotes = () => market.sent.filter((m) => m.target === 'GatewayQuote').map((m) => m.args as [string, any]);
    await waitFor(() => quotes().some(([, q]) => q.lastPrice === 110.53125));
    for (const [id, q] of quotes()) expect([id, q.contract, q.symbol, Number.isInteger(q.lastPrice * 64)]).toEqual([ZN, ZN, 'F.US.TYA', true]);

    await t.s.users.setKeyProfile(t.email, 'spec');
    const spec = await recordingConnection(t, marketHub(t.s), t.token);
    expect(await spec.invoke('SubscribeContractQuotes', ZN)).toEqual({
      ok: false, error: "Failed to invoke 'SubscribeContractQuotes' due to an error on the server. HubException: Contract not found",
    });
  });
});
