// One contract of a session over several, as the challenge rule sees it (challenge/rules.ts
// `ChallengeEngine`). The account has one rule (its state is the account's); before the rule runs a
// contract's bars or checks after its command, it is pointed at that contract (`rule.use`). Its
// position fields are the contract's; its balance, fills and equity are the account's (the engine
// adds the other contracts' open P&L, engine/ledger.ts); a liquidation flattens every contract, the
// deciding one at the rule's price and the others at their last prices (docs/decisions.md,
// "Several instruments").

import type { ChallengeEngine } from '../../challenge/rules.ts';
import type { BarColumns } from '../../data/bar-columns.ts';
import type { SessionEngine } from '../../engine/engine.ts';
import type { ProcessResult } from '../../engine/matching.ts';
import type { StopRule } from '../../engine/stop-rule.ts';
import type { Fill } from '../../engine/types.ts';

export class AccountLeg implements ChallengeEngine {
  constructor(
    readonly engine: SessionEngine,
    /** Every contract's engine of the account, in the session's order (a live list: contracts come and go). */
    private readonly engines: () => readonly SessionEngine[],
  ) {}

  get balanceCents(): number {
    return this.engine.balanceCents;
  }
  get othersUnrealizedCents(): number {
    return this.engine.othersUnrealizedCents;
  }
  get othersOpen(): boolean {
    return this.engine.othersOpen;
  }
  get positionQty(): number {
    return this.engine.positionQty;
  }
  get positionCostTicks(): number {
    return this.engine.positionCostTicks;
  }
  get tickValueCents(): number {
    return this.engine.tickValueCents;
  }
  get lastPriceTicks(): number {
    return this.engine.lastPriceTicks;
  }
  get lastTimeS(): number {
    return this.engine.lastTimeS;
  }
  get workingOrderCount(): number {
    return this.engine.workingOrderCount;
  }
  /** The account's fills, every contract's, in booking order. */
  get fills(): readonly Fill[] {
    return this.engine.ledger.fills;
  }
  get fillCount(): number {
    return this.engine.ledger.fills.length;
  }

  processBars(bars: BarColumns, from: number, to: number, rule: StopRule | null): ProcessResult {
    return this.engine.processBars(bars, from, to, rule);
  }

  flatten(nowS: number, priceTicks?: number): Fill | null {
    let first = this.engine.flatten(nowS, priceTicks);
    for (const e of this.engines()) if (e !== this.engine) first = e.flatten(nowS) ?? first;
    return first;
  }

  expireWorking(nowS: number): void {
    for (const e of this.engines()) e.expireWorking(nowS);
  }
}
