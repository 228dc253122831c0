// One serialization of an event for every connection that receives it (issue 32): the hubs hand the
// transport the same arguments array for every connection an event goes to (the transport serializes
// an array once, src/http/hubs/signalr/messages.ts), user events as market events, while each connection still gets
// its own profile's shapes.

import { describe, expect, it } from 'bun:test';
import { gatewayHubs } from '../../../src/http/hubs/index.ts';
import type { HubConnection, HubDefinition } from '../../../src/http/hubs/signalr/hub.ts';
import { type BarSpec, placeOk, step, tradingApp, type TradingApp } from '../../support/replay.ts';

const BARS: BarSpec[] = [[19995, 20005, 19990, 20000], [20000, 20004, 19999, 20003], 20003];

/** A connection that keeps the very arrays it was sent (the recording helper copies them). */
async function capturing(t: TradingApp, hub: HubDefinition) {
  const principal = await t.s.auth.authenticate(t.token);
  if (!principal) throw new Error('token refused');
  const sent: { target: string; args: readonly unknown[] }[] = [];
  const conn: HubConnection = {
    id: `c-${Math.random()}`, hubPath: hub.path, principal, state: new Map(), closed: false,
    send: (target, args) => sent.push({ target, args }),
    close: () => {},
  };
  hub.onConnected?.(conn);
  const invoke = (method: string, ...args: unknown[]) => hub.methods[method](conn, args);
  return { sent, invoke };
}

describe('hub arguments shared between connections', () => {
  it('two connections on one account get the same array for each user event, and for each market event', async () => {
    const t = await tradingApp(BARS, 1, {});
    const [user, market] = gatewayHubs(t.s);
    const a = await capturing(t, user);
    const b = await capturing(t, user);
    for (const c of [a, b]) {
      for (const m of ['SubscribeOrders', 'SubscribePositions', 'SubscribeTrades']) expect(await c.invoke(m, t.accountId)).toEqual({ ok: true });
      expect(await c.invoke('SubscribeAccounts')).toEqual({ ok: true });
    }
    const qa = await capturing(t, market);
    const qb = await capturing(t, market);
    for (const c of [qa, qb]) expect(await c.invoke('SubscribeContractTrades', t.contractId)).toEqual({ ok: true });
    await placeOk(t, t, { type: 2, side: 0 });
    await step(t, t);
    expect(a.sent.map((e) => e.target)).toEqual(b.sent.map((e) => e.target));
    expect(new Set(a.sent.map((e) => e.target))).toEqual(new Set(['GatewayUserOrder', 'GatewayUserTrade', 'GatewayUserPosition', 'GatewayUserAccount']));
    a.sent.forEach((e, i) => expect(e.args).toBe(b.sent[i].args));
    expect(qa.sent.map((e) => e.target)).toEqual(['GatewayTrade']);
    expect(qa.sent[0].args).toBe(qb.sent[0].args);
  });
});
