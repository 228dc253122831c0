// The bars of a pane beside the session's own chart (layout-model.ts): an instrument of the
// session (another one, or its first at another width), on the same clock. The pane holds the
// session's bars at the session's timeframe and draws them at its own width (view-model.ts: wider
// buckets merged in the browser, chart.ts setBuckets), so its last bar is the bucket built so far,
// never one the session has not reached, and a change of its width reads nothing. Loaded at once
// (its chart history and what was played up to the session's time, through the console's own read
// of the session's bars, POST replay-sessions/:id/bars, with the pane's symbol for another
// instrument: never History's budget, which is the bots'); then the market hub's ReplayDeskBars
// carry its bars (`bars` for the session's first instrument, `barsBySymbol` for the others) for
// every step and playback tick. A jump carries no bars: the pane reads what was played since its
// last bar the same way, up to the session's clock; so does a reconnect of the hubs (they replay
// nothing a dropped connection missed). Everything runs in the session's queue (core.ts), in order
// with the session's own chart.

import { useEffect, useRef, useState } from 'preact/hooks';
import { clockAfter } from './sim-clock.ts';
import { instrumentForContractId } from '../../../domain/contract-id.ts';
import { type ApiBar, decimalsOf, PriceChart } from '../../chart.ts';
import type { SessionCore } from './core.ts';
import { apiBar, type HubBars } from './feed.ts';
import type { Pane } from './layout-model.ts';
import { readSessionBars, type SessionMeta, timeframeParts } from './model.ts';
import type { SessionFeed } from './session-feed.ts';

export interface PaneBars {
  chartEl: { current: HTMLDivElement | null };
  chart: { current: PriceChart | null };
  loading: boolean;
  lastPrice: number | null;
  /** The close of the last bar the pane holds (ISO): the session's clock once it is in step. */
  through: string | null;
  note: string | null;
}

/** The session's meta as this pane's instrument: its contract (the span, timeframe and history are the session's). */
export const paneMeta = (meta: SessionMeta, pane: Pane): SessionMeta => ({ ...meta, contract: pane.contract, timeframe: pane.timeframe });

export function usePaneBars(core: SessionCore, session: SessionFeed, pane: Pane): PaneBars {
  const chartEl = useRef<HTMLDivElement>(null);
  const chart = useRef<PriceChart | null>(null);
  const [loading, setLoading] = useState(true);
  const [lastPrice, setLastPrice] = useState<number | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [lastT, setLastT] = useState<string | null>(null);
  const last = useRef<string | null>(null);
  const mark = (t: string, price: number) => {
    last.current = t;
    setLastT(t);
    setLastPrice(price);
  };
  // The session's first instrument is read and heard as the session's own chart's (its `bars`).
  const own = pane.contract.id === core.meta.contract.id;
  const symbol = own ? null : (instrumentForContractId(pane.contract.id, 'all')?.symbol ?? pane.contract.name);

  const append = (bars: readonly ApiBar[]) => {
    const after = last.current === null ? -Infinity : Date.parse(last.current);
    const add = bars.filter((b) => Date.parse(b.t) > after);
    if (add.length === 0 || !chart.current) return;
    chart.current.appendBars(add);
    mark(add[add.length - 1].t, add[add.length - 1].c);
  };
  /** What the session played since this pane's last bar (all of it at first), up to its clock. */
  const catchUp = async () => {
    append((await readSessionBars(core.accountId, last.current, symbol)).bars);
  };

  useEffect(() => {
    const c = new PriceChart(chartEl.current!, { precision: decimalsOf(pane.contract.tickSize), minMove: pane.contract.tickSize, seconds: core.meta.timeframe.endsWith('s') });
    chart.current = c;
    let gone = false;
    // Another instrument in this pane: a new chart, loading until its bars are read.
    setLoading(true);
    setNote(null);
    last.current = null;
    setLastT(null);
    const fail = (e: Error) => setNote(`Bars not loaded: ${e.message}`);
    core.serial(async () => {
      const bars = (await readSessionBars(core.accountId, null, symbol)).bars;
      if (gone) return;
      c.setBars(bars);
      const end = bars[bars.length - 1];
      if (end) mark(end.t, end.c);
      c.showLast(160);
    }).catch(fail).finally(() => !gone && setLoading(false));
    const off = session.onHubBars((p: HubBars) => {
      const mine = symbol === null ? p.bars : p.barsBySymbol?.[symbol];
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
  }, [core.accountId, pane.contract.id]);

  useCatchUpOnReconnect(core, session, catchUp, setNote);

  const through = clockAfter(lastT, timeframeParts(core.meta.timeframe).widthS);
  return { chartEl, chart, loading, lastPrice, through, note };
}

/** The hubs replay nothing a dropped connection missed: once they are back, what was played meanwhile. */
function useCatchUpOnReconnect(core: SessionCore, session: SessionFeed, catchUp: () => Promise<void>, setNote: (n: string) => void): void {
  const dropped = useRef(false);
  useEffect(() => {
    if (session.link === 'reconnecting' || session.link === 'down') dropped.current = true;
    else if (session.link === 'up' && dropped.current) {
      dropped.current = false;
      core.serial(catchUp).catch((e: Error) => setNote(`Bars not loaded: ${e.message}`));
    }
  }, [session.link]);
}
