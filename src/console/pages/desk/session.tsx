// A live replay session on the desk: the chart (history, then the bars as they are played), the
// replay controls, the order ticket, the account snapshot, the tables and the challenge panel.
//
// Every call that moves or reads the session's clock goes through one queue, so a step, a jump, a
// status read and the playback loop never overlap (the server answers 503 to a second advance).
// Playback is paced here: the desk steps at Replay/play's rate (2 × speed bars a second), which
// returns every bar as it is played; the server's own playback reports nothing until paused.

import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, sim } from '../../api.ts';
import { type ApiBar, CHART_COLORS, decimalsOf, type MarkerSpec, PriceChart, type PriceLineSpec } from '../../chart.ts';
import { attempt, ErrorLine, money, signClass, utc } from '../../ui.tsx';
import {
  type Advance,
  forgetMeta,
  lastBarTime,
  loadHistory,
  loadPlayed,
  type Order,
  type Position,
  type PropFirm,
  readStatus,
  saveMeta,
  type SessionMeta,
  type Snapshot,
  sideWord,
  type Trade,
  typeShort,
  type Violation,
} from './model.ts';
import { Ticket, type TicketOrder } from './ticket.tsx';
import { ChallengePanel, useChallengeDetail } from './challenge.tsx';
import { FillsTable, OrdersTable, PositionsTable } from './tables.tsx';

export interface EndResult {
  reason: 'ended' | 'violated' | 'passed';
  account: (Snapshot & { filledOrders?: unknown[] }) | null;
  startingBalance: number | null;
  fills: number;
  message: string | null;
}

interface Props {
  meta: SessionMeta;
  onClose: (notice?: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function isTyping(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  if (!el) return false;
  const tag = el.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || el.isContentEditable;
}

/** `2025-03-03T14:30:00Z` ↔ the value of a datetime-local input (read as UTC). */
const toLocalInput = (iso: string) => iso.slice(0, 16);
const fromLocalInput = (v: string) => `${v.length === 16 ? `${v}:00` : v}Z`;

export function SessionView({ meta: initialMeta, onClose }: Props) {
  const [meta, setMeta] = useState(initialMeta);
  const metaRef = useRef(meta);
  metaRef.current = meta;
  const accountId = meta.accountId;
  const { tickSize, tickValue } = meta.contract;
  const decimals = decimalsOf(tickSize);
  const fmt = useMemo(() => ({ price: (p: number | null) => (p === null || p === undefined ? '—' : p.toFixed(decimals)) }), [decimals]);

  const chartEl = useRef<HTMLDivElement>(null);
  const chart = useRef<PriceChart | null>(null);
  const [loading, setLoading] = useState(true);
  const [snap, setSnap] = useState<Snapshot | null>(null);
  const [propFirm, setPropFirm] = useState<PropFirm | null>(null);
  const [violations, setViolations] = useState<Violation[]>([]);
  const [progress, setProgress] = useState({ currentIndex: 0, totalBars: 0 });
  const [lastPrice, setLastPrice] = useState<number | null>(null);
  const [lastTime, setLastTime] = useState<string | null>(null);
  const [positions, setPositions] = useState<Position[]>([]);
  const [orders, setOrders] = useState<Order[]>([]);
  const [fills, setFills] = useState<Trade[]>([]);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(5);
  const [jumpAt, setJumpAt] = useState('');
  const [atEnd, setAtEnd] = useState(false);
  const [over, setOver] = useState<EndResult | null>(null);
  const [controlError, setControlError] = useState<string | null>(null);
  const [ticketError, setTicketError] = useState<string | null>(null);
  const [tableError, setTableError] = useState<string | null>(null);
  const [flash, setFlash] = useState<string | null>(null);
  const [placing, setPlacing] = useState(false);
  const [canceling, setCanceling] = useState<number | null>(null);
  const [closing, setClosing] = useState(false);
  const [size, setSize] = useState(1);
  const [historyNote, setHistoryNote] = useState<string | null>(null);
  const challenge = useChallengeDetail(meta.challengeAccountId);

  const live = useRef({ playing: false, speed: 5, over: false, lastTime: null as string | null, currentIndex: 0 });
  live.current.speed = speed;
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  /** Runs session calls one after the other. */
  const serial = useCallback(<T,>(f: () => Promise<T>): Promise<T> => {
    const next = queue.current.then(f, f);
    queue.current = next.catch(() => undefined);
    return next;
  }, []);

  const updateMeta = (patch: Partial<SessionMeta>) => {
    const m = { ...metaRef.current, ...patch };
    metaRef.current = m;
    setMeta(m);
    saveMeta(m);
  };

  const refreshTables = useCallback(async () => {
    await attempt(setTableError, async () => {
      const [p, o, t] = await Promise.all([
        sim<{ positions: Position[] }>('Position/searchOpen', { accountId }),
        sim<{ orders: Order[] }>('Order/searchOpen', { accountId }),
        sim<{ trades: Trade[] }>('Trade/search', { accountId }),
      ]);
      setPositions(p.positions);
      setOrders(o.orders);
      setFills(t.trades);
    });
  }, [accountId]);

  const finish = (reason: EndResult['reason'], account: EndResult['account'], message: string | null, fillCount: number) => {
    live.current.over = true;
    live.current.playing = false;
    setPlaying(false);
    setOver({ reason, account, startingBalance: metaRef.current.startingBalance, fills: fillCount, message });
    forgetMeta(accountId);
  };

  /** Applies what a step or jump answered. */
  const apply = (r: Advance, bars: ApiBar[]) => {
    if (bars.length) {
      chart.current?.appendBars(bars);
      const last = bars[bars.length - 1];
      setLastPrice(last.c);
      setLastTime(last.t);
      live.current.lastTime = last.t;
    }
    live.current.currentIndex = r.currentIndex;
    setProgress({ currentIndex: r.currentIndex, totalBars: r.totalBars });
    if (r.account) setSnap(r.account);
    if (r.propFirm) setPropFirm(r.propFirm);
    if (r.filledOrders.length) {
      setFlash(r.filledOrders.map((f) => `#${f.orderId} filled ${f.fillQty} @ ${fmt.price(f.fillPrice)}`).join(' · '));
      refreshTables();
    }
    if (r.violations.length) setViolations((v) => [...v, ...r.violations]);
    // The rule figures move with every advance (equity, floors, days): read them again (throttled).
    if (r.propFirm || r.violations.length || metaRef.current.challengeAccountId !== null) challenge.refresh();
    const decided = r.propFirm && r.propFirm.status !== 'active' ? r.propFirm.status : r.violations.length ? 'violated' : null;
    if (decided === 'violated' || decided === 'passed') {
      refreshTables();
      finish(decided, r.account, r.violations[0]?.message ?? null, 0);
    } else if (r.barsProcessed === 0 && r.currentIndex >= r.totalBars) {
      setAtEnd(true);
      live.current.playing = false;
      setPlaying(false);
    }
  };

  // ---- load: status, history, bars already played, tables ----
  useEffect(() => {
    const el = chartEl.current!;
    const c = new PriceChart(el, { precision: decimals, minMove: tickSize, seconds: meta.timeframe.endsWith('s') });
    chart.current = c;
    let gone = false;
    (async () => {
      await attempt(setControlError, async () => {
        const st = await serial(() => readStatus(accountId));
        if (gone) return;
        // Before the first bar and trade the snapshot's balance is the starting balance.
        const fresh = st.currentIndex === 0 && st.account !== null && st.account.positions === 0 && st.account.pendingOrders === 0;
        if (metaRef.current.startingBalance === null && fresh) updateMeta({ startingBalance: st.account!.balance });
        else saveMeta(metaRef.current);
        const history = await loadHistory(metaRef.current).catch((e) => {
          setHistoryNote(`Chart history not loaded: ${e.message}`);
          return [] as ApiBar[];
        });
        const played = await loadPlayed(metaRef.current, null, st.currentIndex).catch((e) => {
          setHistoryNote(`Played bars not loaded: ${e.message}`);
          return [] as ApiBar[];
        });
        if (gone) return;
        if (!metaRef.current.startDate) setHistoryNote('This session was started outside the desk: its chart begins with the next bar played.');
        c.setBars([...history, ...played]);
        c.showLast(160);
        const all = [...history, ...played];
        const last = all[all.length - 1];
        if (last) {
          setLastPrice(last.c);
          setLastTime(last.t);
          live.current.lastTime = last.t;
        }
        apply({ ...st, filledOrders: [], violations: [] }, []);
        await refreshTables();
      });
      if (!gone) setLoading(false);
    })();
    return () => {
      gone = true;
      live.current.playing = false;
      c.destroy();
      chart.current = null;
    };
  }, [accountId]);

  // Default jump target: an hour after the last bar, until the user types one.
  const jumpEdited = useRef(false);
  useEffect(() => {
    if (lastTime && !jumpEdited.current) setJumpAt(toLocalInput(new Date(Date.parse(lastTime) + 3_600_000).toISOString()));
  }, [lastTime]);

  // ---- chart decorations: working orders, planned brackets, average price, fills ----
  const lines = useMemo(() => {
    const out: (PriceLineSpec & { orderId?: number })[] = [];
    for (const o of orders) {
      const color = o.side === 0 ? CHART_COLORS.up : CHART_COLORS.down;
      const word = `${o.side === 0 ? 'BUY' : 'SELL'} ${o.size} ${typeShort(o.type)}`;
      if (o.type === 3 && o.stopPrice !== null) out.push({ price: o.stopPrice, color, title: `${word} stop #${o.id}`, style: 'dotted', orderId: o.id });
      const price = o.type === 4 ? o.stopPrice : o.limitPrice;
      if (price !== null) out.push({ price, color, title: `${word} #${o.id}`, orderId: o.id });
      const b = meta.brackets[String(o.id)];
      if (b && price !== null) {
        const dir = o.side === 0 ? 1 : -1;
        if (b.sl) out.push({ price: price - dir * b.sl * tickSize, color: CHART_COLORS.down, title: `SL #${o.id} (on fill)`, style: 'dotted' });
        if (b.tp) out.push({ price: price + dir * b.tp * tickSize, color: CHART_COLORS.up, title: `TP #${o.id} (on fill)`, style: 'dotted' });
      }
    }
    for (const p of positions) {
      out.push({ price: p.averagePrice, color: CHART_COLORS.accent, title: `${p.type === 1 ? 'LONG' : 'SHORT'} ${p.size} avg`, style: 'solid' });
    }
    return out;
  }, [orders, positions, meta.brackets, tickSize]);

  useEffect(() => {
    chart.current?.setPriceLines(lines);
  }, [lines]);

  useEffect(() => {
    const markers: MarkerSpec[] = fills.map((t) => ({ time: t.creationTimestamp, side: t.side === 0 ? 'buy' : 'sell', text: `${t.side === 0 ? 'B' : 'S'} ${t.size} @ ${fmt.price(t.price)}` }));
    chart.current?.setMarkers(markers);
  }, [fills, progress.currentIndex]);

  // ---- replay control ----
  const step = (n: number) =>
    attempt(setControlError, () =>
      serial(async () => {
        if (live.current.over) return;
        const r = await sim<Advance>('Replay/step', { accountId, steps: n });
        apply(r, r.bars ?? []);
      }),
    );

  const jump = (targetIso: string) =>
    attempt(setControlError, async () => {
      stopPlaying();
      await serial(async () => {
        if (live.current.over) return;
        const before = live.current.currentIndex;
        const r = await sim<Advance>('Replay/jumpTo', { accountId, targetTime: targetIso });
        const bars = await loadPlayed(metaRef.current, live.current.lastTime, r.currentIndex - before);
        apply(r, bars);
      });
    });

  const stopPlaying = () => {
    live.current.playing = false;
    setPlaying(false);
  };

  const play = async () => {
    if (live.current.playing || live.current.over) return;
    live.current.playing = true;
    setPlaying(true);
    setAtEnd(false);
    setControlError(null);
    while (live.current.playing && !live.current.over) {
      const t0 = performance.now();
      const rate = 2 * live.current.speed; // bars a second, as Replay/play plays them
      const n = Math.max(1, Math.min(100, Math.round(rate / 4)));
      try {
        await serial(async () => {
          if (!live.current.playing || live.current.over) return;
          const r = await sim<Advance>('Replay/step', { accountId, steps: n });
          apply(r, r.bars ?? []);
        });
      } catch (e) {
        if (e instanceof ApiError && (e.status === 503 || e.status === 429)) {
          await sleep(1000);
          continue;
        }
        setControlError(e instanceof Error ? e.message : String(e));
        stopPlaying();
        break;
      }
      const wait = (n / rate) * 1000 - (performance.now() - t0);
      if (wait > 0) await sleep(wait);
    }
  };

  const togglePlay = () => (live.current.playing ? stopPlaying() : play());

  const end = () =>
    attempt(setControlError, async () => {
      stopPlaying();
      await serial(async () => {
        const r = await sim<{ ended: boolean; account: (Snapshot & { filledOrders: unknown[] }) | null }>('Replay/end', { accountId });
        const t = await sim<{ trades: Trade[] }>('Trade/search', { accountId }).catch(() => null);
        if (t) setFills(t.trades);
        setPositions([]);
        setOrders([]);
        if (r.account) setSnap(r.account);
        finish('ended', r.account, null, t?.trades.length ?? 0);
        if (metaRef.current.challengeAccountId !== null || propFirm) challenge.refresh();
      });
    });

  // ---- trading ----
  const afterCommand = async () => {
    await refreshTables();
    if (!live.current.playing && !live.current.over) {
      const st = await serial(() => readStatus(accountId)).catch(() => null);
      if (st) apply({ ...st, filledOrders: [], violations: st.violations ?? [] }, []);
    }
  };

  const place = async (o: TicketOrder) => {
    setPlacing(true);
    await attempt(setTicketError, async () => {
      const body: Record<string, unknown> = {
        accountId,
        contractId: meta.contract.id,
        type: o.type,
        side: o.side,
        size: o.size,
        limitPrice: o.limitPrice,
        stopPrice: o.stopPrice,
      };
      if (o.slTicks !== null) body.stopLossBracket = { ticks: o.slTicks };
      if (o.tpTicks !== null) body.takeProfitBracket = { ticks: o.tpTicks };
      const r = await sim<{ orderId: number }>('Order/place', body);
      if (o.type !== 2 && (o.slTicks !== null || o.tpTicks !== null)) {
        updateMeta({ brackets: { ...metaRef.current.brackets, [String(r.orderId)]: { sl: o.slTicks, tp: o.tpTicks } } });
      }
      setFlash(`Order #${r.orderId} placed: ${sideWord(o.side)} ${o.size} ${typeShort(o.type)}`);
      await afterCommand();
    });
    setPlacing(false);
  };

  const market = (side: 0 | 1) => place({ side, type: 2, size, limitPrice: null, stopPrice: null, slTicks: null, tpTicks: null });

  const cancel = async (o: Order) => {
    setCanceling(o.id);
    await attempt(setTableError, async () => {
      await sim('Order/cancel', { accountId, orderId: o.id });
      setFlash(`Order #${o.id} canceled`);
      await afterCommand();
    });
    setCanceling(null);
  };

  const flatten = async (p: Position) => {
    setClosing(true);
    await attempt(setTableError, async () => {
      await sim('Position/closeContract', { accountId, contractId: p.contractId });
      setFlash(`Position flattened`);
      await afterCommand();
    });
    setClosing(false);
  };

  // ---- keyboard ----
  const keys = useRef<(e: KeyboardEvent) => void>(() => {});
  keys.current = (e: KeyboardEvent) => {
    if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target) || over || loading) return;
    const k = e.key;
    if (k === 'ArrowRight' || k === 'n' || k === 'N') {
      e.preventDefault();
      if (!playing) step(e.shiftKey ? 10 : 1);
    } else if (k === ' ') {
      e.preventDefault();
      togglePlay();
    } else if (k === 'b' || k === 'B') {
      e.preventDefault();
      market(0);
    } else if (k === 's' || k === 'S') {
      e.preventDefault();
      market(1);
    }
  };
  useEffect(() => {
    const h = (e: KeyboardEvent) => keys.current(e);
    addEventListener('keydown', h);
    return () => removeEventListener('keydown', h);
  }, []);

  useEffect(() => {
    if (!flash) return;
    const t = setTimeout(() => setFlash(null), 4000);
    return () => clearTimeout(t);
  }, [flash]);

  const pct = progress.totalBars ? (100 * progress.currentIndex) / progress.totalBars : 0;
  const realized = snap && meta.startingBalance !== null ? snap.balance - meta.startingBalance : null;
  const symbol = meta.contract.name;

  return (
    <div class="desk" data-testid="desk">
      <header class="card desk-bar">
        <div class="bar-row">
          <div class="instrument">
            <span class="sym">{symbol}</span>
            <span class="muted desc" title={meta.contract.description}>{meta.contract.description}</span>
            <span class="chip">{meta.timeframe}</span>
            {meta.challengeName && <span class="chip chip-warn">{meta.challengeName}</span>}
          </div>
          <div class="clock">
            <span class="mono" data-testid="sim-time">
              {lastTime ? utc(lastTime) : '—'}
            </span>
            <span class="muted small">UTC</span>
            <div class="progress" title={`${progress.currentIndex} of ${progress.totalBars} bars`}>
              <div style={{ width: `${pct}%` }} />
            </div>
            <span class="mono small muted" data-testid="progress">
              {progress.currentIndex.toLocaleString('en-US')} / {progress.totalBars.toLocaleString('en-US')}
            </span>
          </div>
          <div class="controls">
            <button type="button" onClick={() => step(1)} disabled={playing || !!over || loading} data-testid="step" title="Step one bar (→ or N)">
              Step <kbd>→</kbd>
            </button>
            <button type="button" onClick={() => step(10)} disabled={playing || !!over || loading} title="Step ten bars (Shift+→)">
              ×10
            </button>
            <button type="button" class={playing ? 'primary' : ''} onClick={togglePlay} disabled={!!over || loading} data-testid="play" title="Play / pause (Space)">
              {playing ? 'Pause' : 'Play'} <kbd>Space</kbd>
            </button>
            <label class="speed" title="Speed: 2 × speed bars a second">
              <span>
                Speed <span class="mono speed-val">{speed}</span>
              </span>
              <input type="range" min={1} max={50} value={speed} onInput={(e) => setSpeed(Number((e.target as HTMLInputElement).value))} name="speed" />
            </label>
            <form
              class="jump"
              onSubmit={(e) => {
                e.preventDefault();
                jumpEdited.current = false;
                if (jumpAt) jump(fromLocalInput(jumpAt));
              }}
            >
              <input type="datetime-local" name="jumpTo" value={jumpAt} step={60} onInput={(e) => {
                  jumpEdited.current = true;
                  setJumpAt((e.target as HTMLInputElement).value);
                }}
                aria-label="Jump to (UTC)"
                title="Jump to this time (UTC)"
              />
              <button type="submit" disabled={!!over || loading} data-testid="jump">
                Jump
              </button>
            </form>
            <button type="button" class="ghost end" onClick={end} disabled={!!over || loading} data-testid="end">
              End session
            </button>
          </div>
        </div>
        <ErrorLine error={controlError} />
      </header>

      <div class={`desk-main ${meta.challengeName ? 'with-challenge' : 'plain'}`}>
        <div class="chart-wrap card">
          <div class="chart" ref={chartEl} data-testid="chart" />
          <OrderOverlay chart={chart} orders={orders} lines={lines} onCancel={cancel} canceling={canceling} fmt={fmt} />
          {loading && <div class="chart-loading">Loading bars…</div>}
          {flash && (
            <div class="flash" data-testid="flash">
              {flash}
            </div>
          )}
          {atEnd && !over && <div class="chart-note">End of data: every bar of the session has been played.</div>}
          {historyNote && <div class="chart-note left">{historyNote}</div>}
        </div>
        <aside class="desk-side">
          <section class="card">
            <div class="stats account" data-testid="account">
              <Stat label="Balance" value={money(snap?.balance)} testid="balance" />
              <Stat label="Equity" value={money(snap?.equity)} testid="equity" />
              <Stat label="Open P&L" value={money(snap?.unrealizedPnl)} cls={signClass(snap?.unrealizedPnl)} testid="open-pnl" />
              <Stat label="Realized" value={money(realized)} cls={signClass(realized)} testid="realized" />
              <Stat label="Margin used" value={money(snap?.marginUsed)} testid="margin" />
              <Stat label="Last" value={fmt.price(lastPrice)} testid="last-price" />
            </div>
          </section>
          {over ? (
            <FinalResult result={over} onNew={() => onClose()} />
          ) : (
            <Ticket
              tickSize={tickSize}
              decimals={decimals}
              lastPrice={lastPrice}
              disabled={loading}
              busy={placing}
              error={ticketError}
              onPlace={place}
              size={size}
              onSize={setSize}
            />
          )}
          <ChallengePanel
            name={meta.challengeName}
            propFirm={propFirm}
            detail={challenge.detail}
            equity={snap?.equity ?? null}
            violations={violations}
            error={challenge.error}
          />
        </aside>
        <div class="desk-below">
          <ErrorLine error={tableError} />
          <div class="desk-tables">
            <PositionsTable positions={positions} lastPrice={lastPrice} tickSize={tickSize} tickValue={tickValue} fmt={fmt} onClose={flatten} closing={closing} />
            <OrdersTable orders={orders} fmt={fmt} onCancel={cancel} canceling={canceling} />
            <FillsTable fills={fills} fmt={fmt} />
          </div>
          <p class="muted small keys">
            <kbd>→</kbd>/<kbd>N</kbd> step · <kbd>Shift</kbd>+<kbd>→</kbd> ten bars · <kbd>Space</kbd> play/pause · <kbd>B</kbd> buy · <kbd>S</kbd> sell at market (ticket size)
          </p>
        </div>
      </div>
    </div>
  );
}

function Stat({ label, value, cls, testid }: { label: string; value: string; cls?: string; testid: string }) {
  return (
    <div class="stat">
      <div class="label">{label}</div>
      <div class={`value ${cls ?? ''}`} data-testid={testid}>
        {value}
      </div>
    </div>
  );
}

function FinalResult({ result, onNew }: { result: EndResult; onNew: () => void }) {
  const a = result.account;
  const net = a && result.startingBalance !== null ? a.balance - result.startingBalance : null;
  const title = result.reason === 'ended' ? 'Session ended' : result.reason === 'passed' ? 'Challenge passed' : 'Challenge violated — session finalized';
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
        {result.reason === 'ended' && (
          <>
            <dt>Fills</dt>
            <dd class="mono">{result.fills}</dd>
          </>
        )}
      </dl>
      <button type="button" class="primary" onClick={onNew}>
        New session
      </button>
    </section>
  );
}

/**
 * Working orders as chips at their price, just left of the price scale: the chart's own way to
 * cancel an order (×). Positions follow the chart as it scrolls, zooms and resizes.
 */
function OrderOverlay({ chart, orders, lines, onCancel, canceling, fmt }: {
  chart: { current: PriceChart | null };
  orders: Order[];
  lines: (PriceLineSpec & { orderId?: number })[];
  onCancel: (o: Order) => void;
  canceling: number | null;
  fmt: { price: (p: number | null) => string };
}) {
  const [, redraw] = useState(0);
  useEffect(() => {
    const c = chart.current;
    if (!c || orders.length === 0) return;
    const off = c.onViewChange(() => redraw((n) => n + 1));
    const t = setInterval(() => redraw((n) => n + 1), 400);
    return () => {
      off();
      clearInterval(t);
    };
  }, [orders.length, chart.current]);
  const c = chart.current;
  if (!c || orders.length === 0) return null;
  const right = c.priceScaleWidth() + 6;
  return (
    <div class="order-overlay" data-testid="chart-orders">
      {orders.map((o) => {
        const line = lines.find((l) => l.orderId === o.id && !l.title.includes(' stop #'));
        const y = line ? c.priceToY(line.price) : null;
        if (y === null) return null;
        return (
          <div class={`order-chip ${o.side === 0 ? 'buy' : 'sell'}`} style={{ top: `${y - 11}px`, right: `${right}px` }} key={o.id} data-order-id={o.id}>
            <span>
              {o.side === 0 ? 'BUY' : 'SELL'} {o.size} {typeShort(o.type)} {fmt.price(line!.price)}
            </span>
            <button type="button" title={`Cancel order #${o.id}`} aria-label={`Cancel order ${o.id} on the chart`} disabled={canceling === o.id} onClick={() => onCancel(o)}>
              ×
            </button>
          </div>
        );
      })}
    </div>
  );
}
