// The account behind a session's engines. A session over several contracts has one engine per
// contract (each its book, position, fills and mark) and one account: one balance, one sequence of
// order ids, fill ids and time priority, so ids are unique across the account as the gateway's are,
// and a fill on one contract moves the equity every other contract's checks see. A one-contract
// session's engine has a ledger of its own and behaves exactly as before.
//
// Across contracts (docs/decisions.md, "Several instruments"):
// - Equity = balance + Σ unrealized P&L at each contract's last price.
// - Margin: a new order's worst case on its contract, plus the margin the other contracts use, must
//   fit in the account's equity.
// - Position limit: the plan's budget is in mini contracts, micros counting 1/10 (Topstep's
//   maximum position size counts every product together); the budget left for a contract is the
//   plan's minus what the other contracts hold, in that contract's own units.

import type { Instrument } from '../domain/instrument.ts';
import type { Fill } from './types.ts';

/** What the account reads of an engine (engine-core.ts's EngineCore). */
export interface LedgerMember {
  readonly inst: Instrument;
  readonly position: { readonly qty: number };
  readonly book: { readonly size: number };
  /** The largest |position| its working entries could make (engine-place.ts `worstCaseOf`). */
  readonly worstCaseQty: number;
  readonly unrealizedCents: number;
  /** Closes the position at the last price (a liquidation of the account). */
  flatten(nowS: number): unknown;
  /** Ends every working order as Expired (the account's phase is over). */
  expireWorking(nowS: number): void;
}

export class AccountLedger {
  nextPrioritySeq = 1;
  /** The engines booking into this account, in the session's instrument order. */
  readonly members: LedgerMember[] = [];
  /** Every fill of the account in booking order (kept only when `keepsFills`: a session over several contracts). */
  readonly fills: Fill[] = [];

  constructor(
    public balanceCents: number,
    public nextOrderId = 1,
    public nextFillId = 1,
    readonly keepsFills = false,
  ) {
    if (!Number.isSafeInteger(balanceCents)) throw new Error('startingBalanceCents must be integer cents');
  }

  join(e: LedgerMember): void {
    this.members.push(e);
  }

  /** Leaves the account (a contract removed from a session; it has no position and no working order). */
  leave(e: LedgerMember): void {
    const k = this.members.indexOf(e);
    if (k >= 0) this.members.splice(k, 1);
  }

  get shared(): boolean {
    return this.members.length > 1;
  }

  /** Σ unrealized P&L of the members other than `e`, at their last prices. */
  othersUnrealizedCents(e: LedgerMember): number {
    let sum = 0;
    for (const m of this.members) if (m !== e) sum += m.unrealizedCents;
    return sum;
  }

  /**
   * Margin the members other than `e` may need: their worst case (position and working entries, as
   * a one-contract check counts its own) × day margin.
   */
  othersMarginCents(e: LedgerMember): number {
    let sum = 0;
    for (const m of this.members) if (m !== e) sum += m.worstCaseQty * m.inst.dayMarginCents;
    return sum;
  }

  /** Whether a member other than `e` holds a position. */
  othersOpen(e: LedgerMember): boolean {
    for (const m of this.members) if (m !== e && m.position.qty !== 0) return true;
    return false;
  }

  /**
   * What the members other than `e` may hold toward a plan's position limit, in micro units (a mini
   * is 10): their worst case, working entries included, as a one-contract check counts its own.
   */
  othersLimitUnits(e: LedgerMember): number {
    let sum = 0;
    for (const m of this.members) if (m !== e) sum += m.worstCaseQty * (m.inst.isMicro ? 1 : 10);
    return sum;
  }
}
