// A replay session's statistics, kept once it has ended. Folding a session's fills (up to
// `replayResultFillsMax` of them) is the costly part of every read that shows statistics, and an
// ended session's fills never change: so they are folded once, when the session ends (commands.ts
// `finalize`) or, for a session ended before statistics were kept, at its first read, and kept with
// the session (replay_sessions.results_json); reads take them from there. A live session's are
// folded at each read, as its fills still grow.

import { limits } from '../../config.ts';
import type { RunStats } from '../../engine/results.ts';
import type { AccountStore } from '../../store/accounts.ts';
import { storeFailureOf } from '../../store/db.ts';
import type { ReplayStore, SessionRow } from '../../store/replay.ts';
import { type SessionFold, SessionFolder } from './results.ts';

/** The statistics of a session: kept ones when it has them, else folded from its fills (and kept if it has ended). */
export async function sessionStats(store: ReplayStore, accounts: AccountStore, row: SessionRow): Promise<RunStats> {
  const kept = keptStats(row);
  if (kept) return kept;
  const stats = await foldStats(store, accounts, row.accountId);
  if (row.status === 'ended') await keepStats(store, row, stats);
  return stats;
}

/** Keeps an ended session's statistics folded elsewhere (the journal's detail folds the fills anyway). */
export async function keepStats(store: ReplayStore, row: SessionRow, stats: RunStats): Promise<void> {
  if (row.status !== 'ended' || keptStats(row)) return;
  // A read must not fail for want of a write (a full disk): the next read folds and tries again.
  await store.keepResults(row.accountId, JSON.stringify(stats)).catch((e) => {
    if (storeFailureOf(e) === null) throw e;
  });
}

/** The statistics folded from an account's stored fills and its balance. */
export async function foldStats(store: ReplayStore, accounts: AccountStore, accountId: number): Promise<RunStats> {
  const balanceCents = (await accounts.byId(accountId))?.balanceCents ?? limits.startingBalanceCents;
  return (await foldFills(store, accountId, balanceCents, 0, 0, false)).stats;
}

/**
 * An account's fills folded oldest first (results.ts), read a page of `replayFillsPageMax` at a
 * time with a timer turn between pages: a session of 200,000 fills read and folded whole held the
 * event loop for over half a second. A session with more than `replayResultFillsMax` fills is folded
 * over its newest ones (the last ids). Keeps the first `tradesKept` trades, and the balance curve
 * when asked.
 */
export async function foldFills(store: ReplayStore, accountId: number, finalBalanceCents: number, startS: number, tradesKept: number, keepEquity: boolean): Promise<SessionFold & { tradesTotal: number }> {
  const { lo, hi } = await store.fillIdRange(accountId);
  const folder = new SessionFolder(startS, tradesKept, keepEquity);
  let after = Math.max(lo, hi - limits.replayResultFillsMax + 1) - 1;
  while (lo > 0 && after < hi) {
    const page = await store.fillsAfter(accountId, after, limits.replayFillsPageMax);
    if (page.length === 0) break;
    for (const f of page) folder.add(f);
    after = page[page.length - 1].id;
    if (after < hi) await new Promise((resolve) => setImmediate(resolve));
  }
  return { ...folder.result(finalBalanceCents), tradesTotal: folder.tradesTotal };
}

function keptStats(row: SessionRow): RunStats | null {
  if (row.status !== 'ended' || !row.resultsJson) return null;
  try {
    const v = JSON.parse(row.resultsJson) as RunStats;
    return typeof v === 'object' && v !== null && typeof v.totalTrades === 'number' ? v : null;
  } catch {
    return null;
  }
}
