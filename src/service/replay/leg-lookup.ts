// Which instrument of a session a trading call means: the one a contract ID names, the one holding
// an order. A one-instrument session answers its one instrument, as always.

import { instrumentForContractId } from '../../domain/contract-id.ts';
import { findInstrument, type Instrument } from '../../domain/instrument.ts';
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

/** A stored row's instrument: its own symbol (a session over several), else the session's one. */
export function rowInstrument(row: { readonly symbol?: string }, sessionInstrument: Instrument): Instrument {
  return row.symbol === undefined ? sessionInstrument : (findInstrument(row.symbol, 'all') ?? sessionInstrument);
}
