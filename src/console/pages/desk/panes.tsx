// A session over several instruments, side by side (layout-model.ts): the session's own chart (its
// first instrument, passed in whole with its toolbar, drawings and chart trading) in the first pane,
// each other instrument in its own pane (pane.tsx), all on the session's clock.

import type { ComponentChildren } from 'preact';
import '../desk-panes.css';
import type { Tables } from './book.ts';
import type { SessionCore } from './core.ts';
import type { MultiDesk } from './multi-desk.ts';
import { InstrumentPane, PaneGrid, PaneHead } from './pane.tsx';
import type { SessionFeed } from './session-feed.ts';
import type { TicketModel } from './ticket-model.ts';
import type { Trading } from './trading.ts';

interface Props {
  desk: MultiDesk;
  core: SessionCore;
  session: SessionFeed;
  tables: Tables;
  /** The session's order commands and ticket (the panes' chips cancel and move through them). */
  trading: Trading;
  ticket: TicketModel;
  /** The session's own chart. */
  children: ComponentChildren;
}

export function Panes({ desk, core, session, tables, trading, ticket, children }: Props) {
  const [first, ...others] = desk.panes;
  return (
    <PaneGrid count={desk.panes.length}>
      <div class={`pane primary ${desk.active.id === first.contract.id ? 'active' : ''}`} data-testid="pane" data-contract={first.contract.id} onPointerDown={() => desk.pick(first.contract.id)}>
        <PaneHead contract={first.contract} at={session.lastTime} lastPrice={session.lastPrice} active={desk.active.id === first.contract.id} onPick={() => desk.pick(first.contract.id)} />
        {children}
      </div>
      {others.map((pane) => (
        <InstrumentPane
          key={pane.key}
          pane={pane}
          core={core}
          session={session}
          tables={tables}
          trading={trading}
          ticket={ticket}
          active={desk.active.id === pane.contract.id}
          onPick={() => desk.pick(pane.contract.id)}
          onMark={desk.mark}
        />
      ))}
    </PaneGrid>
  );
}
