// The names accounts are given when they are made. Events describe an account from its live session
// with the same functions, without reading the store in the middle of an ordered publish.

import type { PlanSize } from '../challenge/plans.ts';

export function replayAccountName(symbol: string, timeframe: string, accountId: number): string {
  return `REPLAY-${symbol}-${timeframe}-${accountId}`;
}

export function challengeAccountName(size: PlanSize, accountId: number): string {
  return `CHALLENGE-${size}-${accountId}`;
}
