// The desk's view of the simulator API: wire shapes (spec: "Resources and their fields"; the ones
// the event folding shares are in wire.ts), the session description the desk keeps per replay
// account, and the bar loads the chart needs.

import type { Static } from '@sinclair/typebox';
import type { Account as Account_ } from '../../../http/shared/schemas.ts';
import type * as simShapes from '../../../http/sim/shapes.ts';
import type * as web from '../../../http/web/shapes.ts';
import { BarUnit, PRESET_TIMEFRAMES, type Timeframe } from '../../../domain/timeframe.ts';
import type { ApiBar } from '../../chart.ts';
import { auth, sim } from '../../api.ts';
import { NO_TRAILS, type TrailMemory } from './trailing.ts';
import type { Order, Position, Snapshot, Trade } from './wire.ts';

export type { Order, Position, Snapshot, Trade };

export type Contract = Static<typeof web.SessionContract>;

export type Account = Pick<Static<typeof Account_>, 'id' | 'name' | 'balance' | 'canTrade'>;

/** propFirm of replay answers. */
export type PropFirm = Static<typeof simShapes.PropFirm>;

export type Violation = Static<typeof simShapes.Violation>;

export type FilledOrder = Static<typeof simShapes.FilledOrder>;

/** What Replay/step and jumpTo answer (step adds `bars`). */
export type Advance = Omit<Static<typeof simShapes.ReplayStepAnswer>, 'bars'> & { bars?: ApiBar[] };

export const ORDER_TYPES = [
  { value: 2, label: 'Market', short: 'MKT' },
  { value: 1, label: 'Limit', short: 'LMT' },
  { value: 4, label: 'Stop', short: 'STP' },
  { value: 3, label: 'Stop-limit', short: 'STP LMT' },
  { value: 5, label: 'Trailing stop', short: 'TRAIL' },
] as const;

export const typeShort = (t: number) => ORDER_TYPES.find((o) => o.value === t)?.short ?? String(t);

/** An order's type as the desk says it: TRAIL for a trailing stop (the spec's view lists it as a stop; the server says which trail: trailing.ts). */
export const shownType = (o: Pick<Order, 'id' | 'type'>, trailing: TrailMemory['orders']) => typeShort(trailing[String(o.id)] === undefined ? o.type : 5);
export const sideWord = (s: number) => (s === 0 ? 'Buy' : 'Sell');

/** The preset timeframes, narrowest first, as the server's domain lists them. */
export const TIMEFRAMES: readonly string[] = PRESET_TIMEFRAMES.map((t) => t.text);

/** History/retrieveBars `unit` of each fixed timeframe unit. */
const HISTORY_UNIT: Partial<Record<Timeframe['unit'], BarUnit>> = { s: BarUnit.Second, m: BarUnit.Minute, h: BarUnit.Hour, d: BarUnit.Day };

/** `5m` → History/retrieveBars unit and unitNumber, and the width in seconds (the domain's canonical preset). */
export function timeframeParts(tf: string): { unit: BarUnit; unitNumber: number; widthS: number } {
  const t = PRESET_TIMEFRAMES.find((p) => p.text === tf);
  const unit = t && HISTORY_UNIT[t.unit];
  if (!t || !unit) throw new Error(`Unsupported timeframe ${tf}`);
  return { unit, unitNumber: t.count, widthS: t.widthS };
}

/**
 * What the desk knows of a session: kept in localStorage per replay account so a session started
 * here can be resumed after a reload with its chart (the API tells a session's account, progress and
 * snapshot, not its instrument, dates or timeframe beyond the account name).
 */
export interface SessionMeta {
  accountId: number;
  accountName: string;
  contract: Contract;
  timeframe: string;
  /** The session's first bar time as the server states it (ISO 8601): midnight UTC for a current-family
   * session, the evening before for one started on trade dates (the earlier family); null when not known. */
  startTime: string | null;
  endDate: string | null;
  historyBars: number;
  /** Open time of the first chart-history bar, as the server states it; null without history. */
  historyStartTime: string | null;
  startingBalance: number | null;
  /** The challenge account the session trades for, if any. */
  challengeAccountId: number | null;
  challengeName: string | null;
  /** Brackets asked for on pending entries (drawn as planned lines until the entry fills). */
  brackets: Record<string, { sl: number | null; tp: number | null }>;
  /** Which working stops trail, as the server last said (trailing.ts): the spec's view lists them as stops. */
  trailing: TrailMemory;
  /** A session over several instruments (Replay/start's instrumentSymbols): all of them, `contract` first (layout-model.ts). */
  instruments?: Contract[];
  /** A branch (Replay/branch): the session it left, the bar close it left from, and the challenge it is practice of (branching.ts). */
  branch?: SessionBranch;
}

/** A branch's origin as the server states it (present only on a branch). */
export type SessionBranch = Static<typeof web.SessionBranch>;

const KEY = (id: number) => `rd.desk.session.${id}`;

export function saveMeta(m: SessionMeta): void {
  try {
    localStorage.setItem(KEY(m.accountId), JSON.stringify(m));
    localStorage.setItem('rd.desk.current', String(m.accountId));
  } catch {
    // Storage full or disabled: resuming then works without the chart history.
  }
}

export function loadMeta(accountId: number): SessionMeta | null {
  try {
    const t = localStorage.getItem(KEY(accountId));
    return t ? (JSON.parse(t) as SessionMeta) : null;
  } catch {
    return null;
  }
}

export function forgetMeta(accountId: number): void {
  try {
    localStorage.removeItem(KEY(accountId));
    localStorage.removeItem(`rd.desk.layout.${accountId}`); // its charts' layout (multi-desk.ts)
    if (localStorage.getItem('rd.desk.current') === String(accountId)) localStorage.removeItem('rd.desk.current');
  } catch {
    // nothing to forget
  }
}

/**
 * The desk leaves a session without ending it: the page opens on the start form next time, and the
 * session (its description kept here) is resumed from the live-sessions list.
 */
export function leaveCurrent(accountId: number): void {
  try {
    if (localStorage.getItem('rd.desk.current') === String(accountId)) localStorage.removeItem('rd.desk.current');
  } catch {
    // nothing to leave
  }
}

export function currentSessionId(): number | null {
  try {
    const v = Number(localStorage.getItem('rd.desk.current'));
    return Number.isInteger(v) && v > 0 ? v : null;
  } catch {
    return null;
  }
}

/** What the server says a live session is (GET /api/auth/replay-sessions/:accountId). */
type SessionInfo = Static<typeof web.SessionInfo>;

/** What the server states of any session, live or ended (the journal's detail states it too). */
type Described = Pick<SessionInfo, 'accountId' | 'name' | 'contract' | 'timeframe' | 'startTime' | 'historyBars' | 'historyStartTime'>;

/** What this browser adds to a session's description: its balance at the start, challenge, plans. */
type Kept = Pick<SessionMeta, 'startingBalance' | 'challengeAccountId' | 'challengeName' | 'brackets' | 'trailing' | 'instruments' | 'branch'>;

/** A session's meta from the server's description of it and what this browser keeps (no end date: the server plays to the data's end). */
export function sessionMeta(d: Described, kept: Kept): SessionMeta {
  const { accountId, name: accountName, contract, timeframe, startTime, historyBars, historyStartTime } = d;
  return { accountId, accountName, contract, timeframe, startTime, endDate: null, historyBars, historyStartTime, ...kept };
}

/**
 * A live session's description from the server, so any browser opens it whole (instrument, span,
 * timeframe, chart history); what this browser planned for it (brackets on pending entries, its
 * trailing stops) is kept.
 */
export async function describeSession(accountId: number): Promise<SessionMeta> {
  const r = await auth<SessionInfo>('GET', `replay-sessions/${accountId}`);
  const known = loadMeta(accountId);
  return sessionMeta(r, {
    startingBalance: r.startingBalance ?? known?.startingBalance ?? null,
    challengeAccountId: r.challenge?.accountId ?? null,
    // A practice branch trades for no challenge: its rules panel names it practice (branching.ts).
    challengeName: r.challenge?.name ?? (r.branch?.practiceOf != null ? `Practice · rules of challenge ${r.branch.practiceOf}` : null),
    brackets: known?.brackets ?? {},
    trailing: known?.trailing ?? NO_TRAILS,
    ...(r.instruments ? { instruments: r.instruments } : {}),
    ...(r.branch ? { branch: r.branch } : {}),
  });
}

/**
 * The chart history before a session's start: the `historyBars` bars from where the server says
 * they begin, in one History request.
 */
export async function loadHistory(meta: SessionMeta): Promise<ApiBar[]> {
  if (!meta.startTime || !meta.historyStartTime || meta.historyBars <= 0) return [];
  const { unit, unitNumber } = timeframeParts(meta.timeframe);
  const startMs = Date.parse(meta.startTime);
  const r = await sim<{ bars: ApiBar[] }>('History/retrieveBars', {
    contractId: meta.contract.id,
    unit,
    unitNumber,
    startTime: meta.historyStartTime,
    endTime: new Date(startMs).toISOString(),
  });
  // Only bars that open before the session's first bar are its history (the server counted the same ones).
  return r.bars.filter((b) => Date.parse(b.t) < startMs).slice(-meta.historyBars);
}

/**
 * `count` session bars after `afterIso` (or from the session's start), read from History: an ended
 * session's played bars (the journal). At most five requests, as long as the server allows.
 */
export function loadPlayed(meta: SessionMeta, afterIso: string | null, count: number): Promise<ApiBar[]> {
  const from = afterIso ? new Date(Date.parse(afterIso) + 1000).toISOString() : meta.startTime;
  return count > 0 && from ? readPages(meta, from, { count }, null) : Promise.resolve([]);
}

/** History pages from `from` on, each starting just after the last bar of the one before, until `count` bars (or all before `endIso`). */
async function readPages(meta: SessionMeta, from: string, wanted: { count: number | null }, endIso: string | null): Promise<ApiBar[]> {
  const { unit, unitNumber, widthS } = timeframeParts(meta.timeframe);
  // A page whose last bar is the last one before endIso ends the reading: no request for an empty page.
  const lastOpenMs = endIso === null ? Infinity : Date.parse(endIso) - widthS * 1000;
  const out: ApiBar[] = [];
  const done = () => (wanted.count !== null && out.length >= wanted.count) || (out.length > 0 && Date.parse(out[out.length - 1].t) >= lastOpenMs);
  for (let page = 0; page < 5 && !done(); page++) {
    const count = wanted.count;
    const r: { bars: ApiBar[] } = await sim<{ bars: ApiBar[] }>('History/retrieveBars', {
      contractId: meta.contract.id,
      unit,
      unitNumber,
      startTime: from,
      ...(endIso ? { endTime: endIso } : {}),
      // The server caps a request at its own bound: the pages are as long as it allows.
      ...(count === null ? {} : { limit: count - out.length }),
    });
    if (r.bars.length === 0) break;
    out.push(...r.bars);
    from = new Date(Date.parse(r.bars[r.bars.length - 1].t) + 1000).toISOString();
  }
  return out;
}

/** What the console's own read of a live session's bars answers (POST /api/auth/replay-sessions/:id/bars). */
export interface SessionBarsRead {
  bars: ApiBar[];
  /** The server's clock, the simulated now, when the bars were read: the one the desk shows. */
  currentTime: string;
  currentIndex: number;
  totalBars: number;
}

/**
 * A live session's bars after `afterIso` (from its chart history's start when null) up to the
 * server's clock, on the console's own budget: never History's, which is the bots'. `symbol`: one
 * instrument of a session over several (its first when null). Pages until
 * the bars reach the clock (a session's bars are at most a few pages).
 */
export async function readSessionBars(accountId: number, afterIso: string | null, symbol: string | null = null): Promise<SessionBarsRead> {
  type Page = SessionBarsRead & { complete: boolean };
  const out: ApiBar[] = [];
  let after = afterIso;
  for (let page = 0; page < 20; page++) {
    const r: Page = await auth<Page>('POST', `replay-sessions/${accountId}/bars`, symbol === null ? { after } : { after, symbol });
    out.push(...r.bars);
    if (r.complete || r.bars.length === 0) return { bars: out, currentTime: r.currentTime, currentIndex: r.currentIndex, totalBars: r.totalBars };
    after = r.bars[r.bars.length - 1].t;
  }
  throw new Error('The session’s bars did not come to an end: reload the page');
}

/**
 * A read of the session's progress and snapshot that changes nothing: a jump to a time before the
 * session is a no-op (spec: forward only) that still answers currentIndex, totalBars, account and
 * propFirm.
 */
export function readStatus(accountId: number): Promise<Advance> {
  return sim<Advance>('Replay/jumpTo', { accountId, targetTime: '2000-01-01T00:00:00Z' });
}

/** The days of data the server holds for an instrument (GET /api/auth/data-ranges): YYYY-MM-DD, UTC. */
export type DataRange = Static<typeof web.DataRange>;

/** Every instrument's days of data, as the server states them. */
export async function loadDataRanges(): Promise<DataRange[]> {
  return (await auth<{ instruments: DataRange[] }>('GET', 'data-ranges')).instruments;
}

/** Bars of a session start, inclusive of its last played time, as ISO of the last bar. */
export function lastBarTime(bars: readonly ApiBar[]): string | null {
  return bars.length ? bars[bars.length - 1].t : null;
}
