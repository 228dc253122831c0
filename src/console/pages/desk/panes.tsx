// The desk's charts side by side (layout-model.ts): the session's own chart (its first instrument,
// passed in whole with its toolbar, drawings and chart trading) in the first pane, whose head holds
// the layout's choice (one to four panes); each other pane (pane.tsx) an instrument of the session
// at a width, all on the session's clock. A pane is kept by its place, so a change of its width
// redraws it alone, and a change of its instrument reads that pane's bars alone.

import type { ComponentChildren } from 'preact';
import '../desk-panes.css';
import type { Tables } from './book.ts';
import type { SessionCore } from './core.ts';
import type { DrawingsModel } from './drawings-model.ts';
import { instrumentsOf } from './layout-model.ts';
import type { MultiDesk } from './multi-desk.ts';
import { InstrumentPane, LayoutPicker, PaneGrid, PaneHead } from './pane.tsx';
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
  /** The session's drawings, shown on every pane of its first instrument. */
  drawings: DrawingsModel;
  /** The session's own chart. */
  children: ComponentChildren;
}

export function Panes({ desk, core, session, tables, trading, ticket, drawings, children }: Props) {
  const [first, ...others] = desk.panes;
  const instruments = instrumentsOf(core.meta);
  return (
    <PaneGrid count={desk.panes.length}>
      <div class={`pane primary ${desk.active.id === first.contract.id ? 'active' : ''}`} data-testid="pane" data-contract={first.contract.id} data-timeframe={first.timeframe} onPointerDown={() => desk.pick(first.contract.id)}>
        <PaneHead contract={first.contract} at={session.lastTime} lastPrice={session.lastPrice} through={session.clock} active={desk.active.id === first.contract.id} onPick={() => desk.pick(first.contract.id)} tradable={desk.many}>
          <LayoutPicker count={desk.panes.length} onCount={desk.setCount} />
        </PaneHead>
        {children}
      </div>
      {others.map((pane, i) => (
        <InstrumentPane
          key={`${i + 1}:${pane.contract.id}`}
          pane={pane}
          core={core}
          session={session}
          tables={tables}
          trading={trading}
          ticket={ticket}
          active={desk.active.id === pane.contract.id}
          onPick={() => desk.pick(pane.contract.id)}
          onMark={desk.mark}
          instruments={instruments}
          drawings={drawings}
          onWidth={(tf) => desk.setPane(i + 1, { timeframe: tf })}
          onInstrument={(id) => desk.setPane(i + 1, { contractId: id })}
        />
      ))}
    </PaneGrid>
  );
}
