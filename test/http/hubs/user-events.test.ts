// The user hub's events for a bracketed market order, from placement to a leg's fill: every event in
// order, each equal to what REST reports of the same object at the same moment, in both event shapes.
// The hub's methods are driven over a recording connection (the transport is tested on its own with
// the official client in transport.test.ts, and end to end in gateway-bot.test.ts).

import { describe, expect, it } from 'bun:test';
import { gatewayHubs } from '../../../src/http/hubs/index.ts';
import type { HubEventShape } from '../../../src/config.ts';
import { type Recorded, recordingConnection } from '../../support/hub-recording.ts';
import { at, type BarSpec, orders, placeOk, positions, step, trades, tradingApp, type TradingApp } from '../../support/replay.ts';

const BAR0: BarSpec = [19995, 20005, 19990, 20000];
// Path open 20000, low 19999 (nearer), high 20004, close 20003: the take-profit at 20003 fills.
const BAR1: BarSpec = [20000, 20004, 19999, 20003];

async function bracketApp(shape: HubEventShape) {
  const t = await tradingApp([BAR0, BAR1], 1, {});
  t.s.config.hubEventShape = shape;
  const [user] = gatewayHubs(t.s);
  const c = await recordingConnection(t, user, t.token);
  for (const m of ['SubscribeOrders', 'SubscribePositions', 'SubscribeTrades']) expect(await c.invoke(m, t.accountId)).toEqual({ ok: true });
  expect(await c.invoke('SubscribeAccounts')).toEqual({ ok: true });
  return { t, c };
}

const unwrap = (shape: HubEventShape, e: Recorded) => {
  const a = e.args[0] as any;
  return shape === 'wrapped' ? a : { action: undefined, data: a };
};

/** REST's object with null fields left out, as the hub sends it. */
const compact = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null));

for (const shape of ['wrapped', 'plain'] as const) {
  describe(`user hub events (${shape})`, () => {
    it('placement of a bracketed market order: created, filled, trade, position opened, balance, legs working', async () => {
      const { t, c } = await bracketApp(shape);
      const entryId = await placeOk(t, t, { type: 2, side: 0, stopLossBracket: { ticks: 8 }, takeProfitBracket: { ticks: 12 } });
      // What REST says right after the answer.
      const [entryRow] = (await orders(t, t)).filter((o) => o.id === entryId);
      const [pos] = await positions(t, t);
      const [trade] = await trades(t, t);
      const account = (await t.post('Account/search', {}, t.token)).body.accounts.find((a: any) => a.id === t.accountId);
      const legs = (await t.post('Order/searchOpen', { accountId: t.accountId }, t.token)).body.orders.sort((a: any, b: any) => a.id - b.id);
      expect(legs.map((o: any) => [o.type, o.stopPrice, o.limitPrice])).toEqual([[4, 19998, null], [1, null, 20003]]);

      expect(c.sent.map((e) => e.target)).toEqual([
        'GatewayUserOrder', 'GatewayUserOrder', 'GatewayUserTrade', 'GatewayUserPosition', 'GatewayUserAccount',
        'GatewayUserOrder', 'GatewayUserOrder',
      ]);
      const ev = c.sent.map((e) => unwrap(shape, e));
      const action = (n: number) => (shape === 'wrapped' ? n : undefined);
      // Created: a working market order an instant before its fill.
      expect(ev[0]).toEqual({
        action: action(0),
        data: { ...compact(entryRow), status: 1, fillVolume: 0, filledPrice: undefined, updateTimestamp: entryRow.creationTimestamp },
      });
      expect(ev[0].data).not.toHaveProperty('filledPrice');
      expect(ev[1]).toEqual({ action: action(1), data: compact(entryRow) });
      expect(ev[1].data).toMatchObject({ status: 2, fillVolume: 1, filledPrice: 20000 });
      expect(ev[2]).toEqual({ action: action(0), data: { ...trade, id: 1, profitAndLoss: null } });
      expect(ev[3]).toEqual({ action: action(0), data: pos });
      expect(ev[4]).toEqual({ action: action(1), data: account });
      for (const [i, leg] of [[5, legs[0]], [6, legs[1]]] as const) {
        expect(ev[i]).toEqual({ action: action(0), data: { ...compact(leg), parentOrderId: entryId, updateTimestamp: leg.creationTimestamp } });
      }
    });

    it('a step that fills the take-profit: leg filled, closing trade with P&L, position closed, balance, stop-loss canceled', async () => {
      const { t, c } = await bracketApp(shape);
      const entryId = await placeOk(t, t, { type: 2, side: 0, stopLossBracket: { ticks: 8 }, takeProfitBracket: { ticks: 12 } });
      const before = (await t.post('Account/search', {}, t.token)).body.accounts.find((a: any) => a.id === t.accountId).balance;
      c.sent.length = 0;
      const r = await step(t, t);
      expect(r.filledOrders).toEqual([{ orderId: entryId + 2, fillPrice: 20003, fillQty: 1 }]);
      const all = await orders(t, t);
      const tp = all.find((o) => o.id === entryId + 2);
      const sl = all.find((o) => o.id === entryId + 1);
      const [closing] = await trades(t, t); // newest first
      const account = (await t.post('Account/search', {}, t.token)).body.accounts.find((a: any) => a.id === t.accountId);
      expect(await positions(t, t)).toEqual([]);

      expect(c.sent.map((e) => e.target)).toEqual([
        'GatewayUserOrder', 'GatewayUserTrade', 'GatewayUserPosition', 'GatewayUserAccount', 'GatewayUserOrder',
      ]);
      const ev = c.sent.map((e) => unwrap(shape, e));
      const action = (n: number) => (shape === 'wrapped' ? n : undefined);
      expect(ev[0]).toEqual({ action: action(1), data: { ...compact(tp), parentOrderId: entryId } });
      // 12 ticks of $5 realized, gross; the fees are their own field.
      expect(ev[1]).toEqual({ action: action(0), data: { ...closing, id: 2, profitAndLoss: 60 } });
      expect(ev[2]).toEqual({
        action: action(2),
        data: {
          id: 1, accountId: t.accountId, contractId: t.contractId, contractDisplayName: 'E-mini NASDAQ-100',
          creationTimestamp: at(2), type: 0, size: 0, averagePrice: 20000,
        },
      });
      expect(ev[3]).toEqual({ action: action(1), data: account });
      expect(account.balance).toBe(Math.round((before + 60 - closing.fees) * 100) / 100);
      expect(ev[4]).toEqual({ action: action(1), data: { ...compact(sl), parentOrderId: entryId, updateTimestamp: at(1) } });
      expect(ev[4].data.status).toBe(3);
    });
  });
}

describe('user hub subscriptions', () => {
  it("an account the user does not own is refused and gets no events; numeric strings and extra arguments are accepted", async () => {
    const t = await tradingApp([BAR0, BAR1], 1);
    const [user] = gatewayHubs(t.s);
    const created = await t.s.users.create({ email: 'intruder@example.com', plan: 'pro' });
    if (!created.ok) throw new Error('no user');
    const login = await t.post('Auth/loginKey', { userName: 'intruder@example.com', apiKey: created.value.apiKey });
    const intruder = await recordingConnection(t, user, login.body.token);
    expect(await intruder.invoke('SubscribeOrders', t.accountId)).toEqual({
      ok: false,
      error: "Failed to invoke 'SubscribeOrders' due to an error on the server. HubException: Account not found",
    });
    const owner = await recordingConnection(t, user, t.token);
    expect(await owner.invoke('SubscribeOrders', String(t.accountId))).toEqual({ ok: true });
    await placeOk(t, t, { type: 2, side: 0 });
    expect(intruder.sent).toEqual([]);
    expect(owner.sent.map((e) => e.target)).toEqual(['GatewayUserOrder', 'GatewayUserOrder']);
    expect(await owner.invoke('UnsubscribeOrders', t.accountId, 'extra', 3)).toEqual({ ok: true });
    await placeOk(t, t, { type: 2, side: 1 });
    expect(owner.sent).toHaveLength(2);
  });

  it('logout and key rotation close the connection with an error', async () => {
    const t = await tradingApp([BAR0], 1);
    const [user, market] = gatewayHubs(t.s);
    const u = await recordingConnection(t, user, t.token);
    const m = await recordingConnection(t, market, t.token);
    await t.post('Auth/logout', {}, t.token);
    expect(u.closes).toEqual(['Unauthorized: logged out']);
    expect(m.closes).toEqual(['Unauthorized: logged out']);
    const token = await t.login();
    const again = await recordingConnection(t, user, token);
    await t.s.users.rotateKey(t.email);
    expect(again.closes).toEqual(['Unauthorized: API key rotated']);
  });
});
