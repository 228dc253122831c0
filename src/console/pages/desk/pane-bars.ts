// The bars of a pane beside the session's own chart (layout-model.ts): another instrument of the
// session, on the same clock. Loaded at once (its chart history and what was played up to the
// session's time, through the console's own read of the session's bars, POST
// replay-sessions/:id/bars with the pane's symbol: never History's budget, which is the bots');
// then the market hub's ReplayDeskBars carry its bars by symbol (`barsBySymbol`) for every step and
// playback tick. A jump carries no bars: the pane reads what was played since its last bar the same
// way, up to the session's clock; so does a reconnect of the hubs (they replay nothing a dropped
// connection missed). Everything runs in the session's queue (core.ts), in order with the
// session's own chart.

import { useEffect, useRef, useState } from 'preact/hooks';
import { instrumentForContractId } from '../../../domain/contract-id.ts';
import { type ApiBar, decimalsOf, PriceChart } from '../../chart.ts';
import type { SessionCore } from './core.ts';
import { apiBar, type HubBars } from './feed.ts';
import type { Pane } from './layout-model.ts';
import { readSessionBars, type SessionMeta } from './model.ts';
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
  /** What the session played since this pane's last bar (all of it at first), up to its clock. */
  const catchUp = async () => {
    append((await readSessionBars(core.accountId, lastT.current, symbol)).bars);
  };

  useEffect(() => {
    const c = new PriceChart(chartEl.current!, { precision: decimalsOf(pane.contract.tickSize), minMove: pane.contract.tickSize, seconds: pane.timeframe.endsWith('s') });
    chart.current = c;
    let gone = false;
    const fail = (e: Error) => setNote(`Bars not loaded: ${e.message}`);
    core.serial(async () => {
      const bars = (await readSessionBars(core.accountId, null, symbol)).bars;
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
