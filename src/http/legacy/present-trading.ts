// Domain → wire shapes of the earlier family for replay, orders, positions and fills, and its string
// IDs (its policy values are in policy.ts). Prices: sessions run on the base instrument
// (legacy-instruments.ts), so every price printed here is a base-tick price in this family's units
// (a fill may sit between EURUSD's 0.00005 ticks), and every contract ID names the legacy symbol
// (`CON.F.US.CL.…`).

import { legacyContractFor } from '../../domain/contract-id.ts';
import type { Instrument } from '../../domain/instrument.ts';
import { baseTicksToLegacyPrice, type LegacyInstrument, legacyInstrumentOfBase } from '../../domain/legacy-instruments.ts';
import { type Fill, type Order, OrderStatus } from '../../engine/types.ts';
import { assert } from '../../lib/assert.ts';
import { isoFromEpochS } from '../../lib/iso-time.ts';
import type { OpenPosition } from '../../service/trading.ts';

// ---- instruments and contracts ----

/** The legacy instrument a session's base instrument is traded as (every base has one). */
export function legacyOf(base: Instrument): LegacyInstrument {
  const l = legacyInstrumentOfBase(base);
  assert(l !== undefined, `no legacy instrument trades on ${base.symbol}`);
  return l;
}

export function legacyContractId(base: Instrument, nowMs: number): string {
  return legacyContractFor(legacyOf(base), nowMs).id;
}

// ---- string IDs: "<replay account id>-<engine id>" ----
// Engine order and fill ids restart at 1 in every session, so the account makes them unique; every
// lookup goes through the caller's own accounts, so another user's ID reads as not found.

export function legacyId(accountId: number, id: number): string {
  return `${accountId}-${id}`;
}

/** The account and engine id a legacy ID names, or null when it is not one. */
export function parseLegacyId(text: unknown): { accountId: number; id: number } | null {
  if (typeof text !== 'string') return null;
  const m = /^(\d{1,15})-(\d{1,15})$/.exec(text.trim());
  return m ? { accountId: Number(m[1]), id: Number(m[2]) } : null;
}

// ---- shapes ----

const price = (l: LegacyInstrument, ticks: number | null) => (ticks === null ? null : baseTicksToLegacyPrice(l, ticks));

/**
 * Order/search and Order/searchOpen: working orders keep the engine's status 6 (Pending) in both.
 * `owner` is the replay account the IDs name; `accountId` the account the client asked with.
 */
export function presentOrder(owner: number, accountId: number, base: Instrument, contractId: string, o: Order) {
  const l = legacyOf(base);
  const filled = o.status === OrderStatus.Filled;
  return {
    id: legacyId(owner, o.id),
    accountId,
    contractId,
    type: o.type,
    side: o.side,
    size: o.size,
    limitPrice: price(l, o.limitTicks),
    stopPrice: price(l, o.stopTicks),
    status: o.status,
    fillPrice: filled ? price(l, o.filledPriceTicks) : null,
    filledSize: o.fillVolume,
    createdAt: isoFromEpochS(o.createdS),
  };
}

export function presentPosition(accountId: number, contractId: string, p: OpenPosition) {
  return {
    accountId,
    contractId,
    type: p.qty > 0 ? (1 as const) : (2 as const),
    size: Math.abs(p.qty),
    averagePrice: p.avgPriceTicks / p.session.inst.ticksPerPoint,
  };
}

export function presentTrade(owner: number, accountId: number, base: Instrument, contractId: string, f: Fill) {
  return {
    id: legacyId(owner, f.id),
    orderId: legacyId(owner, f.orderId),
    accountId,
    contractId,
    side: f.side,
    size: f.size,
    price: baseTicksToLegacyPrice(legacyOf(base), f.priceTicks),
    timestamp: isoFromEpochS(f.timeS),
  };
}
