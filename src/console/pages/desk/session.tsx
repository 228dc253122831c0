// A live replay session on the desk: the chart (history, then the bars as they are played), the
// replay controls, the order ticket, the account snapshot, the tables and the challenge panel.
//
// The server plays (Replay/play, Replay/pause); the page draws what the hubs tell it (feed.ts):
// the market hub's ReplayDeskBars carry every played bar, whoever advanced the session (this page,
// another tab, a bot), and the user hub's events keep the tables and the snapshot current (live.ts).
// A step's answer carries its bars too: bars are drawn by the session index they end at, so a bar
// heard twice (answer and event) is drawn once, and a gap (a jump, a missed event) is read from
// History. Every call that moves or reads the session's clock, and every chart update, goes through
// one queue, so they never overlap (the server answers 503 to a second advance, and to a step or
// jump while it plays).

import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, sim } from '../../api.ts';
import { loadChallengeDetails } from '../../challenge.ts';
import { type ApiBar, CHART_COLORS, decimalsOf, type MarkerSpec, PriceChart, type PriceLineSpec } from '../../chart.ts';
import { attempt, ErrorLine, money, signClass, utc } from '../../ui.tsx';
import {
  type Advance,
  type Account,
  forgetMeta,
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
import { applyToBook, type Book, EMPTY_BOOK, marginPerContract, repriced, type UserEvent } from './live.ts';
import { apiBar, type HubBars, useDeskFeed } from './feed.ts';
import type { LinkState } from '../../hubs.ts';
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

function isTyping(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  if (!el) return false;
  const tag = el.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || el.isContentEditable;
}

/** The server's answer to a step or jump while the session plays (whoever started it). */
const isPlayingRefusal = (e: unknown) => e instanceof ApiError && e.status === 503 && /playing/i.test(e.message);

/** `2025-03-03T14:30:00Z` ↔ the value of a datetime-local input (read as UTC). */
const toLocalInput = (iso: string) => iso.slice(0, 16);
const fromLocalInput = (v: string) => `${v.length === 16 ? `${v}:00` : v}Z`;

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

export function SessionView({ meta: initialMeta, onClose }: Props) {
  const [meta, setMeta] = useState(initialMeta);
  const metaRef = useRef(meta);
  metaRef.current = meta;
  const accountId = meta.accountId;
  const { tickSize, tickValue } = meta.contract;
  const pricing = { tickSize, tickValue };
  const decimals = decimalsOf(tickSize);
  const fmt = useMemo(() => ({ price: (p: number | null) => (p === null || p === undefined ? '—' : p.toFixed(decimals)) }), [decimals]);

  const chartEl = useRef<HTMLDivElement>(null);
  const chart = useRef<PriceChart | null>(null);
  const [loading, setLoading] = useState(true);
  const [snap, setSnapState] = useState<Snapshot | null>(null);
  const [propFirm, setPropFirm] = useState<PropFirm | null>(null);
  const [violations, setViolations] = useState<Violation[]>([]);
  const [progress, setProgress] = useState({ currentIndex: 0, totalBars: 0 });
  const [lastPrice, setLastPrice] = useState<number | null>(null);
  const [lastTime, setLastTime] = useState<string | null>(null);
  const [book, setBookState] = useState<Book>(EMPTY_BOOK);
  const { positions, orders, fills } = book;
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
  const followsChallenge = () => metaRef.current.challengeAccountId !== null || live.current.propFirm;

  /**
   * What the handlers need synchronously: `drawn` is the session index the chart's last bar ends
   * (the bars drawn so far), `perContract` the margin per contract the server last stated.
   */
  const live = useRef({
    playing: false,
    speed: 5,
    over: false,
    loaded: false,
    lastTime: null as string | null,
    lastPrice: null as number | null,
    drawn: 0,
    totalBars: 0,
    snap: null as Snapshot | null,
    perContract: null as number | null,
    book: EMPTY_BOOK,
    propFirm: false,
  });
  live.current.speed = speed;
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  /** Runs session calls and chart updates one after the other. */
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

  const setBook = (b: Book) => {
    live.current.book = b;
    setBookState(b);
  };
  const setSnap = (s: Snapshot) => {
    live.current.snap = s;
    setSnapState(s);
  };
  /** A snapshot the server answered: exact, and the margin per contract to use until the next. */
  const serverSnap = (s: Snapshot) => {
    live.current.perContract = marginPerContract(s, live.current.book.positions) ?? live.current.perContract;
    setSnap(s);
  };
  /** The snapshot after the book or the price moved without a server answer. */
  const reprice = () => {
    const L = live.current;
    if (L.snap) setSnap(repriced(L.snap, L.book, L.lastPrice, pricing, L.perContract));
  };
  const setPlayingBoth = (p: boolean) => {
    live.current.playing = p;
    setPlaying(p);
  };

  // ---- the tables: user-hub events, reconciled through REST ----

  /** Events heard while REST reads are in flight, replayed over their answers (see live.ts). */
  const heard = useRef(new Set<UserEvent[]>());

  const refreshTables = useCallback(async () => {
    const buf: UserEvent[] = [];
    heard.current.add(buf);
    try {
      await attempt(setTableError, async () => {
        const [p, o, t] = await Promise.all([
          sim<{ positions: Position[] }>('Position/searchOpen', { accountId }),
          sim<{ orders: Order[] }>('Order/searchOpen', { accountId }),
          sim<{ trades: Trade[] }>('Trade/search', { accountId }),
        ]);
        let b: Book = { positions: p.positions, orders: o.orders, fills: t.trades };
        for (const e of buf) b = applyToBook(b, e);
        setBook(b);
      });
    } finally {
      heard.current.delete(buf);
    }
  }, [accountId]);

  const onUser = (e: UserEvent) => {
    for (const buf of heard.current) buf.push(e);
    if (e.kind === 'account') {
      const s = live.current.snap;
      if (e.id === accountId && s) setSnap({ ...s, balance: e.balance, equity: Math.round((e.balance + s.unrealizedPnl) * 100) / 100 });
      if (followsChallenge()) challenge.refresh();
      return;
    }
    const next = applyToBook(live.current.book, e);
    if (next === live.current.book) return;
    setBook(next);
    if (e.kind === 'trade') setFlash(`#${e.trade.orderId} filled ${e.trade.size} @ ${fmt.price(e.trade.price)}`);
    if (e.kind !== 'order') reprice();
    if (followsChallenge()) challenge.refresh();
  };

  const finish = (reason: EndResult['reason'], account: EndResult['account'], message: string | null, fillCount: number) => {
    live.current.over = true;
    setPlayingBoth(false);
    setOver({ reason, account, startingBalance: metaRef.current.startingBalance, fills: fillCount, message });
    forgetMeta(accountId);
  };

  // ---- the chart ----

  /**
   * Draws the session's bars up to `index`: `bars` are the ones that end there (an answer's or an
   * event's), of which only those past the drawn index are new; without them, or past a gap, the
   * missing bars are read from History. Returns whether anything was drawn. Runs in the queue.
   */
  const drawTo = async (index: number, bars: readonly ApiBar[] | null): Promise<boolean> => {
    const L = live.current;
    if (index <= L.drawn) return false;
    const first = index - (bars?.length ?? 0);
    const add =
      bars && first <= L.drawn
        ? bars.slice(L.drawn - first)
        : await loadPlayed(metaRef.current, L.lastTime, index - L.drawn).catch((e) => {
            setHistoryNote(`Played bars not loaded: ${e.message}`);
            return [] as ApiBar[];
          });
    L.drawn = index;
    setProgress((p) => ({ ...p, currentIndex: index }));
    if (add.length === 0) return false;
    chart.current?.appendBars(add);
    const last = add[add.length - 1];
    L.lastTime = last.t;
    L.lastPrice = last.c;
    setLastPrice(last.c);
    setLastTime(last.t);
    return true;
  };

  /** Applies what a step, a jump or a status read answered (its bars are drawn by drawTo). */
  const applyStatus = (r: Advance) => {
    const L = live.current;
    L.totalBars = r.totalBars;
    setProgress({ currentIndex: Math.max(L.drawn, r.currentIndex), totalBars: r.totalBars });
    if (r.account) serverSnap(r.account);
    if (r.propFirm) {
      L.propFirm = true;
      setPropFirm(r.propFirm);
    }
    if (r.violations.length) setViolations((v) => [...v, ...r.violations]);
    // Without the user hub, the answer is all the page hears of a fill.
    if (r.filledOrders.length && !feed.userUp()) {
      setFlash(r.filledOrders.map((f) => `#${f.orderId} filled ${f.fillQty} @ ${fmt.price(f.fillPrice)}`).join(' · '));
      refreshTables();
    }
    const decided = r.propFirm && r.propFirm.status !== 'active' ? r.propFirm.status : r.violations.length ? 'violated' : null;
    if (decided === 'violated' || decided === 'passed') {
      refreshTables();
      if (followsChallenge()) challenge.refresh();
      finish(decided, r.account, r.violations[0]?.message ?? null, 0);
    } else if (r.currentIndex >= r.totalBars && r.totalBars > 0) reachedEnd();
  };

  const reachedEnd = () => {
    setAtEnd(true);
    setPlayingBoth(false);
  };

  /** Reads the session's status and draws up to it; a session playing elsewhere is shown as playing. */
  const syncStatus = () =>
    serial(async () => {
      if (live.current.over) return;
      try {
        const st = await readStatus(accountId);
        await drawTo(st.currentIndex, null);
        applyStatus({ ...st, filledOrders: [], violations: st.violations ?? [] });
      } catch (e) {
        if (isPlayingRefusal(e)) setPlayingBoth(true);
        else throw e;
      }
    });

  /**
   * The session ended without an answer of this page saying so (a challenge decided during
   * playback, Replay/end from another tab): its outcome from the REST reads that still answer.
   */
  const concluded = async () => {
    const challengeId = metaRef.current.challengeAccountId;
    const [t, a, details] = await Promise.all([
      sim<{ trades: Trade[] }>('Trade/search', { accountId }).catch(() => null),
      sim<{ accounts: Account[] }>('Account/search', {}).catch(() => null),
      challengeId !== null ? loadChallengeDetails().catch(() => null) : null,
    ]);
    if (live.current.over) return;
    const d = details?.find((c) => c.accountId === challengeId) ?? null;
    const reason = d?.status === 'violated' ? 'violated' : d?.status === 'passed' ? 'passed' : 'ended';
    const row = a?.accounts.find((x) => x.id === accountId);
    const account = row ? { balance: row.balance, equity: row.balance, unrealizedPnl: 0, marginUsed: 0, positions: 0, pendingOrders: 0 } : live.current.snap;
    setBook({ positions: [], orders: [], fills: t?.trades ?? live.current.book.fills });
    if (account) setSnap(account);
    if (followsChallenge()) challenge.refresh();
    finish(reason, account, d?.outcome?.message ?? null, t?.trades.length ?? live.current.book.fills.length);
  };

  const onBars = (p: HubBars) =>
    serial(async () => {
      const L = live.current;
      if (L.over) return;
      const drew = await drawTo(p.currentIndex, p.bars.map(apiBar));
      // Bars this page did not answer for (playback, another tab): the snapshot follows the price.
      if (drew && L.book.positions.length) reprice();
      // The session moved (this page's step or jump too): the rule figures with it.
      if (followsChallenge()) challenge.refresh();
      if (p.ended) await concluded();
      else if (L.totalBars > 0 && p.currentIndex >= L.totalBars) reachedEnd();
    }).catch((e) => setControlError(e instanceof Error ? e.message : String(e)));

  const feed = useDeskFeed(accountId, {
    onUser,
    onBars,
    onReconnected(hub) {
      if (!live.current.loaded || live.current.over) return;
      if (hub === 'user') refreshTables();
      syncStatus().catch(() => undefined);
      if (followsChallenge()) challenge.refresh();
    },
  });

  // ---- load: status, history, bars already played, tables ----
  useEffect(() => {
    const el = chartEl.current!;
    const c = new PriceChart(el, { precision: decimals, minMove: tickSize, seconds: meta.timeframe.endsWith('s') });
    chart.current = c;
    let gone = false;
    (async () => {
      // Subscribed first, so nothing that happens during the reads below goes unheard.
      await feed.ready;
      if (gone) return;
      await attempt(setControlError, () =>
        serial(async () => {
          const st = await statusForLoad();
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
          const all = [...history, ...played];
          c.setBars(all);
          c.showLast(160);
          const last = all[all.length - 1];
          if (last) {
            setLastPrice(last.c);
            setLastTime(last.t);
            live.current.lastTime = last.t;
            live.current.lastPrice = last.c;
          }
          live.current.drawn = st.currentIndex;
          await refreshTables();
          applyStatus({ ...st, filledOrders: [], violations: [] });
          if (followsChallenge()) challenge.refresh();
          live.current.loaded = true;
        }),
      );
      if (!gone) setLoading(false);
    })();
    const leave = () => {
      if (live.current.playing && !live.current.over) pauseOnLeave(accountId);
    };
    addEventListener('pagehide', leave);
    return () => {
      gone = true;
      leave();
      removeEventListener('pagehide', leave);
      live.current.playing = false;
      c.destroy();
      chart.current = null;
    };
  }, [accountId]);

  /** The status at load; a session left playing (another tab) is paused to be read. */
  const statusForLoad = async (): Promise<Advance> => {
    try {
      return await readStatus(accountId);
    } catch (e) {
      if (!isPlayingRefusal(e)) throw e;
      await sim('Replay/pause', { accountId });
      setFlash('The session was playing: paused to load it here');
      return readStatus(accountId);
    }
  };

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
        const r = await sim<Advance>('Replay/step', { accountId, steps: n }).catch((e) => {
          if (isPlayingRefusal(e)) setPlayingBoth(true); // started elsewhere: Pause is the way on
          throw e;
        });
        await drawTo(r.currentIndex, r.bars ?? []);
        applyStatus(r);
      }),
    );

  const jump = (targetIso: string) =>
    attempt(setControlError, () =>
      serial(async () => {
        if (live.current.over) return;
        const r = await sim<Advance>('Replay/jumpTo', { accountId, targetTime: targetIso }).catch((e) => {
          if (isPlayingRefusal(e)) setPlayingBoth(true);
          throw e;
        });
        await drawTo(r.currentIndex, null);
        applyStatus(r);
      }),
    );

  /** The server plays at 2 × speed bars a second; the bars come back through the market hub. */
  const play = (v = live.current.speed) =>
    attempt(setControlError, async () => {
      if (live.current.over) return;
      setAtEnd(false);
      setPlayingBoth(true);
      try {
        await sim('Replay/play', { accountId, speed: v });
      } catch (e) {
        setPlayingBoth(false);
        throw e;
      }
    });

  /** Pauses the server's playback; its answer's snapshot is exact, and a status read lines the chart up with it. */
  const pause = () =>
    attempt(setControlError, async () => {
      setPlayingBoth(false);
      const r = await sim<{ account: Snapshot | null; propFirm: PropFirm | null }>('Replay/pause', { accountId });
      if (r.account) serverSnap(r.account);
      if (r.propFirm) setPropFirm(r.propFirm);
      await syncStatus();
    });

  const togglePlay = () => (live.current.playing ? pause() : play());

  /** A new speed while playing restarts the server's playback at it. */
  const changeSpeed = (v: number) => {
    if (live.current.playing && !live.current.over) play(v);
  };

  const end = () =>
    attempt(setControlError, async () => {
      setPlayingBoth(false);
      await serial(async () => {
        const r = await sim<{ ended: boolean; account: (Snapshot & { filledOrders: unknown[] }) | null }>('Replay/end', { accountId });
        const t = await sim<{ trades: Trade[] }>('Trade/search', { accountId }).catch(() => null);
        setBook({ positions: [], orders: [], fills: t?.trades ?? live.current.book.fills });
        if (r.account) setSnap(r.account);
        finish('ended', r.account, null, t?.trades.length ?? 0);
        if (followsChallenge()) challenge.refresh();
      });
    });

  // ---- trading ----
  /**
   * After an order command: the tables follow the user hub's events (a read only when it is down);
   * while paused, a status read gives the exact snapshot (margin, equity at the current price).
   */
  const afterCommand = async () => {
    if (!feed.userUp()) await refreshTables();
    if (!live.current.playing && !live.current.over) await syncStatus().catch(() => undefined);
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
            <span class={`link link-${feed.link}`} data-testid="link" data-state={feed.link} title={LINK_TITLE[feed.link]}>
              {LINK_WORD[feed.link]}
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
              <input
                type="range"
                min={1}
                max={50}
                value={speed}
                onInput={(e) => setSpeed(Number((e.target as HTMLInputElement).value))}
                onChange={(e) => changeSpeed(Number((e.target as HTMLInputElement).value))}
                name="speed"
              />
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
              <button type="submit" disabled={playing || !!over || loading} data-testid="jump" title={playing ? 'Pause to jump' : undefined}>
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

const LINK_WORD: Record<LinkState, string> = { connecting: 'Connecting', up: 'Live', reconnecting: 'Reconnecting…', down: 'Offline' };
const LINK_TITLE: Record<LinkState, string> = {
  connecting: 'Connecting to the real-time hubs',
  up: 'The chart and the tables follow the session as it moves, from any tab',
  reconnecting: 'The real-time connection dropped; reconnecting (the tables are read again once it is back)',
  down: 'No real-time connection: reload the page to try again',
};

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
