// The session as the desk hears it: the hubs' events (feed.ts) drawn on the chart and folded into
// the tables, the challenge state the answers carry, and the load (status, history, bars already
// played, tables). Every call that moves or reads the session's clock, and every chart update, goes
// through the core's queue, so they never overlap (the server answers 503 to a second advance, and
// to a step or jump while it plays).

import { useEffect, useRef, useState } from 'preact/hooks';
import { PriceChart } from '../../chart.ts';
import type { LinkState } from '../../hubs.ts';
import { attempt } from '../../ui.tsx';
import type { Tables } from './book.ts';
import { type ChartBars, useChartBars } from './chart-bars.ts';
import type { SessionCore } from './core.ts';
import { type HubBars, useDeskFeed } from './feed.ts';
import { type Advance, type PropFirm, readSessionBars, saveMeta, type Violation } from './model.ts';
import { applyStatus, onBars, type Session, statusForLoad, syncStatus } from './status.ts';

export interface SessionFeed extends ChartBars {
  propFirm: PropFirm | null;
  setPropFirm(p: PropFirm): void;
  violations: Violation[];
  /** Both hubs' state in one word. */
  link: LinkState;
  userUp(): boolean;
  applyStatus(r: Advance): void;
  syncStatus(): Promise<void>;
  /** Hears every ReplayDeskBars event after the session's own chart did (the other panes, pane.tsx); returns the unsubscribe. */
  onHubBars(f: (p: HubBars) => void): () => void;
}

export function useSessionFeed(core: SessionCore, tables: Tables): SessionFeed {
  const bars = useChartBars(core);
  const [propFirm, setPropFirm] = useState<PropFirm | null>(null);
  const [violations, setViolations] = useState<Violation[]>([]);
  const s: Session = { core, tables, bars, setPropFirm, setViolations, userUp: () => feed.userUp() };
  const listeners = useRef(new Set<(p: HubBars) => void>());
  const feed = useDeskFeed(core.accountId, {
    onUser: tables.onUser,
    onBars: (p) => {
      onBars(s, p);
      for (const f of listeners.current) f(p);
    },
    onReconnected(hub) {
      if (!core.live.current.loaded || core.live.current.over) return;
      if (hub === 'user') tables.refreshTables();
      syncStatus(s).catch(() => undefined);
      core.refreshChallenge();
    },
  });
  useSessionLoad(s, feed.ready);
  return {
    ...bars,
    propFirm,
    setPropFirm,
    violations,
    link: feed.link,
    userUp: feed.userUp,
    applyStatus: (r) => applyStatus(s, r),
    syncStatus: () => syncStatus(s),
    onHubBars: (f) => {
      listeners.current.add(f);
      return () => listeners.current.delete(f);
    },
  };
}

/**
 * Pauses the server's playback as the page goes away (a reload, a closed tab, another page of the
 * console), as the desk's own playback loop used to stop with the page: a session left playing
 * could not be read back (status reads answer 503 while it plays). keepalive outlives the page.
 */
function pauseOnLeave(accountId: number): void {
  fetch('/api/sim/Replay/pause', {
    method: 'POST',
    credentials: 'same-origin',
    keepalive: true,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ accountId }),
  }).catch(() => undefined);
}

/** The chart's life: made and loaded once both hubs are subscribed, paused and destroyed as the page goes. */
function useSessionLoad(s: Session, ready: Promise<void>): void {
  const { core, bars } = s;
  useEffect(() => {
    const { tickSize } = core.meta.contract;
    const c = new PriceChart(bars.chartEl.current!, { precision: core.decimals, minMove: tickSize, seconds: core.meta.timeframe.endsWith('s') });
    bars.chart.current = c;
    let gone = false;
    (async () => {
      // Subscribed first, so nothing that happens during the reads below goes unheard.
      await ready;
      if (gone) return;
      await attempt(core.setControlError, () => core.serial(() => loadSession(s, c, () => gone)));
      if (!gone) bars.setLoading(false);
    })();
    const leave = () => {
      if (core.live.current.playing && !core.live.current.over) pauseOnLeave(core.accountId);
    };
    addEventListener('pagehide', leave);
    return () => {
      gone = true;
      leave();
      removeEventListener('pagehide', leave);
      core.live.current.playing = false;
      c.destroy();
      bars.chart.current = null;
    };
  }, [core.accountId]);
}

/** Load: status, the chart history and the bars already played (one read), tables. Runs in the queue. */
async function loadSession(s: Session, c: PriceChart, gone: () => boolean): Promise<void> {
  const { core, bars } = s;
  const st = await statusForLoad(core);
  if (gone()) return;
  // Before the first bar and trade the snapshot's balance is the starting balance.
  const fresh = st.currentIndex === 0 && st.account !== null && st.account.positions === 0 && st.account.pendingOrders === 0;
  if (core.metaRef.current.startingBalance === null && fresh) core.updateMeta({ startingBalance: st.account!.balance });
  else saveMeta(core.metaRef.current);
  // The chart history and the bars played so far in one read, with the server's clock (never History's budget).
  const read = await readSessionBars(core.accountId, null).catch((e) => {
    bars.setBarsNote(`The chart could not be loaded: ${e.message}. It loads with the next move.`);
    return null;
  });
  if (gone()) return;
  const all = read?.bars ?? [];
  c.setBars(all);
  c.showLast(160);
  const last = all[all.length - 1];
  if (last) bars.setLast(last);
  if (read) bars.setClock(read.currentTime);
  core.live.current.drawn = read ? read.currentIndex : 0;
  await s.tables.refreshTables();
  applyStatus(s, { ...st, filledOrders: [], violations: [] });
  core.refreshChallenge();
  core.live.current.loaded = true;
}
