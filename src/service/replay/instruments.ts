// Replay/addInstrument and Replay/removeInstrument: a session over several instruments (started with
// instrumentSymbols) gains or loses one at its cursor. An instrument joins with the last price
// before the cursor and the account's ledger; one leaves only with no position and no working
// order, and never the first (the spec's fields name it). The clock's count of buckets ahead is
// counted again over the new set; what was played stays counted. Committed like every command.

import { maxPositionQtyFor } from '../../challenge/plans.ts';
import { limits, type Config } from '../../config.ts';
import { countUnionBuckets } from '../../data/bucket-count.ts';
import type { BarSource } from '../../data/bar-source.ts';
import type { ApiProfile } from '../../domain/api-profile.ts';
import { findInstrument, type Instrument } from '../../domain/instrument.ts';
import { SessionEngine } from '../../engine/engine.ts';
import type { Invalid } from '../../lib/invalid.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import type { SessionCommands } from './commands.ts';
import type { SessionRegistry } from './registry.ts';
import type { LiveSession } from './session.ts';
import { lastPriceBefore, parseSessionTimeframe } from './setup.ts';
import type { TradeSessionError } from './types.ts';

export type InstrumentChangeError =
  | TradeSessionError
  | { kind: 'instrument_required' }
  | { kind: 'instrument_unknown'; symbol: string }
  | { kind: 'single_instrument' }
  | { kind: 'instruments_invalid' }
  | { kind: 'instrument_present'; symbol: string }
  | { kind: 'incompatible_resolution' }
  | { kind: 'instrument_absent'; symbol: string }
  | { kind: 'instrument_first' }
  | { kind: 'instrument_busy'; symbol: string };

export interface InstrumentDeps {
  config: Config;
  source: BarSource;
}

export class SessionInstruments {
  constructor(
    private readonly d: InstrumentDeps,
    private readonly registry: SessionRegistry,
    private readonly commands: SessionCommands,
  ) {}

  async addInstrument(userId: number, accountId: number | Invalid, symbol: string | null | undefined | Invalid, listedIn: ApiProfile): Promise<Result<{ session: LiveSession }, InstrumentChangeError>> {
    const found = await this.registry.resolve(userId, accountId);
    if (!found.ok) return found;
    return this.commands.command(found.value, (s) => {
      const inst = this.named(s, symbol, listedIn);
      if (!inst.ok) return inst;
      if (s.legOf(inst.value)) return err({ kind: 'instrument_present', symbol: inst.value.symbol });
      if (s.legs.length >= limits.replayInstrumentsMax) return err({ kind: 'instruments_invalid' });
      if (!parseSessionTimeframe(s.tf.text, inst.value, true).ok) return err({ kind: 'incompatible_resolution' });
      const first = s.engine;
      const c = s.challenge;
      const engine = new SessionEngine(inst.value, {
        startingBalanceCents: first.balanceCents, slippageTicks: this.d.config.slippageTicks,
        maxPositionQty: c ? maxPositionQtyFor(c.rule.plan, inst.value) : null, ledger: first.ledger,
      });
      const last = lastPriceBefore(this.d.source, inst.value, s.cursorS);
      if (last) engine.setLastPrice(last.ticks, last.timeS);
      s.addLeg({ inst: inst.value, engine });
      this.recount(s);
      return ok({ session: s });
    });
  }

  async removeInstrument(userId: number, accountId: number | Invalid, symbol: string | null | undefined | Invalid, listedIn: ApiProfile): Promise<Result<{ session: LiveSession }, InstrumentChangeError>> {
    const found = await this.registry.resolve(userId, accountId);
    if (!found.ok) return found;
    return this.commands.command(found.value, (s) => {
      const inst = this.named(s, symbol, listedIn);
      if (!inst.ok) return inst;
      const leg = s.legOf(inst.value);
      if (!leg) return err({ kind: 'instrument_absent', symbol: inst.value.symbol });
      if (leg === s.legs[0]) return err({ kind: 'instrument_first' });
      const e = leg.engine;
      if (e.positionQty !== 0 || e.book.size > 0 || e.suspended.length > 0) return err({ kind: 'instrument_busy', symbol: inst.value.symbol });
      s.removeLeg(leg);
      this.recount(s);
      return ok({ session: s });
    });
  }

  /** The instrument a request names, for a session over several. */
  private named(s: LiveSession, symbol: string | null | undefined | Invalid, listedIn: ApiProfile): Result<Instrument, InstrumentChangeError> {
    if (!s.multi) return err({ kind: 'single_instrument' });
    if (typeof symbol !== 'string' || symbol.trim() === '') return err({ kind: 'instrument_required' });
    const inst = findInstrument(symbol, listedIn);
    return inst ? ok(inst) : err({ kind: 'instrument_unknown', symbol });
  }

  /** The bars played stay counted; those ahead are counted over the new set of instruments. */
  private recount(s: LiveSession): void {
    s.totalBars = s.currentIndex + countUnionBuckets(this.d.source, s.instruments, s.tf, s.cursorS, s.endS);
  }
}
