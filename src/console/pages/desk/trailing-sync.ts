// Which working stops trail, as the server knows it (trailing.ts): read from GET
// /api/auth/replay-sessions/:id/trailing-stops when the book lists a stop the server has not yet
// been asked about (a trailing stop placed here, in another browser or by a bot; a stop-loss leg
// spawned by a fill), and kept in the session's description, which the chips, lines and tables read.
// A stop that fills or is canceled asks nothing (its id is simply no longer drawn), so playback that
// only fills orders reads nothing more. The answer to the latest read wins; a failed read keeps what
// was known, and its stops are asked about again at the next change.

import { useEffect, useRef } from 'preact/hooks';
import { auth } from '../../api.ts';
import type { SessionCore } from './core.ts';
import type { Book } from './live.ts';
import { fromServer, type ServerTrail, STOP } from './trailing.ts';

export function useServerTrails(core: SessionCore, book: Book): void {
  const seq = useRef(0);
  /** Stops the server has answered about (a stop never becomes a trailing stop, nor the reverse). */
  const asked = useRef(new Set<number>());
  const unasked = book.orders
    .filter((o) => o.type === STOP && !asked.current.has(o.id))
    .map((o) => o.id)
    .sort((a, b) => a - b)
    .join(' ');
  useEffect(() => {
    if (unasked === '') return;
    const mine = ++seq.current;
    const ids = unasked.split(' ').map(Number);
    auth<{ trailingStops: ServerTrail[] }>('GET', `replay-sessions/${core.accountId}/trailing-stops`).then(
      (r) => {
        if (mine !== seq.current) return;
        for (const id of ids) asked.current.add(id);
        const m = core.metaRef.current.trailing;
        const next = fromServer(m, r.trailingStops);
        if (next !== m) core.updateMeta({ trailing: next });
      },
      () => undefined,
    );
  }, [unasked]);
}
