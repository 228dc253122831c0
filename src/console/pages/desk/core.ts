// What every part of a desk session shares: the session's description (meta), the mutable `live`
// record the handlers read synchronously, the one queue that session calls and chart updates go
// through, the account snapshot, the play/end flags, the flash line and the challenge figures.
// The parts (book.ts, session-feed.ts, controls.ts, trading.ts) build on it; session.tsx lays them out.

import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { decimalsOf } from '../../chart.ts';
import { useChallengeDetail } from './challenge.tsx';
import { type Book, EMPTY_BOOK, marginPerContract, type Marks, type Pricing, repriced } from './live.ts';
import { forgetMeta, saveMeta, type SessionMeta, type Snapshot } from './model.ts';

export interface EndResult {
  reason: 'ended' | 'violated' | 'passed';
  account: (Snapshot & { filledOrders?: unknown[] }) | null;
  startingBalance: number | null;
  fills: number;
  message: string | null;
}

/**
 * What the handlers need synchronously: `drawn` is the session index the chart's last bar ends
 * (the bars drawn so far), `perContract` the margin per contract the server last stated.
 */
export interface Live {
  playing: boolean;
  speed: number;
  over: boolean;
  loaded: boolean;
  lastTime: string | null;
  /** The server's clock (ISO), as last stated: the time a jump starts from. */
  clock: string | null;
  lastPrice: number | null;
  drawn: number;
  totalBars: number;
  snap: Snapshot | null;
  perContract: number | null;
  book: Book;
  propFirm: boolean;
  /** The other instruments' last prices (a session over several: pane.tsx), by contract ID. */
  marks: Marks;
}

const newLive = (): Live => ({
  playing: false,
  speed: 5,
  over: false,
  loaded: false,
  lastTime: null,
  clock: null,
  lastPrice: null,
  drawn: 0,
  totalBars: 0,
  snap: null,
  perContract: null,
  book: EMPTY_BOOK,
  propFirm: false,
  marks: {},
});

export interface PriceFormat {
  price: (p: number | null) => string;
}

export type Serial = <T>(f: () => Promise<T>) => Promise<T>;

export interface SessionCore extends Snapshots, Flags {
  meta: SessionMeta;
  metaRef: { current: SessionMeta };
  updateMeta(patch: Partial<SessionMeta>): void;
  accountId: number;
  decimals: number;
  fmt: PriceFormat;
  live: { current: Live };
  /** Runs session calls and chart updates one after the other. */
  serial: Serial;
  flash: string | null;
  setFlash(f: string | null): void;
  controlError: string | null;
  setControlError(e: string | null): void;
  /** What the last replay command did when it is not what was asked (a backward jump, a closed market); cleared by the next. */
  notice: string | null;
  setNotice(n: string | null): void;
  challenge: ReturnType<typeof useChallengeDetail>;
  /** Reads the challenge figures again, when the session trades for a challenge. */
  refreshChallenge(): void;
}

export function useSessionCore(initialMeta: SessionMeta): SessionCore {
  const [meta, setMeta] = useState(initialMeta);
  const metaRef = useRef(meta);
  metaRef.current = meta;
  const live = useRef(newLive());
  const serial = useSerial();
  const decimals = decimalsOf(meta.contract.tickSize);
  const fmt = useMemo(() => ({ price: (p: number | null) => (p === null || p === undefined ? '—' : p.toFixed(decimals)) }), [decimals]);
  const challenge = useChallengeDetail(meta.challengeAccountId);
  const snapshots = useSnapshots(live, meta.contract);
  const flags = useFlags(live, metaRef);
  const [flash, setFlash] = useFlash();
  const [controlError, setControlError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const updateMeta = (patch: Partial<SessionMeta>) => {
    const m = { ...metaRef.current, ...patch };
    metaRef.current = m;
    setMeta(m);
    saveMeta(m);
  };
  const refreshChallenge = () => {
    // A practice branch (branching.ts) shows its own rule state (propFirm), never the challenge's evaluation.
    if (metaRef.current.branch?.practiceOf == null && (metaRef.current.challengeAccountId !== null || live.current.propFirm)) challenge.refresh();
  };
  return {
    ...snapshots,
    ...flags,
    meta,
    metaRef,
    updateMeta,
    accountId: meta.accountId,
    decimals,
    fmt,
    live,
    serial,
    flash,
    setFlash,
    controlError,
    setControlError,
    notice,
    setNotice,
    challenge,
    refreshChallenge,
  };
}

function useSerial(): Serial {
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  return useCallback(<T>(f: () => Promise<T>): Promise<T> => {
    const next = queue.current.then(f, f);
    queue.current = next.catch(() => undefined);
    return next;
  }, []);
}

interface Snapshots {
  snap: Snapshot | null;
  setSnap(s: Snapshot): void;
  /** A snapshot the server answered: exact, and the margin per contract to use until the next. */
  serverSnap(s: Snapshot): void;
  /** The snapshot after the book or the price moved without a server answer. */
  reprice(): void;
}

function useSnapshots(live: { current: Live }, pricing: Pricing): Snapshots {
  const [snap, setSnapState] = useState<Snapshot | null>(null);
  const setSnap = (s: Snapshot) => {
    live.current.snap = s;
    setSnapState(s);
  };
  const serverSnap = (s: Snapshot) => {
    live.current.perContract = marginPerContract(s, live.current.book.positions) ?? live.current.perContract;
    setSnap(s);
  };
  const reprice = () => {
    const L = live.current;
    if (L.snap) setSnap(repriced(L.snap, L.book, L.lastPrice, pricing, L.perContract, L.marks));
  };
  return { snap, setSnap, serverSnap, reprice };
}

interface Flags {
  playing: boolean;
  setPlaying(p: boolean): void;
  atEnd: boolean;
  setAtEnd(b: boolean): void;
  /** Every bar of the session has been played. */
  reachedEnd(): void;
  over: EndResult | null;
  finish(reason: EndResult['reason'], account: EndResult['account'], message: string | null, fillCount: number): void;
}

function useFlags(live: { current: Live }, metaRef: { current: SessionMeta }): Flags {
  const [playing, setPlayingState] = useState(false);
  const [atEnd, setAtEnd] = useState(false);
  const [over, setOver] = useState<EndResult | null>(null);
  const setPlaying = (p: boolean) => {
    live.current.playing = p;
    setPlayingState(p);
  };
  const reachedEnd = () => {
    setAtEnd(true);
    setPlaying(false);
  };
  const finish: Flags['finish'] = (reason, account, message, fillCount) => {
    live.current.over = true;
    setPlaying(false);
    setOver({ reason, account, startingBalance: metaRef.current.startingBalance, fills: fillCount, message });
    forgetMeta(metaRef.current.accountId);
  };
  return { playing, setPlaying, atEnd, setAtEnd, reachedEnd, over, finish };
}

/** A line that says what just happened, cleared after four seconds. */
function useFlash(): [string | null, (f: string | null) => void] {
  const [flash, setFlash] = useState<string | null>(null);
  useEffect(() => {
    if (!flash) return;
    const t = setTimeout(() => setFlash(null), 4000);
    return () => clearTimeout(t);
  }, [flash]);
  return [flash, setFlash];
}
