// What a committed replay command or advance tells the real-time hubs: the engine's changes (orders,
// fills, positions, balances) in the order they happened, interleaved with a quote per played bar
// of the session feeding the user's market subscriptions. Published only after the commit, so no
// client hears of a change the store does not hold; built only for topics somebody listens to, so
// a session without subscribers pays one lookup per topic.

import type { BarColumns } from '../../data/bar-columns.ts';
import type { BarSource } from '../../data/bar-source.ts';
import { nextBucketStart } from '../../domain/timeframe.ts';
import type { EngineChange } from '../../engine/changes.ts';
import { specOrderView } from '../../engine/spec-view.ts';
import { sideSign } from '../../engine/types.ts';
import { challengeAccountName, replayAccountName } from '../account-names.ts';
import type { EventBus } from '../events/bus.ts';
import { accountsTopic, barsTopic, marketTopic, type ReplayEvent, type TickBar, userTopic } from '../events/types.ts';
import type { LiveSession } from './session.ts';
import { SessionTape } from './tape.ts';

/** How the session moved: played bars (step, play), jumped (jumpTo), or did not move (a command). */
export type Movement = { kind: 'bars'; bars: BarColumns } | { kind: 'jump' } | { kind: 'none' };

export interface SessionEventDeps {
  bus: EventBus<ReplayEvent>;
  source: BarSource;
  /** The live session that feeds a user's market subscriptions on an instrument (docs/decisions.md, "Hubs"). */
  feedingSession(userId: number, symbol: string): LiveSession | undefined;
}

export class SessionEvents {
  private readonly tapes = new WeakMap<LiveSession, SessionTape>();

  constructor(private readonly d: SessionEventDeps) {}

  /** Publishes what a committed call did; `ended` when it ended the session. */
  published(s: LiveSession, changes: readonly EngineChange[], movement: Movement, ended: boolean): void {
    const bus = this.d.bus;
    const accountIds = s.challenge ? [s.accountId, s.challenge.accountId] : [s.accountId];
    const userWanted = accountIds.some((id) => bus.listeners(userTopic(id)) > 0) || bus.listeners(accountsTopic(s.userId)) > 0;
    const market = marketTopic(s.userId, s.inst.symbol);
    const marketWanted = bus.listeners(market) > 0 && this.d.feedingSession(s.userId, s.inst.symbol) === s;
    const barsWanted = bus.listeners(barsTopic(s.accountId)) > 0;
    if (!userWanted && !marketWanted && !barsWanted) return;
    let next = 0;
    const flushUntil = (timeS: number) => {
      for (; next < changes.length && changeTimeS(changes[next]) < timeS; next++) {
        if (userWanted) this.userEvents(s, accountIds, changes[next]);
      }
    };
    if (movement.kind === 'bars') {
      const b = movement.bars;
      for (let i = 0; i < b.length; i++) {
        const endS = Math.min(nextBucketStart(s.tf, b.time[i]), s.nowS);
        flushUntil(endS);
        if (marketWanted) {
          const bar = { timeS: b.time[i], open: b.open[i], high: b.high[i], low: b.low[i], close: b.close[i], volume: b.volume[i] };
          const quote = this.tape(s).quote(endS, b.close[i], { startS: b.time[i], high: bar.high, low: bar.low, volume: bar.volume });
          const last = i === b.length - 1;
          bus.publish({ topic: market, kind: 'tick', userId: s.userId, symbol: s.inst.symbol, sessionAccountId: s.accountId, quote, bar, last });
        }
      }
    }
    flushUntil(Infinity);
    if (marketWanted && movement.kind === 'jump' && s.engine.hasLastPrice) this.publishQuote(s);
    // The session ended, or a call changed the balance without a fill (a payout): the account as it is now.
    const balanceOnly = changes.length === 0 && movement.kind === 'none';
    if (userWanted && (ended || balanceOnly)) this.accountEvents(s, accountIds, s.engine.balanceCents, ended);
    if (barsWanted && (movement.kind !== 'none' || ended)) {
      const bars = movement.kind === 'bars' ? tickBars(movement.bars) : [];
      bus.publish({ topic: barsTopic(s.accountId), kind: 'bars', accountId: s.accountId, symbol: s.inst.symbol, bars, currentIndex: s.currentIndex, nowS: s.nowS, ended });
    }
  }

  /** The session's current quote as a market event (a new subscription's first quote, a jump's last). */
  publishQuote(s: LiveSession): void {
    const quote = this.currentQuote(s);
    if (quote === null) return;
    this.d.bus.publish({
      topic: marketTopic(s.userId, s.inst.symbol), kind: 'tick', userId: s.userId, symbol: s.inst.symbol,
      sessionAccountId: s.accountId, quote, bar: null, last: true,
    });
  }

  /** The quote at the session's now, or null before it has a price. */
  currentQuote(s: LiveSession) {
    return s.engine.hasLastPrice ? this.tape(s).quote(s.nowS, s.engine.lastPriceTicks, null) : null;
  }

  private tape(s: LiveSession): SessionTape {
    let t = this.tapes.get(s);
    if (!t) this.tapes.set(s, (t = new SessionTape(s.inst, this.d.source)));
    return t;
  }

  private userEvents(s: LiveSession, accountIds: readonly number[], c: EngineChange): void {
    const bus = this.d.bus;
    const symbol = s.inst.symbol;
    if (c.kind === 'order') {
      if (c.armed) return; // nothing a client sees changed
      for (const accountId of accountIds) {
        const order = specOrderView(c.order);
        bus.publish({ topic: userTopic(accountId), kind: 'order', accountId, symbol, order, gatewayOrder: c.order, action: c.created ? 0 : 1 });
      }
      return;
    }
    const action = c.previousQty === 0 ? 0 : c.positionQty === 0 ? 2 : 1;
    const closing = c.previousQty !== 0 && Math.sign(c.previousQty) !== sideSign(c.fill.side);
    for (const accountId of accountIds) {
      const topic = userTopic(accountId);
      bus.publish({ topic, kind: 'trade', accountId, symbol, fill: c.fill, closing });
      const opening = c.positionOpenedS === null || c.positionOpenFillId === null ? null : { openedS: c.positionOpenedS, fillId: c.positionOpenFillId };
      bus.publish({ topic, kind: 'position', accountId, symbol, qty: c.positionQty, avgPriceTicks: c.avgPriceTicks, timeS: s.nowS, action, opening });
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
      this.d.bus.publish({ topic, kind: 'account', account });
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
