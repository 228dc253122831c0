// Which working stops trail, as the server knows it (trailing.ts): read from GET
// /api/auth/replay-sessions/:id/trailing-stops whenever the book's working stops change (one listed,
// one gone: a trailing stop placed here, in another browser or by a bot, a trailing stop-loss leg
// spawned by a fill), and kept in the session's description, which the chips, lines and tables read.
// The answer to the latest read wins; a failed read keeps what was known (the next change reads again).

import { useEffect, useRef } from 'preact/hooks';
import { auth } from '../../api.ts';
import type { SessionCore } from './core.ts';
import type { Book } from './live.ts';
import { fromServer, type ServerTrail, STOP } from './trailing.ts';

export function useServerTrails(core: SessionCore, book: Book): void {
  const seq = useRef(0);
  // Working stops by id: a new one, or one gone, asks the server again (a price move does not).
  const stops = book.orders
    .filter((o) => o.type === STOP)
    .map((o) => o.id)
    .sort((a, b) => a - b)
    .join(' ');
  useEffect(() => {
    const mine = ++seq.current;
    auth<{ trailingStops: ServerTrail[] }>('GET', `replay-sessions/${core.accountId}/trailing-stops`).then(
      (r) => {
        if (mine !== seq.current) return;
        const m = core.metaRef.current.trailing;
        const next = fromServer(m, r.trailingStops);
        if (next !== m) core.updateMeta({ trailing: next });
      },
      () => undefined,
    );
  }, [stops]);
}
