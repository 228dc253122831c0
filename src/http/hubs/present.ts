// Domain events → the gateway hubs' payloads. User-hub entities are the current family's REST shapes
// (http/shared/present-gateway.ts) at the same moment, with the live gateway's differences: working
// orders are status 1 (Open) as Order/searchOpen reports them, `updateTimestamp` is never null, null
// fields are left out, trades carry their fill id and the realized P&L of a closing fill. Market
// payloads carry the full documented quote plus `contract`; trades and depth are synthetic
// (data/synthetic-tape.ts). docs/realtime.md lists every rule.

import type { HubEventShape } from '../../config.ts';
import { syntheticDepth, syntheticTrades } from '../../data/synthetic-tape.ts';
import { centsToUsd, type Instrument, ticksToPrice } from '../../domain/instrument.ts';
import { OrderStatus } from '../../engine/types.ts';
import { isoFromEpochS } from '../../lib/iso-time.ts';
import type { Contract } from '../../service/contracts.ts';
import type { EventAction, QuoteFigures, ReplayEvent, TickBar } from '../../service/events/types.ts';
import { presentAccount } from '../shared/present-common.ts';
import { presentLiveOrder, presentOrder, presentTrade } from '../shared/present-gateway.ts';
import type { ApiProfile } from '../../domain/api-profile.ts';

type Ev<K extends ReplayEvent['kind']> = Extract<ReplayEvent, { kind: K }>;

/** Drops null and undefined fields (the live gateway omits them). */
function compact<T extends Record<string, unknown>>(o: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const k in o) if (o[k] !== null && o[k] !== undefined) out[k] = o[k];
  return out as Partial<T>;
}

/** `{action, data}` as the live gateway sends user events, or the bare entity (HUB_EVENT_SHAPE=plain). */
export function shaped(shape: HubEventShape, action: EventAction, data: unknown): unknown {
  return shape === 'wrapped' ? { action, data } : data;
}

/**
 * An order event's payload: the spec's view of the order (engine/spec-view.ts), or under the live
 * profile the engine's own, with its custom tag and the live statuses (4 Expired, 5 Rejected, 8
 * Suspended).
 */
export function hubOrder(e: Ev<'order'>, contract: Contract, profile: ApiProfile = 'spec') {
  const o = profile === 'live' ? e.gatewayOrder : e.order;
  const working = o.status === OrderStatus.Pending;
  const rest = profile === 'live' ? presentLiveOrder(e.accountId, contract, o) : presentOrder(e.accountId, contract, o, working);
  const updatedS = o.updatedS ?? o.createdS;
  return compact({
    ...rest,
    updateTimestamp: rest.updateTimestamp ?? isoFromEpochS(updatedS),
    parentOrderId: o.parentId,
  });
}

export function hubTrade(e: Ev<'trade'>, contract: Contract) {
  const f = e.fill;
  return {
    ...presentTrade(e.accountId, contract, f, f.id - 1),
    profitAndLoss: e.closing ? centsToUsd(f.realizedPnlCents) : null,
  };
}

/**
 * The live profile's position has no `contractDisplayName` (one SDK's model rejects unknown keys), and
 * Position/searchOpen's stable id and opening time (the fill that opened it).
 */
export function hubPosition(e: Ev<'position'>, contract: Contract, profile: ApiProfile = 'spec') {
  const closed = e.qty === 0;
  const live = profile === 'live';
  const common = {
    id: live && e.opening ? e.opening.fillId : 1,
    accountId: e.accountId,
    contractId: contract.id,
  };
  const rest = {
    creationTimestamp: isoFromEpochS(live && e.opening ? e.opening.openedS : e.timeS),
    type: closed ? 0 : e.qty > 0 ? 1 : 2,
    size: Math.abs(e.qty),
    averagePrice: e.avgPriceTicks / contract.instrument.ticksPerPoint,
  };
  return profile === 'live' ? { ...common, ...rest } : { ...common, contractDisplayName: contract.instrument.description, ...rest };
}

export function hubAccount(e: Ev<'account'>) {
  return presentAccount(e.account);
}

/** `2024-03-05T14:30:00.000+00:00`: milliseconds and an offset every client's parser takes. */
export function marketTime(epochS: number): string {
  return new Date(epochS * 1000).toISOString().replace('Z', '+00:00');
}

export function hubQuote(inst: Instrument, contract: Contract, q: QuoteFigures) {
  const price = (t: number) => ticksToPrice(inst, t);
  const changeTicks = q.previousCloseTicks === null ? 0 : q.lastTicks - q.previousCloseTicks;
  const changePercent = q.previousCloseTicks === null || q.previousCloseTicks === 0 ? 0 : (changeTicks / q.previousCloseTicks) * 100;
  const t = marketTime(q.timeS);
  return {
    symbol: contract.symbolId,
    symbolName: `/${inst.symbol}`,
    lastPrice: price(q.lastTicks),
    bestBid: price(q.bidTicks),
    bestAsk: price(q.askTicks),
    change: price(changeTicks),
    changePercent: Math.round(changePercent * 10_000) / 10_000,
    open: price(q.openTicks),
    high: price(q.highTicks),
    low: price(q.lowTicks),
    volume: q.volume,
    lastUpdated: t,
    timestamp: t,
    contract: contract.id,
  };
}

export function hubTrades(inst: Instrument, contract: Contract, bar: TickBar, timeS: number) {
  const t = marketTime(timeS);
  return syntheticTrades(bar.open, bar.high, bar.low, bar.close, bar.volume).map((p) => ({
    symbolId: contract.symbolId,
    price: ticksToPrice(inst, p.priceTicks),
    timestamp: t,
    type: p.side,
    volume: p.volume,
  }));
}

export function hubDepth(inst: Instrument, q: QuoteFigures, barVolume: number) {
  const t = marketTime(q.timeS);
  return syntheticDepth(q.bidTicks, q.askTicks, barVolume).map((l) => ({
    timestamp: t,
    type: l.type,
    price: ticksToPrice(inst, l.priceTicks),
    volume: l.volume,
    currentVolume: 0,
  }));
}

/** The console's bars (ReplayDesk extension): prices, times in epoch seconds as History's. */
export function hubBars(inst: Instrument, bars: readonly TickBar[]) {
  return bars.map((b) => ({
    t: b.timeS,
    o: ticksToPrice(inst, b.open),
    h: ticksToPrice(inst, b.high),
    l: ticksToPrice(inst, b.low),
    c: ticksToPrice(inst, b.close),
    v: b.volume,
  }));
}
