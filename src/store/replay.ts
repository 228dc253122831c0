// Replay sessions, orders and fills. Callers group a call's writes in one transaction (see
// service/replay), so a response never reports a change that is not on disk.

import type { Fill, Order, OrderSide } from '../engine/types.ts';
import type { Columns } from './columns.ts';
import type { Sql } from './sql.ts';

export interface SessionRow {
  accountId: number;
  sessionId: string;
  userId: number;
  symbol: string;
  timeframe: string;
  startS: number;
  endS: number;
  cursorS: number;
  currentIndex: number;
  totalBars: number;
  historyBars: number;
  status: 'active' | 'ended';
  endReason: string | null;
  challengeId: number | null;
  engineCore: string;
  createdMs: number;
  lastActivityMs: number;
  endedMs: number | null;
  /** An ended session's statistics as kept (JSON), null until computed (src/service/replay/kept-results.ts). */
  resultsJson?: string | null;
  /** A branch (store/branches.ts): the session it left from, the bar close it left at; the challenge a practice branch shows, its own rule state. */
  parentAccountId?: number | null;
  branchS?: number | null;
  practiceOf?: number | null;
  practiceState?: string | null;
}

type RawSession = Columns<SessionRow>;

function toSession(r: RawSession): SessionRow {
  return {
    accountId: r.account_id,
    sessionId: r.session_id,
    userId: r.user_id,
    symbol: r.symbol,
    timeframe: r.timeframe,
    startS: r.start_s,
    endS: r.end_s,
    cursorS: r.cursor_s,
    currentIndex: r.current_index,
    totalBars: r.total_bars,
    historyBars: r.history_bars,
    status: r.status,
    endReason: r.end_reason,
    challengeId: r.challenge_id,
    engineCore: r.engine_core,
    createdMs: r.created_ms,
    lastActivityMs: r.last_activity_ms,
    endedMs: r.ended_ms,
    resultsJson: r.results_json ?? null,
    parentAccountId: r.parent_account_id == null ? null : Number(r.parent_account_id),
    branchS: r.branch_s == null ? null : Number(r.branch_s),
    practiceOf: r.practice_of == null ? null : Number(r.practice_of),
    practiceState: r.practice_state ?? null,
  };
}

/** An order's row: the engine's order but what the table does not keep (see toOrder), `triggered` as 0/1. */
type RawOrder = Columns<Omit<Order, 'prioritySeq' | 'passive' | 'legsAnchorTicks'>, { triggered: number }> & { symbol?: string | null };

/**
 * A stored order or fill, with its instrument's symbol when the session trades several (absent: the
 * session's one instrument).
 */
export type StoredOrder = Order & { readonly symbol?: string };
export type StoredFill = Fill & { readonly symbol?: string };

function toOrder(r: RawOrder): StoredOrder {
  return {
    ...(typeof r.symbol === 'string' ? { symbol: r.symbol } : {}),
    id: r.id,
    type: r.type,
    side: r.side,
    size: r.size,
    limitTicks: r.limit_ticks,
    stopTicks: r.stop_ticks,
    status: r.status,
    fillVolume: r.fill_volume,
    filledPriceTicks: r.filled_price_ticks,
    createdS: r.created_s,
    updatedS: r.updated_s,
    slTicks: r.sl_ticks,
    tpTicks: r.tp_ticks,
    parentId: r.parent_id,
    ocoId: r.oco_id,
    triggered: r.triggered === 1,
    // The table keeps no queue position, passive flag or suspended legs' anchor (the engine's core
    // state does); its rows are history, never matched, so the placement order (id order) stands in
    // for the queue and the others read as settled.
    prioritySeq: r.id,
    trailTicks: r.trail_ticks,
    trailExtremeTicks: r.trail_extreme_ticks,
    slType: r.sl_type,
    customTag: r.custom_tag,
    linkId: r.link_id,
    passive: false,
    legsAnchorTicks: null,
  };
}

interface RawFill {
  id: number;
  order_id: number;
  side: number;
  size: number;
  price_ticks: number;
  time_s: number;
  fee_cents: number;
  realized_cents: number;
  closed_qty: number | null;
  symbol?: string | null;
}

function toFill(r: RawFill): StoredFill {
  return {
    ...(typeof r.symbol === 'string' ? { symbol: r.symbol } : {}),
    id: r.id,
    orderId: r.order_id,
    side: r.side as OrderSide,
    size: r.size,
    priceTicks: r.price_ticks,
    timeS: r.time_s,
    feeCents: r.fee_cents,
    realizedPnlCents: r.realized_cents,
    ...(r.closed_qty === null || r.closed_qty === undefined ? {} : { closedQty: Number(r.closed_qty) }),
  };
}

export class ReplayStore {
  constructor(private readonly db: Sql) {}

  async insertSession(s: SessionRow): Promise<void> {
    await this.db.run(`INSERT INTO replay_sessions (account_id, session_id, user_id, symbol, timeframe, start_s, end_s, cursor_s,
           current_index, total_bars, history_bars, status, end_reason, challenge_id, engine_core, created_ms,
           last_activity_ms, ended_ms)
         VALUES ($account_id, $session_id, $user_id, $symbol, $timeframe, $start_s, $end_s, $cursor_s, $current_index,
           $total_bars, $history_bars, $status, $end_reason, $challenge_id, $engine_core, $created_ms, $last_activity_ms, $ended_ms)`, {
        account_id: s.accountId,
        session_id: s.sessionId,
        user_id: s.userId,
        symbol: s.symbol,
        timeframe: s.timeframe,
        start_s: s.startS,
        end_s: s.endS,
        cursor_s: s.cursorS,
        current_index: s.currentIndex,
        total_bars: s.totalBars,
        history_bars: s.historyBars,
        status: s.status,
        end_reason: s.endReason,
        challenge_id: s.challengeId,
        engine_core: s.engineCore,
        created_ms: s.createdMs,
        last_activity_ms: s.lastActivityMs,
        ended_ms: s.endedMs,
      });
  }

  /** Writes the moving parts of a session: cursor, engine core, status, activity. */
  /** `totalBars` changes only when a session over several instruments gains or loses one. */
  async updateSession(s: Pick<SessionRow, 'accountId' | 'cursorS' | 'currentIndex' | 'engineCore' | 'status' | 'endReason' | 'lastActivityMs' | 'endedMs'> & { totalBars?: number }): Promise<void> {
    await this.db.run(`UPDATE replay_sessions SET cursor_s = $cursor_s, current_index = $current_index, engine_core = $engine_core,
           status = $status, end_reason = $end_reason, last_activity_ms = $last_activity_ms, ended_ms = $ended_ms,
           total_bars = COALESCE($total_bars, total_bars)
         WHERE account_id = $account_id`, {
        account_id: s.accountId,
        cursor_s: s.cursorS,
        current_index: s.currentIndex,
        total_bars: s.totalBars ?? null,
        engine_core: s.engineCore,
        status: s.status,
        end_reason: s.endReason,
        last_activity_ms: s.lastActivityMs,
        ended_ms: s.endedMs,
      });
  }

  async touch(accountId: number, nowMs: number): Promise<void> {
    await this.db.run('UPDATE replay_sessions SET last_activity_ms = $now WHERE account_id = $id', { id: accountId, now: nowMs });
  }

  async session(accountId: number): Promise<SessionRow | null> {
    const r = (await this.db.get('SELECT * FROM replay_sessions WHERE account_id = $id', { id: accountId })) as RawSession | null;
    return r ? toSession(r) : null;
  }

  async latestSessionOfChallenge(challengeId: number): Promise<number | null> {
    const r = (await this.db.get('SELECT account_id FROM replay_sessions WHERE challenge_id = $c ORDER BY created_ms DESC, account_id DESC LIMIT 1', { c: challengeId })) as { account_id: number } | null;
    return r ? r.account_id : null;
  }

  /**
   * The user's ended sessions beyond the newest `keep` (by start), oldest included. A challenge's
   * latest session is never among them, whatever its age: the challenge's trades are read from it
   * (`latestSessionOfChallenge`).
   */
  async endedBeyond(userId: number, keep: number): Promise<number[]> {
    const rows = (await this.db.all(`SELECT s.account_id FROM replay_sessions s WHERE s.user_id = $u AND s.status = 'ended' AND (s.challenge_id IS NULL OR s.account_id !=
           (SELECT l.account_id FROM replay_sessions l WHERE l.challenge_id = s.challenge_id ORDER BY l.created_ms DESC, l.account_id DESC LIMIT 1))
         AND s.account_id NOT IN (SELECT account_id FROM replay_sessions WHERE user_id = $u AND status = 'ended' ORDER BY created_ms DESC, account_id DESC LIMIT $keep)`, { u: userId, keep })) as { account_id: number }[];
    return rows.map((r) => r.account_id);
  }

  /** Keeps an ended session's statistics (JSON); a live session's are never kept. */
  async keepResults(accountId: number, json: string): Promise<void> {
    await this.db.run(`UPDATE replay_sessions SET results_json = $r WHERE account_id = $id AND status = 'ended'`, { id: accountId, r: json });
  }

  /** The user's ended sessions, most recently ended first, at most `max`. */
  async endedOf(userId: number, max: number): Promise<SessionRow[]> {
    const rows = (await this.db.all(`SELECT * FROM replay_sessions WHERE user_id = $u AND status = 'ended' ORDER BY ended_ms DESC, account_id DESC LIMIT $max`, { u: userId, max })) as RawSession[];
    return rows.map(toSession);
  }

  /** Deletes an ended session with its notes, tags, drawings, orders and fills (the caller deletes its account, in the same transaction). */
  async deleteEnded(accountId: number): Promise<void> {
    await this.db.run('DELETE FROM journal_notes WHERE account_id = $id', { id: accountId });
    await this.db.run('DELETE FROM journal_tags WHERE account_id = $id', { id: accountId });
    await this.db.run('DELETE FROM replay_drawings WHERE account_id = $id', { id: accountId });
    await this.db.run('DELETE FROM replay_checkpoints WHERE account_id = $id', { id: accountId });
    await this.db.run('DELETE FROM fills WHERE account_id = $id', { id: accountId });
    await this.db.run('DELETE FROM orders WHERE account_id = $id', { id: accountId });
    await this.db.run(`DELETE FROM replay_sessions WHERE account_id = $id AND status = 'ended'`, { id: accountId });
  }

  /** The user's live sessions, counted in the store (every node's). */
  /**
   * Serializes one user's Replay/starts until the caller's transaction ends, so the count of their
   * live sessions and the insert it allows are one step on every node. SQLite's single connection
   * already runs one write transaction at a time; PostgreSQL takes a transaction-level advisory lock.
   */
  async lockStartsOf(userId: number): Promise<void> {
    if (this.db.dialect === 'postgres') await this.db.run('SELECT pg_advisory_xact_lock(hashtextextended($k::text, 0))', { k: `replay-start:${userId}` });
  }

  async activeCountOf(userId: number): Promise<number> {
    const r = await this.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM replay_sessions WHERE user_id = $u AND status = 'active'`, { u: userId });
    return r?.n ?? 0;
  }

  /**
   * The user's live session acted on last, whichever node runs it: the latest `last_activity_ms`
   * (a start, a command, a touch), the later started on a tie.
   */
  async lastActedLiveOf(userId: number): Promise<{ accountId: number; cursorS: number } | null> {
    const r = await this.db.get<{ account_id: number; cursor_s: number }>(
      `SELECT account_id, cursor_s FROM replay_sessions WHERE user_id = $u AND status = 'active' ORDER BY last_activity_ms DESC, account_id DESC LIMIT 1`,
      { u: userId },
    );
    return r ? { accountId: r.account_id, cursorS: r.cursor_s } : null;
  }

  /** The live session on a challenge, whichever node runs it. */
  async activeSessionOfChallenge(challengeId: number): Promise<SessionRow | null> {
    const r = (await this.db.get(`SELECT * FROM replay_sessions WHERE challenge_id = $c AND status = 'active' ORDER BY account_id DESC LIMIT 1`, { c: challengeId })) as RawSession | null;
    return r ? toSession(r) : null;
  }

  async activeSessions(): Promise<SessionRow[]> {
    return ((await this.db.all(`SELECT * FROM replay_sessions WHERE status = 'active' ORDER BY account_id`)) as RawSession[]).map(toSession);
  }

  /** `symbol`: the orders' instrument in a session over several; null for a one-instrument session's. */
  async upsertOrders(accountId: number, orders: Iterable<Order>, symbol: string | null = null): Promise<void> {
    const q = `INSERT INTO orders (account_id, id, type, side, size, limit_ticks, stop_ticks, status, fill_volume, filled_price_ticks,
         created_s, updated_s, sl_ticks, tp_ticks, parent_id, oco_id, triggered, trail_ticks, trail_extreme_ticks, sl_type,
         custom_tag, link_id, symbol)
       VALUES ($a, $id, $type, $side, $size, $limit, $stop, $status, $fv, $fp, $created, $updated, $sl, $tp, $parent, $oco, $trig,
         $trail, $extreme, $sl_type, $tag, $link, $symbol)
       ON CONFLICT (account_id, id) DO UPDATE SET size = excluded.size, limit_ticks = excluded.limit_ticks,
         stop_ticks = excluded.stop_ticks, status = excluded.status,
         fill_volume = excluded.fill_volume, filled_price_ticks = excluded.filled_price_ticks,
         updated_s = excluded.updated_s, triggered = excluded.triggered, trail_ticks = excluded.trail_ticks,
         trail_extreme_ticks = excluded.trail_extreme_ticks, link_id = excluded.link_id`;
    for (const o of orders) {
      await this.db.run(q, {
        a: accountId,
        id: o.id,
        type: o.type,
        side: o.side,
        size: o.size,
        limit: o.limitTicks,
        stop: o.stopTicks,
        status: o.status,
        fv: o.fillVolume,
        fp: o.filledPriceTicks,
        created: o.createdS,
        updated: o.updatedS,
        sl: o.slTicks,
        tp: o.tpTicks,
        parent: o.parentId,
        oco: o.ocoId,
        trig: o.triggered ? 1 : 0,
        trail: o.trailTicks,
        extreme: o.trailExtremeTicks,
        sl_type: o.slType,
        tag: o.customTag,
        link: o.linkId,
        symbol,
      });
    }
  }

  async insertFills(accountId: number, fills: readonly Fill[], symbol: string | null = null): Promise<void> {
    const q = `INSERT INTO fills (account_id, id, order_id, side, size, price_ticks, time_s, fee_cents, realized_cents, closed_qty, symbol)
       VALUES ($a, $id, $order, $side, $size, $price, $time, $fee, $realized, $closed, $symbol)`;
    for (const f of fills) {
      await this.db.run(q, {
        a: accountId, id: f.id, order: f.orderId, side: f.side, size: f.size, price: f.priceTicks, time: f.timeS, fee: f.feeCents,
        realized: f.realizedPnlCents, closed: f.closedQty ?? null, symbol,
      });
    }
  }


  /** One order of a replay account, in any state; null when the account has no such order. */
  async order(accountId: number, id: number): Promise<StoredOrder | null> {
    const r = (await this.db.get('SELECT * FROM orders WHERE account_id = $a AND id = $id', { a: accountId, id })) as RawOrder | null;
    return r ? toOrder(r) : null;
  }

  /** Whether one of the account's orders, in any state, carries `customTag` (tags are unique per account). */
  async hasOrderTagged(accountId: number, customTag: string): Promise<boolean> {
    return (await this.db.get('SELECT 1 AS one FROM orders WHERE account_id = $a AND custom_tag = $tag LIMIT 1', { a: accountId, tag: customTag })) !== null;
  }

  /** Orders newest first, with inclusive bounds on submission time. */
  async searchOrders(accountId: number, fromS: number, toS: number, max: number): Promise<StoredOrder[]> {
    return (
      (await this.db.all('SELECT * FROM orders WHERE account_id = $a AND created_s BETWEEN $from AND $to ORDER BY created_s DESC, id DESC LIMIT $max', { a: accountId, from: fromS, to: toS, max })) as RawOrder[]
    ).map(toOrder);
  }

  /**
   * The account's stop orders (stop, trailing stop, stop-limit) in any state, and the entries their
   * bracket legs came from, oldest first, at most `max` of each: what the journal reads a trade's
   * initial stop from (src/engine/trade-review.ts).
   */
  async stopOrdersOf(accountId: number, max: number): Promise<{ stops: StoredOrder[]; parents: Map<number, StoredOrder> }> {
    const stops = ((await this.db.all('SELECT * FROM orders WHERE account_id = $a AND type IN (3, 4, 5) ORDER BY id LIMIT $max', { a: accountId, max })) as RawOrder[]).map(toOrder);
    const parents = (
      (await this.db.all(
        'SELECT * FROM orders WHERE account_id = $a AND id IN (SELECT parent_id FROM orders WHERE account_id = $a AND type IN (3, 4, 5) AND parent_id IS NOT NULL) ORDER BY id LIMIT $max',
        { a: accountId, max },
      )) as RawOrder[]
    ).map(toOrder);
    return { stops, parents: new Map(parents.map((o) => [o.id, o])) };
  }

  /**
   * The fills of an account's working orders (any type but market: filled on a walked bar, matching.ts)
   * as `timeS:side` keys (`timeS:side:symbol` in a session over several instruments), at most `max`:
   * the journal tells a walked exit (part of its bar was in the trade) from a market one (filled
   * before its bar) by them.
   */
  async walkedFillKeysOf(accountId: number, max: number): Promise<Set<string>> {
    const rows = await this.db.all<{ time_s: number; side: number; symbol: string | null }>(
      `SELECT f.time_s, f.side, f.symbol FROM fills f JOIN orders o ON o.account_id = f.account_id AND o.id = f.order_id
        WHERE f.account_id = $a AND o.type != 2 ORDER BY f.id LIMIT $max`,
      { a: accountId, max },
    );
    return new Set(rows.map((r) => `${Number(r.time_s)}:${Number(r.side)}${r.symbol === null || r.symbol === undefined ? '' : `:${r.symbol}`}`));
  }

  /** Fills newest first, with inclusive bounds on fill time. */
  /**
   * The lowest and highest fill ids of an account (0 and 0 when it has none), each read from the
   * primary key. Fill ids follow time (the engine numbers them as it plays forward, from 1), so
   * `fillsAfter` pages them oldest first by id.
   */
  async fillIdRange(accountId: number): Promise<{ lo: number; hi: number }> {
    const r = await this.db.get<{ lo: number | null; hi: number | null }>(
      `SELECT (SELECT MIN(id) FROM fills WHERE account_id = $a) AS lo, (SELECT MAX(id) FROM fills WHERE account_id = $a) AS hi`,
      { a: accountId },
    );
    return { lo: Number(r?.lo ?? 0), hi: Number(r?.hi ?? 0) };
  }

  /** At most `max` fills of an account with ids above `afterId`, oldest first. */
  async fillsAfter(accountId: number, afterId: number, max: number): Promise<StoredFill[]> {
    return ((await this.db.all('SELECT * FROM fills WHERE account_id = $a AND id > $after ORDER BY id LIMIT $max', { a: accountId, after: afterId, max })) as RawFill[]).map(toFill);
  }

  async searchFills(accountId: number, fromS: number, toS: number, max: number): Promise<StoredFill[]> {
    return (
      (await this.db.all('SELECT * FROM fills WHERE account_id = $a AND time_s BETWEEN $from AND $to ORDER BY time_s DESC, id DESC LIMIT $max', { a: accountId, from: fromS, to: toS, max })) as RawFill[]
    ).map(toFill);
  }

}
