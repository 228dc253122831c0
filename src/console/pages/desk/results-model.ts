// A session's statistics as the server states them (GET /api/auth/replay-results/:accountId: the
// product's one definition of round-trip trades and their figures, src/engine/results.ts), read
// when a session ends and for any ended session afterwards.

import { useEffect, useState } from 'preact/hooks';
import { auth } from '../../api.ts';
import type { WireRunStats } from '../../run-stats.ts';

/** The earlier family's Replay/end `results`, in USD. */
export type SessionResults = WireRunStats;

export async function loadResults(accountId: number): Promise<SessionResults> {
  return (await auth<{ results: SessionResults }>('GET', `replay-results/${accountId}`)).results;
}

export interface ResultsModel {
  results: SessionResults | null;
  error: string | null;
}

/** The statistics of `accountId` once `ready` (the session has ended); read once. */
export function useResults(accountId: number | null, ready: boolean): ResultsModel {
  const [results, setResults] = useState<SessionResults | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setResults(null);
    setError(null);
    if (!ready || accountId === null) return;
    let gone = false;
    loadResults(accountId).then(
      (r) => !gone && setResults(r),
      (e) => !gone && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      gone = true;
    };
  }, [accountId, ready]);
  return { results, error };
}

export interface OpenResults extends ResultsModel {
  /** The account whose statistics are shown (null: none). */
  openId: number | null;
  toggle(accountId: number): void;
}

/** One ended session's statistics at a time, opened from a list. */
export function useOpenResults(): OpenResults {
  const [openId, setOpenId] = useState<number | null>(null);
  const model = useResults(openId, openId !== null);
  // A result read for another account is not this one's.
  const shown = openId === null ? { results: null, error: null } : model;
  return { ...shown, openId, toggle: (id) => setOpenId((cur) => (cur === id ? null : id)) };
}
