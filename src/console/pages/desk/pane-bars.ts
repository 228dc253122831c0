// The bars of a pane beside the session's own chart (layout-model.ts): another instrument of the
// session, on the same clock. Loaded at once (its history before the start and what was played up
// to the session's time, in one History read); then the market hub's ReplayDeskBars carry its bars by
// symbol (`barsBySymbol`) for every step and playback tick. A jump carries no bars: the pane reads
// what it played from History, up to the session's time (GET replay-sessions/:id `currentTime`,
// the end of the last bar played), so the pane never shows a bar the clock has not reached; so does
// a reconnect of the hubs (they replay nothing a dropped connection missed).
// Everything runs in the session's queue (core.ts), in order with the session's own chart.

import type { Static } from '@sinclair/typebox';
import { useEffect, useRef, useState } from 'preact/hooks';
import type * as web from '../../../http/web/shapes.ts';
import { instrumentForContractId } from '../../../domain/contract-id.ts';
import { auth } from '../../api.ts';
import { type ApiBar, decimalsOf, PriceChart } from '../../chart.ts';
import type { SessionCore } from './core.ts';
import { apiBar, type HubBars } from './feed.ts';
import type { Pane } from './layout-model.ts';
import { loadPlayedUntil, type SessionMeta, timeframeParts } from './model.ts';
import type { SessionFeed } from './session-feed.ts';

export interface PaneBars {
  chartEl: { current: HTMLDivElement | null };
  chart: { current: PriceChart | null };
  loading: boolean;
  lastPrice: number | null;
  note: string | null;
}

/** The session's meta as this pane's instrument: its contract (the span, timeframe and history are the session's). */
export const paneMeta = (meta: SessionMeta, pane: Pane): SessionMeta => ({ ...meta, contract: pane.contract, timeframe: pane.timeframe });

/** Bars that end by the session's time `clockIso` and open after `afterIso` (exclusive), as History serves them. */
async function barsUntil(meta: SessionMeta, afterIso: string, clockIso: string): Promise<ApiBar[]> {
  const { widthS } = timeframeParts(meta.timeframe);
  const clockMs = Date.parse(clockIso);
  const bars = await loadPlayedUntil(meta, afterIso, clockIso, { count: null });
  return bars.filter((b) => Date.parse(b.t) + widthS * 1000 <= clockMs);
}

/** The session's time now: the end of the last bar played. */
async function sessionTime(accountId: number): Promise<string> {
  return (await auth<Static<typeof web.SessionInfo>>('GET', `replay-sessions/${accountId}`)).currentTime;
}

/**
 * A pane's bars at load: its chart history (as many bars as the session's, from where the session's
 * begins) and what was played, in one History read (History's requests are counted: 20 a minute).
 */
async function loadPane(meta: SessionMeta, accountId: number): Promise<ApiBar[]> {
  const startMs = Date.parse(meta.startTime ?? '');
  const from = meta.historyStartTime ?? meta.startTime;
  if (!from || !Number.isFinite(startMs)) return [];
  const bars = await barsUntil(meta, new Date(Date.parse(from) - 1000).toISOString(), await sessionTime(accountId));
  const history = bars.filter((b) => Date.parse(b.t) < startMs).slice(-meta.historyBars);
  return [...(meta.historyBars > 0 ? history : []), ...bars.filter((b) => Date.parse(b.t) >= startMs)];
}

export function usePaneBars(core: SessionCore, session: SessionFeed, pane: Pane): PaneBars {
  const chartEl = useRef<HTMLDivElement>(null);
  const chart = useRef<PriceChart | null>(null);
  const [loading, setLoading] = useState(true);
  const [lastPrice, setLastPrice] = useState<number | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const lastT = useRef<string | null>(null);
  const symbol = instrumentForContractId(pane.contract.id, 'all')?.symbol ?? pane.contract.name;

  const append = (bars: readonly ApiBar[]) => {
    const after = lastT.current === null ? -Infinity : Date.parse(lastT.current);
    const add = bars.filter((b) => Date.parse(b.t) > after);
    if (add.length === 0 || !chart.current) return;
    chart.current.appendBars(add);
    lastT.current = add[add.length - 1].t;
    setLastPrice(add[add.length - 1].c);
  };
  /** What the session played since this pane's last bar, from History. */
  const catchUp = async () => {
    const meta = paneMeta(core.metaRef.current, pane);
    const from = lastT.current ?? new Date(Date.parse(meta.startTime ?? '1970-01-01T00:00:00Z') - 1000).toISOString();
    append(await barsUntil(meta, from, await sessionTime(core.accountId)));
  };

  useEffect(() => {
    const c = new PriceChart(chartEl.current!, { precision: decimalsOf(pane.contract.tickSize), minMove: pane.contract.tickSize, seconds: pane.timeframe.endsWith('s') });
    chart.current = c;
    let gone = false;
    const fail = (e: Error) => setNote(`Bars not loaded: ${e.message}`);
    core.serial(async () => {
      const bars = await loadPane(paneMeta(core.metaRef.current, pane), core.accountId);
      if (gone) return;
      c.setBars(bars);
      const last = bars[bars.length - 1];
      if (last) {
        lastT.current = last.t;
        setLastPrice(last.c);
      }
      c.showLast(160);
    }).catch(fail).finally(() => !gone && setLoading(false));
    const off = session.onHubBars((p: HubBars) => {
      const mine = p.barsBySymbol?.[symbol];
      const jumped = p.bars.length === 0 && Object.values(p.barsBySymbol ?? {}).every((b) => b.length === 0);
      core.serial(async () => {
        if (gone) return;
        if (mine?.length) append(mine.map(apiBar));
        else if (jumped && !p.ended) await catchUp();
      }).catch(fail);
    });
    return () => {
      gone = true;
      off();
      c.destroy();
      chart.current = null;
    };
  }, [core.accountId, pane.key]);

  // The hubs replay nothing a dropped connection missed: once they are back, what was played meanwhile.
  const dropped = useRef(false);
  useEffect(() => {
    if (session.link === 'reconnecting' || session.link === 'down') dropped.current = true;
    else if (session.link === 'up' && dropped.current) {
      dropped.current = false;
      core.serial(catchUp).catch((e: Error) => setNote(`Bars not loaded: ${e.message}`));
    }
  }, [session.link]);

  return { chartEl, chart, loading, lastPrice, note };
}
