// Reading a playground execution: its view, its trades page by page, and its progress as it goes. A
// run executing on this node is read from memory (run-worker.ts); any other (queued, on another
// node, ended) from its row and its packed trades (store/playground-runs.ts).

import { limits } from '../../config.ts';
import { findInstrument, type Instrument } from '../../domain/instrument.ts';
import type { TradeRecord } from '../../engine/results.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import type { PlaygroundRunStore } from '../../store/playground-runs.ts';
import type { ExecutionEvent } from './execution.ts';
import { type ExecutionView, instrumentsOf, liveView, storedView, type StoredResult } from './run-views.ts';
import type { Live, RunWorker } from './run-worker.ts';

export type ExecutionNotFound = { kind: 'execution_not_found' };
export type TradesPageError = ExecutionNotFound | { kind: 'invalid_offset' } | { kind: 'invalid_limit'; max: number };

/** A page of an execution's trades (GET executions/:id/trades). */
export interface TradesPage {
  inst: Instrument;
  /** A run over several instruments: all of them, the main one first (a trade's `leg` indexes it); null for one. */
  insts: Instrument[] | null;
  offset: number;
  limit: number;
  /** Trades that can be paged: every trade of the run (up to the stored bound). */
  stored: number;
  /** Every trade of the run, stored or not. */
  tradesTotal: number;
  trades: TradeRecord[];
}

export class RunReads {
  constructor(
    private readonly records: PlaygroundRunStore,
    private readonly worker: RunWorker,
  ) {}

  async get(userId: number, id: string): Promise<Result<ExecutionView, ExecutionNotFound>> {
    const l = this.worker.get(id);
    if (l && l.exec.userId === userId) return ok(liveView(l));
    const row = await this.records.get(userId, id);
    if (row === null) return err({ kind: 'execution_not_found' });
    const view = storedView(row);
    const r = row.result as StoredResult | null;
    // A record keeps its trades packed only; one written before kept the first ones in `trades`.
    if (r !== null && r.trades === undefined && r.tradesTotal > 0) {
      view.trades = (await this.records.tradesPage(userId, id, 0, limits.playgroundTradesKeptMax))?.trades ?? [];
    }
    return ok(view);
  }

  /**
   * Trades [offset, offset + limit) of an execution, oldest first: a running one's from its ledger,
   * an ended one's from the packed store (a run recorded before trades were packed pages over the
   * first 5,000 its record kept). offset defaults to 0, limit to the page bound.
   */
  async tradesPage(userId: number, id: string, offset: number | undefined, limit: number | undefined): Promise<Result<TradesPage, TradesPageError>> {
    const o = offset ?? 0;
    const n = limit ?? limits.playgroundTradesPageMax;
    if (!Number.isSafeInteger(o) || o < 0) return err({ kind: 'invalid_offset' });
    if (!Number.isSafeInteger(n) || n < 1 || n > limits.playgroundTradesPageMax) return err({ kind: 'invalid_limit', max: limits.playgroundTradesPageMax });
    const r = await this.readTrades(userId, id, o, n);
    return r === null ? err({ kind: 'execution_not_found' }) : ok({ ...r, limit: n });
  }

  /** Every stored trade of an execution (the CSV export), oldest first. */
  async allTrades(userId: number, id: string): Promise<Result<Omit<TradesPage, 'limit'>, ExecutionNotFound>> {
    const r = await this.readTrades(userId, id, 0, limits.playgroundTradesStoredMax);
    return r === null ? err({ kind: 'execution_not_found' }) : ok(r);
  }

  private async readTrades(userId: number, id: string, offset: number, limit: number): Promise<Omit<TradesPage, 'limit'> | null> {
    const l = this.worker.get(id);
    if (l && l.exec.userId === userId) {
      const all = l.exec.ledger.closedTrades;
      const stored = Math.min(all.length, limits.playgroundTradesStoredMax);
      const from = Math.min(offset, stored);
      const insts = l.exec.instruments === null ? null : [...l.exec.instruments];
      return { inst: findInstrument(l.row.instrument) as Instrument, insts, offset, stored, tradesTotal: all.length, trades: all.slice(from, Math.min(stored, from + limit)) };
    }
    const row = await this.records.get(userId, id);
    if (row === null) return null;
    const inst = findInstrument(row.instrument) as Instrument;
    const result = row.result as StoredResult | null;
    const insts = instrumentsOf(result?.instrumentSymbols);
    const tradesTotal = result?.tradesTotal ?? 0;
    const packed = await this.records.tradesPage(userId, id, offset, limit);
    if (packed !== null) return { inst, insts, offset, stored: packed.stored, tradesTotal, trades: packed.trades };
    const kept = result?.trades ?? [];
    const from = Math.min(offset, kept.length);
    return { inst, insts, offset, stored: kept.length, tradesTotal, trades: kept.slice(from, Math.min(kept.length, from + limit)) };
  }

  /**
   * Calls `fn` on the execution's progress and end. A run executing here is followed as it goes; any
   * other (queued, on another node, ended, absent) by polling its row: `progress` when its bars
   * done move, `done` once it is no longer running (at the first poll for an ended or absent one).
   */
  subscribe(userId: number, id: string, fn: (e: ExecutionEvent) => void): () => void {
    const l = this.worker.get(id);
    if (l && l.exec.userId === userId) return this.followLocal(l, userId, fn);
    return this.followRow(userId, id, fn);
  }

  /**
   * A run executing here. Its `done` comes once its end is committed, so a client told it ended finds
   * it ended everywhere (a new run of the user's is admitted at once). Handed back to the queue at
   * shutdown, it is followed from its row instead (its end here is not its end).
   */
  private followLocal(l: Live, userId: number, fn: (e: ExecutionEvent) => void): () => void {
    let row: (() => void) | null = null;
    let live = true;
    const off = l.exec.subscribe((e) => {
      if (e.type !== 'done') return fn(e);
      if (l.handedBack) row = this.followRow(userId, l.exec.id, fn);
      else void l.recorded.then(() => live && fn(e));
    });
    return () => {
      live = false;
      off();
      row?.();
    };
  }

  private followRow(userId: number, id: string, fn: (e: ExecutionEvent) => void): () => void {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let barsDone = 0;
    const poll = async () => {
      const row = await this.records.get(userId, id).catch(() => undefined);
      if (stopped) return;
      if (row === null || (row !== undefined && row.status !== 'running')) {
        stopped = true;
        return fn({ type: 'done' });
      }
      if (row !== undefined && row.barsDone !== barsDone) {
        barsDone = row.barsDone;
        fn({ type: 'progress' });
      }
      timer = setTimeout(() => void poll(), limits.playgroundRemotePollMs);
    };
    void poll();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }
}
