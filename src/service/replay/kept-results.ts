// A replay session's statistics, kept once it has ended. Folding a session's fills (up to
// `replayResultFillsMax` of them) is the costly part of every read that shows statistics, and an
// ended session's fills never change: so they are folded once, when the session ends (ReplayService
// `finalize`) or, for a session ended before statistics were kept, at its first read, and kept with
// the session (replay_sessions.results_json); reads take them from there. A live session's are
// folded at each read, as its fills still grow.

import { limits } from '../../config.ts';
import type { RunStats } from '../../engine/results.ts';
import type { AccountStore } from '../../store/accounts.ts';
import { storeFailureOf } from '../../store/db.ts';
import type { ReplayStore, SessionRow } from '../../store/replay.ts';
import { sessionResults } from './results.ts';

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
  const fills = (await store.searchFills(accountId, 0, Number.MAX_SAFE_INTEGER, limits.replayResultFillsMax)).reverse();
  const balanceCents = (await accounts.byId(accountId))?.balanceCents ?? limits.startingBalanceCents;
  return sessionResults(fills, balanceCents);
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
