// Replay/branch (the current family's extension; docs/decisions.md, "Branching"): a new session
// whose state is exactly a session's at the close of a bar it has played. The store keeps a
// checkpoint of a session's core state (engines, ledger, the challenge rule's state, cursor) at its
// start and after the last trading command at each cursor (persistence.ts), never its bars. A branch
// at T restores the last checkpoint before T and walks the stored bars to T with the session's own
// walker (session.ts jumpTo): the state at T's close before any command sent at T. It then stores that
// as a new session: the parent's orders and fills up to T (by the engines' id counters), the walk's and
// the engines' working orders over them, its checkpoints before T, and its drawings. The parent is
// only read. A challenge session's branch is practice: its own copy of the rule's state, shown and
// applied, never saved to the challenge, never its evaluation or a payout.

import type { Order } from '../../engine/types.ts';
import { isInvalid, type Invalid } from '../../lib/invalid.ts';
import { parseIsoMs } from '../../lib/iso-time.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import { randomSecret } from '../../lib/secrets.ts';
import { coreLimits } from '../../core-limits.ts';
import { lowerBound } from '../../data/bar-columns.ts';
import { findInstrument } from '../../domain/instrument.ts';
import { bucketStart, type Timeframe } from '../../domain/timeframe.ts';
import { utcDayOf } from '../../domain/trading-hours.ts';
import type { RateLimiter } from '../rate-limit.ts';
import type { SessionRow } from '../../store/replay.ts';
import { replayAccountName } from '../account-names.ts';
import { ADVANCE_SLICE_MS, jumpPlan } from './advance-plan.ts';
import type { LifecycleDeps } from './lifecycle.ts';
import { checkpointOf, type SessionPersistence, type SessionUnit, unitOf } from './persistence.ts';
import type { SessionReads } from './reads.ts';
import type { SessionRegistry } from './registry.ts';
import type { LiveSession } from './session.ts';

export type BranchError =
  | { kind: 'account_not_found' }
  | { kind: 'invalid_time' }
  | { kind: 'time_not_played'; startS: number; nowS: number }
  | { kind: 'time_off_grid'; timeframe: string }
  | { kind: 'time_decided' }
  | { kind: 'not_branchable' }
  | { kind: 'too_many_sessions' }
  | { kind: 'rate_limited'; retryAfterS: number };

/** The state a branch starts from: the walked session, with what the walk changed, instrument by instrument. */
interface BranchPoint {
  walked: LiveSession;
  units: SessionUnit[];
  row: SessionRow;
}

export class SessionBranching {
  constructor(
    private readonly d: LifecycleDeps,
    private readonly registry: SessionRegistry,
    private readonly persistence: SessionPersistence,
    private readonly reads: SessionReads,
    /** Replay/start's: a branch makes an account and a session as a start does, within the same budget. */
    private readonly startLimiter: RateLimiter,
    /** The user's ended replay accounts beyond those kept are deleted after each new session (lifecycle.ts). */
    private readonly pruneEnded: (userId: number) => Promise<void>,
  ) {}

  /** Replay/branch: `liveSessionsMax` is the family's start policy's (a branch is a live session as a start's is). */
  async branch(userId: number, accountId: number | Invalid, time: string | Invalid, liveSessionsMax: number): Promise<Result<{ session: LiveSession }, BranchError>> {
    if (typeof accountId !== 'number' || !Number.isInteger(accountId)) return err({ kind: 'account_not_found' });
    const named = await this.d.accounts.byId(accountId);
    if (!named || named.userId !== userId) return err({ kind: 'account_not_found' });
    // A challenge account's id stands for its live session (else its latest), as for orders and searches.
    if (named.kind === 'challenge') accountId = await this.reads.tradingAccountOf(accountId);
    const account = named.kind === 'challenge' ? await this.d.accounts.byId(accountId) : named;
    if (!account || account.userId !== userId || account.kind !== 'replay') return err({ kind: 'account_not_found' });
    const ms = isInvalid(time) ? undefined : parseIsoMs(time);
    if (ms === undefined || ms % 1000 !== 0) return err({ kind: 'invalid_time' });
    const gate = await this.startLimiter.take(String(userId), this.d.clock.nowMs());
    if (!gate.allowed) return err({ kind: 'rate_limited', retryAfterS: gate.retryAfterS });
    const row = await this.d.store.session(accountId);
    if (!row) return err({ kind: 'account_not_found' });
    if (row.status === 'ended') return this.branchAt(userId, row, ms / 1000, liveSessionsMax);
    // A live parent: read under its lock, so no command or advance is half-way through its commit.
    const live = await this.registry.live(userId, accountId);
    if (!live.ok) return live.error.kind === 'session_ended' ? this.branchEnded(userId, accountId, ms / 1000, liveSessionsMax) : err({ kind: 'account_not_found' });
    return live.value.exclusive(async () => {
      const now = await this.d.store.session(accountId);
      return now ? this.branchAt(userId, now, ms / 1000, liveSessionsMax) : err({ kind: 'account_not_found' });
    });
  }

  /** The parent ended between the two reads: branch its stored end. */
  private async branchEnded(userId: number, accountId: number, timeS: number, max: number): Promise<Result<{ session: LiveSession }, BranchError>> {
    const row = await this.d.store.session(accountId);
    return row ? this.branchAt(userId, row, timeS, max) : err({ kind: 'account_not_found' });
  }

  private async branchAt(userId: number, parent: SessionRow, askedS: number, max: number): Promise<Result<{ session: LiveSession }, BranchError>> {
    const checked = this.checkTime(parent, askedS);
    if (!checked.ok) return checked;
    // In a gap (a daily halt, a weekend) the state is the last bar's close: nothing was played between.
    const timeS = this.lastCloseAtOrBefore(parent, checked.value, askedS);
    if ((await this.reads.liveCountAll(userId)) >= max) return err({ kind: 'too_many_sessions' });
    const point = await this.walkTo(parent, timeS);
    if (!point.ok) return point;
    const session = await this.d.db.transaction(() => this.store(userId, parent, timeS, point.value, max));
    if (session === null) return err({ kind: 'too_many_sessions' });
    this.registry.add(session);
    await this.pruneEnded(userId);
    return ok({ session });
  }

  /** A played bar's close: after the start, at most the session's time, on its timeframe's grid (or its end). */
  private checkTime(parent: SessionRow, timeS: number): Result<Timeframe, BranchError> {
    if (!Number.isInteger(timeS) || timeS <= parent.startS || timeS > parent.cursorS) {
      return err({ kind: 'time_not_played', startS: parent.startS, nowS: parent.cursorS });
    }
    const tf = this.persistence.timeframeOf(parent);
    if (!tf) return err({ kind: 'not_branchable' });
    if (timeS !== parent.endS && bucketStart(tf, timeS) !== timeS) return err({ kind: 'time_off_grid', timeframe: parent.timeframe });
    return ok(tf);
  }

  /**
   * The close of the session's last bar at or before `timeS` (a stored bar of any of its instruments,
   * after its start), so a time in a gap branches where the market last traded; `timeS` itself when no
   * bar is found within a week before it.
   */
  private lastCloseAtOrBefore(parent: SessionRow, tf: Timeframe, timeS: number): number {
    const legs = (JSON.parse(parent.engineCore) as { legs?: { symbol: string }[] }).legs ?? [];
    let best: number | null = null;
    for (const symbol of [parent.symbol, ...legs.map((l) => l.symbol)]) {
      const inst = findInstrument(symbol, 'all');
      if (!inst) continue;
      const last = utcDayOf(timeS - 1);
      for (let day = last; day > last - coreLimits.branchGapLookbackDaysMax && day >= utcDayOf(parent.startS); day--) {
        const b = this.d.source.day(inst, day);
        const i = lowerBound(b.time, b.length, timeS) - 1;
        if (i < 0 || b.time[i] < parent.startS) continue;
        const close = Math.min(bucketStart(tf, b.time[i]) + tf.widthS, timeS);
        best = best === null ? close : Math.max(best, close);
        break;
      }
    }
    return best ?? timeS;
  }

  /** Restores the last checkpoint before `timeS` and walks the stored bars from there to it. */
  private async walkTo(parent: SessionRow, timeS: number): Promise<Result<BranchPoint, BranchError>> {
    const cp = await this.persistence.branches.checkpointBefore(parent.accountId, timeS);
    // Sessions started before branching kept no checkpoint.
    if (!cp) return err({ kind: 'not_branchable' });
    const practiceOf = parent.challengeId ?? parent.practiceOf ?? null;
    const row: SessionRow = {
      ...parent, cursorS: cp.cursorS, currentIndex: cp.currentIndex, totalBars: cp.totalBars, engineCore: cp.engineCore,
      challengeId: null, practiceOf, practiceState: practiceOf === null ? null : cp.ruleState, status: 'active', endReason: null, endedMs: null,
    };
    const walked = await this.persistence.restore(row, this.d.clock.nowMs());
    if (!walked) return err({ kind: 'not_branchable' });
    this.persistence.mark(walked);
    // The challenge's rule decided (a violation or the pass ended the parent) on the way: nothing to trade from.
    if (await walkSliced(walked, timeS)) return err({ kind: 'time_decided' });
    const units = walked.legs.map((l) => unitOf(l.engine.takeChanges()));
    return ok({ walked, units, row });
  }

  /** One transaction: the live-session count under the user's lock, the account, the row, the checkpoints, the rows, the drawings. */
  private async store(userId: number, parent: SessionRow, timeS: number, p: BranchPoint, max: number): Promise<LiveSession | null> {
    await this.d.store.lockStartsOf(userId);
    if ((await this.d.store.activeCountOf(userId)) >= max) return null;
    const nowMs = this.d.clock.nowMs();
    const w = p.walked;
    const account = await this.d.accounts.insert({ userId, kind: 'replay', name: 'Replay', balanceCents: w.engine.balanceCents, nowMs });
    await this.d.accounts.rename(account.id, replayAccountName(w.inst.symbol, w.tf.text, account.id));
    const cp = checkpointOf(w);
    const row: SessionRow = {
      ...p.row, accountId: account.id, sessionId: `rs_${randomSecret(12)}`, cursorS: w.cursorS, currentIndex: w.currentIndex, totalBars: w.totalBars,
      engineCore: cp.engineCore, practiceState: cp.ruleState, parentAccountId: parent.accountId, branchS: timeS,
      createdMs: nowMs, lastActivityMs: nowMs, resultsJson: null,
    };
    const session = await this.persistence.restore(row, nowMs);
    if (!session) throw new Error(`branch of ${parent.accountId} at ${timeS} could not be restored`);
    // In a cluster the branching node holds the new session (a new account: nobody else can).
    await this.d.ownership.claim(account.id);
    await this.persistence.branches.copyCheckpointsBefore(parent.accountId, account.id, timeS);
    await this.persistence.insert(session);
    await this.persistence.branches.markBranch(account.id, parent.accountId, timeS, row.practiceOf ?? null, row.practiceOf == null ? null : cp.ruleState);
    await this.copyRows(parent.accountId, account.id, p);
    await this.persistence.branches.copyDrawings(parent.accountId, account.id, nowMs);
    return session;
  }

  /** The parent's rows up to the branch's ids, then the walk's changes and the working orders as they stand at the branch's time. */
  private async copyRows(fromId: number, toId: number, p: BranchPoint): Promise<void> {
    const core = p.walked.engine.coreState();
    await this.persistence.branches.copyRowsBefore(fromId, toId, core.nextOrderId, core.nextFillId);
    for (let k = 0; k < p.walked.legs.length; k++) {
      const leg = p.walked.legs[k];
      const symbol = p.walked.multi ? leg.inst.symbol : null;
      // Each order once, as it stands at the branch's time: the engine's working ones over what the walk changed.
      const byId = new Map<number, Order>();
      for (const o of [...p.units[k].orders, ...leg.engine.coreState().orders]) byId.set(o.id, o);
      if (byId.size === 0) continue;
      await this.persistence.branches.deleteOrders(toId, [...byId.keys()]);
      await this.d.store.upsertOrders(toId, byId.values(), symbol);
    }
  }
}

/**
 * Walks `s` to `timeS` as Replay/jumpTo does (advance-plan.ts: pieces of a day, the same walk as one
 * jump), yielding to the event loop whenever a slice has taken ADVANCE_SLICE_MS, so a branch far from
 * its checkpoint never holds the server. True when the challenge's rule halted the walk.
 */
async function walkSliced(s: LiveSession, timeS: number): Promise<boolean> {
  const ready = s.prepare(timeS);
  if (ready) await ready;
  const plan = jumpPlan(timeS);
  let sliceFrom = performance.now();
  for (let piece = plan(s, 1); piece !== null; piece = plan(s, 1)) {
    if (piece.halted) return true;
    if (performance.now() - sliceFrom > ADVANCE_SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceFrom = performance.now();
    }
  }
  return false;
}
