// Which instrument of a session a trading call means: the one a contract ID names, the one holding
// an order. A one-instrument session answers its one instrument, as always.

import { instrumentForContractId } from '../../domain/contract-id.ts';
import { findInstrument, type Instrument } from '../../domain/instrument.ts';
import { isMarketOpen } from '../../domain/trading-hours.ts';
import { isoFromEpochS } from '../../lib/iso-time.ts';
import { type Invalid, isInvalid } from '../../lib/invalid.ts';
import type { Order } from '../../engine/types.ts';
import type { LiveSession, SessionLeg } from './session.ts';

/**
 * The instrument of the session a contract ID names, by any of its names whichever profile lists
 * it; the first instrument when it names none of them (the order request then refuses the
 * contract as the spec does).
 */
export function legForContract(s: LiveSession, contractId: string | Invalid): SessionLeg {
  if (s.legs.length === 1 || isInvalid(contractId)) return s.legs[0];
  const inst = instrumentForContractId(contractId, 'all');
  return s.legs.find((l) => l.inst === inst) ?? s.legs[0];
}

/** The instrument holding `orderId` working or suspended, with the order; null when none does. */
export function legOfOpenOrder(s: LiveSession, orderId: number): { leg: SessionLeg; order: Order } | null {
  for (const leg of s.legs) {
    const order = leg.engine.findOpen(orderId);
    if (order) return { leg, order };
  }
  return null;
}

/**
 * In a session over several instruments, the refusal of an order that would fill at market on an
 * instrument whose market is closed at the session's time (its clock runs over the union of the
 * instruments' hours); null when it may trade. A one-instrument session keeps the spec's behaviour.
 */
export function marketClosedReason(s: LiveSession, leg: SessionLeg): string | null {
  if (!s.multi || isMarketOpen(leg.inst.session, s.nowS)) return null;
  return `${leg.inst.symbol} is closed at ${isoFromEpochS(s.nowS)}; an order at market waits for its next open`;
}

/** A stored row's instrument: its own symbol (a session over several), else the session's one. */
export function rowInstrument(row: { readonly symbol?: string }, sessionInstrument: Instrument): Instrument {
  return row.symbol === undefined ? sessionInstrument : (findInstrument(row.symbol, 'all') ?? sessionInstrument);
}
