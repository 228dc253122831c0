// A live replay session on the desk: the chart (history, then the bars as they are played), the
// replay controls, the order ticket, the account snapshot, the tables and the challenge panel.
//
// The server plays (Replay/play, Replay/pause); the page draws what the hubs tell it (feed.ts):
// the market hub's ReplayDeskBars carry every played bar, whoever advanced the session (this page,
// another tab, a bot), and the user hub's events keep the tables and the snapshot current (live.ts).
// This file is layout: the session's shared state is core.ts, the tables book.ts, the hubs, the
// chart and the load session-feed.ts (with status.ts and chart-bars.ts), the replay controls
// controls.ts, the order commands trading.ts, the keyboard keys.ts, and the chart's own models
// (width, indicators, drawings, trading from the chart, legend) desk-chart.ts. The chart is the first
// pane of the desk's layout; the trader may put others beside it: another instrument of a session over
// several, or the same one at another width (panes.tsx, multi-desk.ts).

import { ErrorLine, money, signClass, Stat } from '../../ui.tsx';
import { type Tables, useTables } from './book.ts';
import { ChallengePanel } from './challenge.tsx';
import { OrderOverlay } from './chart-orders.tsx';
import { ChartToolbar, Legend } from './chart-tools.tsx';
import { type DeskChart, useDeskChart } from './desk-chart.ts';
import { useReplayControls } from './controls.ts';
import { type EndResult, type PriceFormat, type SessionCore, useSessionCore } from './core.ts';
import { useDeskKeys } from './keys.ts';
import type { Contract, SessionMeta, Snapshot } from './model.ts';
import { ReplayBar } from './replay-bar.tsx';
import { type SessionFeed, useSessionFeed } from './session-feed.ts';
import { useResults } from './results-model.ts';
import { ResultsList } from './results-view.tsx';
import { FillsTable, OrdersTable, orderPrice, type PerContract, PositionsTable } from './tables.tsx';
import type { Links } from './oco-links.ts';
import { Ticket } from './ticket.tsx';
import { type TicketModel, useTicketModel } from './ticket-model.ts';
import type { TrailMemory } from './trailing.ts';
import { useServerTrails } from './trailing-sync.ts';
import { type Trading, useTrading } from './trading.ts';
import { MoveConfirm } from './move-confirm.tsx';
import { Panes } from './panes.tsx';
import { type MultiDesk, useMultiDesk } from './multi-desk.ts';
import { paneCore } from './pane.tsx';
import { RiskRewardOverlay } from './risk-reward.tsx';

export type { EndResult };

interface Props {
  meta: SessionMeta;
  onClose: (notice?: string) => void;
}

/** The layout's panes (panes.tsx), the session's chart first. */
function Charts(p: { desk: MultiDesk; core: SessionCore; session: SessionFeed; tables: Tables; trading: Trading; ticket: TicketModel; chart: DeskChart }) {
  return (
    <Panes desk={p.desk} core={p.core} session={p.session} tables={p.tables} trading={p.trading} ticket={p.ticket} drawings={p.chart.drawings}>
      <ChartArea core={p.core} session={p.session} tables={p.tables} trading={p.trading} chart={p.chart} />
    </Panes>
  );
}

export function SessionView({ meta: initialMeta, onClose }: Props) {
  const core = useSessionCore(initialMeta);
  const tables = useTables(core);
  const session = useSessionFeed(core, tables);
  const controls = useReplayControls(core, tables, session, onClose);
  const ticket = useTicketModel(initialMeta.accountId);
  const trading = useTrading(core, tables, session, ticket);
  useServerTrails(core, tables.book);
  const { meta, snap, over, fmt, playing } = core;
  const { lastPrice, loading, progress } = session;
  const blocked = !!over || loading;
  // The ticket (and B/S) trades the pane picked: the session's own instrument unless it has several.
  const desk = useMultiDesk(core, lastPrice, session.lastTime);
  const chart = useDeskChart(core, session, tables, trading, ticket, { width: desk.panes[0].timeframe, setWidth: (tf) => desk.setPane(0, { timeframe: tf }) });
  const ticketCore = paneCore(core, desk.active);
  const ticketTrading = useTrading(ticketCore, tables, session, ticket);
  useDeskKeys(blocked, playing, { step: controls.step, togglePlay: controls.togglePlay, market: ticketTrading.market, cancelAll: chart.trading.cancelAll, flattenAll: chart.trading.flattenAll, reverse: ticketTrading.reverseTicket });

  return (
    <div class="desk" data-testid="desk">
      <ReplayBar
        meta={meta}
        clock={session.clock}
        progress={progress}
        link={session.link}
        controls={controls}
        playing={playing}
        blocked={blocked}
        ended={!!over}
        error={core.controlError}
        notes={[session.barsNote, core.notice]}
      />
      <div class={`desk-main ${meta.challengeName ? 'with-challenge' : 'plain'}`}>
        <div class="desk-left">
          <Charts desk={desk} core={core} session={session} tables={tables} trading={trading} ticket={ticket} chart={chart} />
          <DeskTables tables={tables} trading={trading} lastPrice={lastPrice} contract={meta.contract} trailing={meta.trailing.orders} links={ticket.oco.links} fmt={fmt} multi={desk.perContract} />
        </div>
        <aside class="desk-side">
          <AccountStats snap={snap} startingBalance={meta.startingBalance} lastPrice={desk.many ? undefined : lastPrice} fmt={fmt} />
          {over ? (
            <FinalResult result={over} accountId={meta.accountId} fills={tables.book.fills.length} onNew={() => onClose()} />
          ) : (
            <Ticket
              ticket={ticket}
              tickSize={desk.active.tickSize}
              decimals={ticketCore.decimals}
              lastPrice={desk.lastPriceOf(desk.active.id)}
              disabled={loading}
              busy={ticketTrading.placing}
              error={ticketTrading.ticketError}
              onPlace={ticketTrading.placeTicket}
              contractName={desk.perContract?.name(desk.active.id)}
              risk={ticketTrading.riskContext()}
              orders={tables.book.orders.filter((o) => o.contractId === desk.active.id)}
              orderPrice={(o) => orderPrice(o, ticketCore.fmt)}
            />
          )}
          <ChallengePanel
            name={meta.challengeName} practice={meta.branch?.practiceOf != null}
            propFirm={session.propFirm}
            detail={core.challenge.detail}
            equity={snap?.equity ?? null}
            violations={session.violations}
            error={core.challenge.error}
          />
        </aside>
      </div>
    </div>
  );
}

/** The chart with its toolbar, legend and order chips, and the notes over it (loading, flash, end of data, a refusal). */
function ChartArea({ core, session, tables, trading, chart }: { core: SessionCore; session: SessionFeed; tables: Tables; trading: Trading; chart: DeskChart }) {
  const { over, fmt } = core;
  const { loading } = session;
  // The chart shows its contract's orders; Cancel all and Flatten are the account's (every contract).
  const { orders } = chart.book;
  const { positions } = tables.book;
  return (
    <div class={`chart-wrap card ${chart.drawings.mode !== 'none' || chart.rr.choosing ? 'drawing' : ''}`}>
      <ChartToolbar view={chart.view} indicators={chart.indicators} drawings={chart.drawings} trading={chart.trading} orderCount={tables.book.orders.length} positionCount={positions.length} blocked={!!over || loading} rr={chart.rr} />
      <div class="chart" ref={session.chartEl} data-testid="chart" />
      <Legend chart={session.chart.current} hover={chart.hover} indicators={chart.indicators} fmt={fmt} />
      <OrderOverlay chart={session.chart} orders={orders} lines={chart.lines} onCancel={trading.cancel} onMove={chart.trading.move} trailing={core.meta.trailing.orders} canceling={trading.canceling} fmt={fmt} tickSize={core.meta.contract.tickSize} />
      {loading && <div class="chart-loading">Loading bars…</div>}
      {core.flash && (
        <div class="flash" data-testid="flash">
          {core.flash}
        </div>
      )}
      {chart.trading.error && (
        <div class="chart-note error-note" data-testid="chart-error">
          {chart.trading.error}
        </div>
      )}
      {chart.trading.pendingMove && <MoveConfirm trading={chart.trading} fmt={fmt} />}
      <RiskRewardOverlay chart={session.chart} rr={chart.rr} fmt={fmt} lastPrice={session.lastPrice} />
      {core.atEnd && !over && <div class="chart-note">End of data: every bar of the session has been played.</div>}
    </div>
  );
}

/** The account's figures, once for every contract; `lastPrice` undefined (several instruments: each pane shows its own) leaves Last out. */
function AccountStats({ snap, startingBalance, lastPrice, fmt }: { snap: Snapshot | null; startingBalance: number | null; lastPrice: number | null | undefined; fmt: PriceFormat }) {
  const realized = snap && startingBalance !== null ? snap.balance - startingBalance : null;
  return (
    <section class="card">
      <div class="stats account" data-testid="account">
        <Stat label="Balance" value={money(snap?.balance)} testid="balance" />
        <Stat label="Equity" value={money(snap?.equity)} testid="equity" />
        <Stat label="Open P&L" value={money(snap?.unrealizedPnl)} cls={signClass(snap?.unrealizedPnl)} testid="open-pnl" />
        <Stat label="Realized" value={money(realized)} cls={signClass(realized)} testid="realized" />
        <Stat label="Margin used" value={money(snap?.marginUsed)} testid="margin" />
        {lastPrice !== undefined && <Stat label="Last" value={fmt.price(lastPrice)} testid="last-price" />}
      </div>
    </section>
  );
}

function DeskTables({ tables, trading, lastPrice, contract, trailing, links, fmt, multi }: {
  tables: Tables;
  trading: Trading;
  lastPrice: number | null;
  contract: Contract;
  trailing: TrailMemory['orders'];
  links: Links;
  fmt: PriceFormat;
  multi: PerContract | undefined;
}) {
  const { positions, orders, fills } = tables.book;
  return (
    <div class="desk-below">
      <ErrorLine error={tables.tableError} />
      <div class={`desk-tables ${multi ? 'multi' : ''}`}>
        <PositionsTable positions={positions} lastPrice={lastPrice} tickSize={contract.tickSize} tickValue={contract.tickValue} fmt={fmt} onClose={trading.flatten} onReverse={trading.reverse} closing={trading.closing} multi={multi} />
        <OrdersTable orders={orders} trailing={trailing} links={links} fmt={fmt} onCancel={trading.cancel} canceling={trading.canceling} multi={multi} />
        <FillsTable fills={fills} fmt={fmt} multi={multi} />
      </div>
      <p class="muted small keys">
        <kbd>→</kbd>/<kbd>N</kbd> step · <kbd>Shift</kbd>+<kbd>→</kbd> ten bars · <kbd>←</kbd> step back (a branch) · <kbd>Space</kbd> play/pause · <kbd>B</kbd> buy · <kbd>S</kbd> sell at market (the ticket's size and brackets) · <kbd>R</kbd> reverse · <kbd>C</kbd> cancel all · <kbd>F</kbd> flatten
      </p>
    </div>
  );
}

function FinalResult({ result, accountId, fills, onNew }: { result: EndResult; accountId: number; fills: number; onNew: () => void }) {
  const a = result.account;
  const net = a && result.startingBalance !== null ? a.balance - result.startingBalance : null;
  const title = result.reason === 'ended' ? 'Session ended' : result.reason === 'passed' ? 'Challenge passed' : 'Challenge violated — session finalized';
  const stats = useResults(accountId, true);
  return (
    <section class={`card final final-${result.reason}`} data-testid="final-result">
      <h2>{title}</h2>
      {result.message && <p>{result.message}</p>}
      <dl class="rules">
        <dt>Final balance</dt>
        <dd class="mono" data-testid="final-balance">
          {money(a?.balance)}
        </dd>
        <dt>Net P&amp;L</dt>
        <dd class={`mono ${signClass(net)}`} data-testid="final-pnl">
          {money(net)}
        </dd>
        <dt>Fills</dt>
        <dd class="mono" data-testid="final-fills">
          {fills}
        </dd>
      </dl>
      <ResultsList results={stats.results} error={stats.error} />
      <button type="button" class="primary" onClick={onNew}>
        New session
      </button>
    </section>
  );
}
