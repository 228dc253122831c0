// What a committed replay command or advance tells the real-time hubs: the engine's changes (orders,
// fills, positions, balances) in the order they happened, interleaved with a quote per played bar
// of the session feeding the user's market subscriptions. Published only after the commit, so no
// client hears of a change the store does not hold; built only for topics somebody listens to, so
// a session without subscribers pays one lookup per topic. A call's events are built at once (they
// read the session as the call left it) and handed to the bus as one batch after the call has
// answered, in bounded slices (events/fanout.ts): a step's cost does not grow with its subscribers.

import type { BarColumns } from '../../data/bar-columns.ts';
import type { BarSource } from '../../data/bar-source.ts';
import { nextBucketStart } from '../../domain/timeframe.ts';
import type { EngineChange } from '../../engine/changes.ts';
import type { SessionEngine } from '../../engine/engine.ts';
import { specOrderView } from '../../engine/spec-view.ts';
import { sideSign } from '../../engine/types.ts';
import { challengeAccountName, replayAccountName } from '../account-names.ts';
import { limits } from '../../config.ts';
import type { EventBus } from '../events/bus.ts';
import { DeferredFanout } from '../events/fanout.ts';
import { accountsTopic, barsTopic, marketTopic, type ReplayEvent, type TickBar, userTopic } from '../events/types.ts';
import type { LiveSession, SessionLeg } from './session.ts';
import { SessionTape } from './tape.ts';

/**
 * How the session moved: played bars (step, play: the first instrument's, and in a session over
 * several each one's, `byLeg`), jumped (jumpTo), or did not move (a command).
 */
export type Movement = { kind: 'bars'; bars: BarColumns; byLeg?: readonly BarColumns[] | null } | { kind: 'jump' } | { kind: 'none' };

/** One instrument's share of what a call changed: its engine's journal (a one-instrument session has one). */
export interface LegChanges {
  readonly leg: SessionLeg;
  readonly changes: readonly EngineChange[];
}

export interface SessionEventDeps {
  bus: EventBus<ReplayEvent>;
  source: BarSource;
  /** The live session that feeds a user's market subscriptions on an instrument (docs/decisions.md, "Hubs"). */
  feedingSession(userId: number, symbol: string): LiveSession | undefined;
  /** A failure while fanning events out (after the call answered: nobody else can be told). */
  onError?: (error: Error) => void;
}

export class SessionEvents {
  /** Each instrument's quote tape, per session (one engine per instrument). */
  private readonly tapes = new WeakMap<SessionEngine, SessionTape>();
  private readonly fanout: DeferredFanout<ReplayEvent>;
  /** The events of the call being published (null outside `published`). */
  private batch: ReplayEvent[] | null = null;

  constructor(private readonly d: SessionEventDeps) {
    this.fanout = new DeferredFanout(d.bus, limits.replayEventSliceMs, d.onError, undefined, limits.replayEventQueuedMax);
  }

  /**
   * Runs `fn` once every event published so far has gone to the bus (at once when none waits): a new
   * subscription's first quote must not overtake the older quotes still on their way.
   */
  afterPublished(fn: () => void): void {
    this.fanout.after(fn);
  }

  /** While the bus delivers a call's event: when the call handed it over (monotonic ms); else undefined. */
  get publishingSinceMs(): number | undefined {
    return this.fanout.publishingSinceMs;
  }

  /** Resolves once every event published so far has gone to the bus. */
  settled(): Promise<void> {
    return new Promise((resolve) => this.fanout.after(resolve));
  }

  /**
   * Publishes what a committed call did, instrument by instrument (each one's changes interleaved
   * with its own quotes); `ended` when it ended the session.
   */
  published(s: LiveSession, legs: readonly LegChanges[], movement: Movement, ended: boolean): void {
    const batch: ReplayEvent[] = [];
    this.batch = batch;
    try {
      this.build(s, legs, movement, ended);
    } finally {
      this.batch = null;
      // A playing session's tick answers nobody: its events need not wait for the next turn.
      if (s.playTimer !== null) this.fanout.publishNow(batch);
      else this.fanout.add(batch);
    }
  }

  /** One event of the call being published (or, outside a call, a batch of its own). */
  private emit(e: ReplayEvent): void {
    if (this.batch !== null) this.batch.push(e);
    else this.fanout.add([e]);
  }

  private build(s: LiveSession, legs: readonly LegChanges[], movement: Movement, ended: boolean): void {
    const bus = this.d.bus;
    // A practice branch's changes are its own account's, never its challenge's (branching.ts).
    const accountIds = s.challenge && !s.challenge.practice ? [s.accountId, s.challenge.accountId] : [s.accountId];
    const userWanted = accountIds.some((id) => bus.listeners(userTopic(id)) > 0) || bus.listeners(accountsTopic(s.userId)) > 0;
    const barsWanted = bus.listeners(barsTopic(s.accountId)) > 0;
    // Each instrument's market subscription asked once (finding the feeding session walks the registry).
    const marketWanted = legs.map(({ leg }) => this.marketWanted(s, leg));
    if (!userWanted && !marketWanted.includes(true) && !barsWanted) return;
    legs.forEach(({ leg, changes }, k) => {
      const bars = movement.kind !== 'bars' ? null : k === 0 ? movement.bars : movement.byLeg?.[k] ?? null;
      this.legEvents(s, leg, changes, bars, movement.kind === 'jump', userWanted ? accountIds : null, marketWanted[k]);
    });
    // The session ended, or a call changed the balance without a fill (a payout): the account as it is now.
    const balanceOnly = legs.every((l) => l.changes.length === 0) && movement.kind === 'none';
    if (userWanted && (ended || balanceOnly)) this.accountEvents(s, accountIds, s.engine.balanceCents, ended);
    if (barsWanted && (movement.kind !== 'none' || ended)) {
      const bars = movement.kind === 'bars' ? tickBars(movement.bars) : [];
      // A session over several instruments: each one's bars, by symbol (the first's are `bars` too).
      const bySymbol = s.multi ? s.legs.map((l, k) => ({ symbol: l.inst.symbol, bars: movement.kind === 'bars' && movement.byLeg?.[k] ? tickBars(movement.byLeg[k]) : [] })) : undefined;
      this.emit({ topic: barsTopic(s.accountId), kind: 'bars', accountId: s.accountId, symbol: s.inst.symbol, bars, bySymbol, currentIndex: s.currentIndex, nowS: s.nowS, ended });
    }
  }

  private marketWanted(s: LiveSession, leg: SessionLeg): boolean {
    return this.d.bus.listeners(marketTopic(s.userId, leg.inst.symbol)) > 0 && this.d.feedingSession(s.userId, leg.inst.symbol) === s;
  }

  /** One instrument's events: its changes in time order, with a quote (and bar) per played bar between them. */
  private legEvents(
    s: LiveSession, leg: SessionLeg, changes: readonly EngineChange[], b: BarColumns | null, jumped: boolean, accountIds: readonly number[] | null, marketWanted: boolean,
  ): void {
    const symbol = leg.inst.symbol;
    const market = marketTopic(s.userId, symbol);
    let next = 0;
    const flushUntil = (timeS: number) => {
      for (; next < changes.length && changeTimeS(changes[next]) < timeS; next++) {
        if (accountIds) this.userEvents(s, leg, accountIds, changes[next]);
      }
    };
    for (let i = 0; b !== null && i < b.length; i++) {
      const endS = Math.min(nextBucketStart(s.tf, b.time[i]), s.nowS);
      flushUntil(endS);
      if (marketWanted) {
        const bar = { timeS: b.time[i], open: b.open[i], high: b.high[i], low: b.low[i], close: b.close[i], volume: b.volume[i] };
        const quote = this.tape(leg).quote(endS, b.close[i], { startS: b.time[i], high: bar.high, low: bar.low, volume: bar.volume });
        const last = i === b.length - 1;
        this.emit({ topic: market, kind: 'tick', userId: s.userId, symbol, sessionAccountId: s.accountId, quote, bar, last });
      }
    }
    flushUntil(Infinity);
    if (marketWanted && jumped && leg.engine.hasLastPrice) this.publishQuote(s, leg);
  }

  /** An instrument's current quote as a market event (a new subscription's first quote, a jump's last). */
  publishQuote(s: LiveSession, leg: SessionLeg = s.legs[0]): void {
    const quote = this.currentQuote(s, leg);
    if (quote === null) return;
    this.emit({
      topic: marketTopic(s.userId, leg.inst.symbol), kind: 'tick', userId: s.userId, symbol: leg.inst.symbol,
      sessionAccountId: s.accountId, quote, bar: null, last: true,
    });
  }

  /** The quote of an instrument of the session at its now, or null before it has a price. */
  currentQuote(s: LiveSession, leg: SessionLeg = s.legs[0]) {
    return leg.engine.hasLastPrice ? this.tape(leg).quote(s.nowS, leg.engine.lastPriceTicks, null) : null;
  }

  private tape(leg: SessionLeg): SessionTape {
    let t = this.tapes.get(leg.engine);
    if (!t) this.tapes.set(leg.engine, (t = new SessionTape(leg.inst, this.d.source)));
    return t;
  }

  private userEvents(s: LiveSession, leg: SessionLeg, accountIds: readonly number[], c: EngineChange): void {
    const symbol = leg.inst.symbol;
    if (c.kind === 'order') {
      if (c.armed) return; // nothing a client sees changed
      for (const accountId of accountIds) {
        const order = specOrderView(c.order);
        this.emit({ topic: userTopic(accountId), kind: 'order', accountId, symbol, order, gatewayOrder: c.order, action: c.created ? 0 : 1 });
      }
      return;
    }
    const action = c.previousQty === 0 ? 0 : c.positionQty === 0 ? 2 : 1;
    const closing = c.previousQty !== 0 && Math.sign(c.previousQty) !== sideSign(c.fill.side);
    for (const accountId of accountIds) {
      const topic = userTopic(accountId);
      this.emit({ topic, kind: 'trade', accountId, symbol, fill: c.fill, closing });
      const opening = c.positionOpenedS === null || c.positionOpenFillId === null ? null : { openedS: c.positionOpenedS, fillId: c.positionOpenFillId };
      this.emit({ topic, kind: 'position', accountId, symbol, qty: c.positionQty, avgPriceTicks: c.avgPriceTicks, timeS: s.nowS, action, opening });
    }
    this.accountEvents(s, accountIds, c.balanceCents, false);
  }

  /**
   * The session's accounts as they stand (the store holds the same once the call has committed):
   * the replay account trades until the session ends, the challenge's while it is active.
   */
  private accountEvents(s: LiveSession, accountIds: readonly number[], balanceCents: number, ended: boolean): void {
    const topic = accountsTopic(s.userId);
    if (this.d.bus.listeners(topic) === 0) return;
    for (const id of accountIds) {
      const challenge = s.challenge && id === s.challenge.accountId ? s.challenge : null;
      const account = challenge
        ? { id, name: challengeAccountName(challenge.rule.plan.size, id), balanceCents, canTrade: challenge.rule.state.status === 'active', kind: 'challenge' as const }
        : { id, name: replayAccountName(s.inst.symbol, s.tf.text, id), balanceCents, canTrade: !ended, kind: 'replay' as const };
      this.emit({ topic, kind: 'account', account });
    }
  }
}

function changeTimeS(c: EngineChange): number {
  return c.kind === 'order' ? c.timeS : c.fill.timeS;
}

function tickBars(b: BarColumns): TickBar[] {
  const out: TickBar[] = [];
  for (let i = 0; i < b.length; i++) {
    out.push({ timeS: b.time[i], open: b.open[i], high: b.high[i], low: b.low[i], close: b.close[i], volume: b.volume[i] });
  }
  return out;
}
