// One event's hub arguments, built once per target, contract id and view (profile, symbol-id style)
// and shared by every connection the event goes to, so the transport serializes them once
// (signalr/messages.ts `invocationRecord`: the same array sent to several connections is one text).
// An event goes to a handful of such combinations at most, so they are found by a scan, not a joined key.

import type { ReplayEvent } from '../../service/events/types.ts';

interface Built {
  target: string;
  contractId: string;
  view: string;
  args: unknown[];
}

const shared = new WeakMap<ReplayEvent, Built[]>();

export function sharedArgs(e: ReplayEvent, target: string, contractId: string, view: string, build: () => unknown[]): unknown[] {
  let built = shared.get(e);
  if (!built) shared.set(e, (built = []));
  for (const b of built) if (b.target === target && b.contractId === contractId && b.view === view) return b.args;
  const args = build();
  built.push({ target, contractId, view, args });
  return args;
}
