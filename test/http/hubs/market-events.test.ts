// The market hub over replay: the current quote on subscribing, a quote, a trade batch and a depth
// batch per played bar with the figures docs/realtime.md states, one quote for a jump, the session
// that feeds a user with several, and nothing for other users.

import { describe, expect, it } from 'bun:test';
import { gatewayHubs } from '../../../src/http/hubs/index.ts';
import { syntheticTrades } from '../../../src/data/synthetic-tape.ts';
import { type BarSpec, otherUserSession, startSession, step, tradingApp } from '../../support/replay.ts';
import { recordingConnection } from '../../support/hub-recording.ts';

const BARS: BarSpec[] = [[19995, 20005, 19990, 20000], [20000, 20004, 19999, 20003], [20003, 20003, 19980, 19985], 19986];
const time = (minute: number) => `2025-03-03T14:${30 + minute}:00.000+00:00`;

function quote(over: Record<string, unknown>) {
  return {
    symbol: 'NQ', symbolName: '/NQ', change: 0, changePercent: 0, contract: 'CON.F.US.ENQ.H25', ...over,
  };
}

async function marketApp() {
  const t = await tradingApp(BARS, 1);
  const [, market] = gatewayHubs(t.s);
  const c = await recordingConnection(t, market, t.token);
  return { t, c, market };
}

describe('market hub', () => {
  it('sends the current quote at once on SubscribeContractQuotes, then one per played bar (coalescable)', async () => {
    const { t, c } = await marketApp();
    expect(await c.invoke('SubscribeContractQuotes', t.contractId)).toEqual({ ok: true });
    expect(c.sent).toEqual([{
      target: 'GatewayQuote',
      args: [t.contractId, quote({ lastPrice: 20000, bestBid: 20000, bestAsk: 20000.25, open: 19995, high: 20005, low: 19990, volume: 1, lastUpdated: time(1), timestamp: time(1) })],
      coalesceKey: 'q:NQ',
    }]);
    c.sent.length = 0;
    await step(t, t);
    expect(c.sent).toEqual([
      { target: 'GatewayQuote', args: [t.contractId, quote({ lastPrice: 20003, bestBid: 20003, bestAsk: 20003.25, open: 19995, high: 20005, low: 19990, volume: 2, lastUpdated: time(2), timestamp: time(2) })], coalesceKey: 'q:NQ' },
    ]);
    // Two bars in one call: the earlier bar's quote would be merged into the later one in the
    // subscriber's queue, so only the last is built; the session figures include both bars.
    c.sent.length = 0;
    await t.post('Replay/step', { accountId: t.accountId, steps: 2 }, t.token);
    expect(c.sent).toEqual([
      { target: 'GatewayQuote', args: [t.contractId, quote({ lastPrice: 19986, bestBid: 19986, bestAsk: 19986.25, open: 19995, high: 20005, low: 19980, volume: 4, lastUpdated: time(4), timestamp: time(4) })], coalesceKey: 'q:NQ' },
    ]);
  });

  it('trades follow the bar path with its volume; depth is a fresh synthetic book; both are arrays', async () => {
    const { t, c } = await marketApp();
    expect(await c.invoke('SubscribeContractTrades', t.contractId)).toEqual({ ok: true });
    expect(await c.invoke('SubscribeContractMarketDepth', t.contractId)).toEqual({ ok: true });
    expect(c.sent).toEqual([]); // no snapshot for trades or depth
    await step(t, t);
    expect(c.sent.map((e) => e.target)).toEqual(['GatewayTrade', 'GatewayDepth']);
    // BAR1 has volume 1: one print, on the last point of the path 20000 → 19999 → 20004 → 20003, a downtick.
    expect(c.sent[0].args).toEqual([t.contractId, [{ symbolId: 'NQ', price: 20003, timestamp: time(2), type: 1, volume: 1 }]]);
    const depth = c.sent[1].args[1] as any[];
    expect(depth.slice(0, 3)).toEqual([
      { timestamp: time(2), type: 6, price: 0, volume: 0, currentVolume: 0 },
      { timestamp: time(2), type: 4, price: 20003, volume: 1, currentVolume: 0 },
      { timestamp: time(2), type: 3, price: 20003.25, volume: 1, currentVolume: 0 },
    ]);
    expect(depth.slice(3).map((l) => [l.type, l.price, l.volume])).toEqual([
      [2, 20002.75, 2], [1, 20003.5, 2], [2, 20002.5, 3], [1, 20003.75, 3], [2, 20002.25, 4], [1, 20004, 4], [2, 20002, 5], [1, 20004.25, 5],
    ]);
    expect(c.sent[1].coalesceKey).toBe('d:NQ');
    expect(c.sent[0].coalesceKey).toBeUndefined();
  });

  it('a jump sends one final quote, not the skipped ones', async () => {
    const { t, c } = await marketApp();
    await c.invoke('SubscribeContractQuotes', t.contractId);
    await c.invoke('SubscribeContractTrades', t.contractId);
    c.sent.length = 0;
    const r = await t.post('Replay/jumpTo', { accountId: t.accountId, targetTime: '2025-03-03T14:33:30Z' }, t.token);
    expect(r.body.success).toBe(true);
    expect(c.sent.map((e) => e.target)).toEqual(['GatewayQuote']);
    expect((c.sent[0].args[1] as any).lastPrice).toBe(19985);
  });

  it('with two sessions on one instrument the one started last feeds; other users get nothing', async () => {
    const { t, c } = await marketApp();
    await c.invoke('SubscribeContractQuotes', t.contractId);
    const older = { accountId: t.accountId, contractId: t.contractId };
    const newer = await startSession(t);
    c.sent.length = 0;
    await step(t, older);
    expect(c.sent).toEqual([]);
    await step(t, newer);
    expect(c.sent).toHaveLength(1);
    const other = await otherUserSession(t);
    await t.post('Replay/step', { accountId: other.accountId }, other.token);
    expect(c.sent).toHaveLength(1);
    // The newer one ends: the older one feeds again.
    await t.post('Replay/end', { accountId: newer.accountId }, t.token);
    c.sent.length = 0;
    await step(t, older);
    expect(c.sent).toHaveLength(1);
  });

  it('unknown contracts are refused; unsubscribing stops the feed; the aliases and ping answer', async () => {
    const { t, c } = await marketApp();
    expect(await c.invoke('SubscribeContractQuotes', 'CON.F.US.NOPE.H25')).toEqual({
      ok: false,
      error: "Failed to invoke 'SubscribeContractQuotes' due to an error on the server. HubException: Contract not found",
    });
    expect(await c.invoke('SubscribeContractDepth', t.contractId)).toEqual({ ok: true });
    expect(await c.invoke('ping')).toEqual({ ok: true });
    await step(t, t);
    expect(c.sent.map((e) => e.target)).toEqual(['GatewayDepth']);
    expect(await c.invoke('UnsubscribeContractDepth', t.contractId, 'extra')).toEqual({ ok: true });
    await step(t, t);
    expect(c.sent).toHaveLength(1);
  });
});

describe('synthetic trades', () => {
  it('split the volume over the path, remainder on the last prints, sides by tick direction', () => {
    expect(syntheticTrades(100, 104, 99, 103, 10)).toEqual([
      { priceTicks: 100, volume: 2, side: 0 }, { priceTicks: 99, volume: 2, side: 1 },
      { priceTicks: 104, volume: 3, side: 0 }, { priceTicks: 103, volume: 3, side: 1 },
    ]);
    expect(syntheticTrades(100, 100, 100, 100, 0)).toEqual([{ priceTicks: 100, volume: 0, side: 0 }]);
  });
});
