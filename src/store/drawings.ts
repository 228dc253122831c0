// The trader's chart drawings: horizontal and trend lines, rectangles, horizontal rays, Fibonacci
// retracements and text notes. A session's own are one row per session (replay_drawings); those kept
// for an instrument are one row per user and instrument symbol (instrument_drawings, migration 27),
// listed with every session of that user on that instrument. Each set is written whole (the console
// sends every drawing on each change). Prices are ticks and times epoch seconds, as everywhere below
// http/; a set is JSON in one column because it is only ever read and written together. A session's
// drawings go with its account (ReplayStore.deleteEnded); an instrument's stay with the user.

import type { Sql } from './sql.ts';

export interface TrendLineTicks {
  /** Each end's time (epoch seconds) and price (ticks), in the order the trader clicked them. */
  t1S: number;
  p1Ticks: number;
  t2S: number;
  p2Ticks: number;
}

/** A horizontal ray's origin (it extends right), or a note's anchor. */
export interface PointTicks {
  tS: number;
  pTicks: number;
}

export interface NoteTicks extends PointTicks {
  text: string;
}

export interface Drawings {
  hlinesTicks: number[];
  trends: TrendLineTicks[];
  /** The kinds below: absent when there are none (rows written before them hold lines only). */
  rects?: TrendLineTicks[];
  rays?: PointTicks[];
  /** Start (the 100 % level) and end (0 %), as clicked. */
  fibs?: TrendLineTicks[];
  texts?: NoteTicks[];
}

export interface DrawingsRow extends Drawings {
  updatedMs: number;
}

export const drawingCount = (d: Drawings): number =>
  d.hlinesTicks.length + d.trends.length + (d.rects?.length ?? 0) + (d.rays?.length ?? 0) + (d.fibs?.length ?? 0) + (d.texts?.length ?? 0);

const ints = (xs: unknown): xs is number[] => Array.isArray(xs) && xs.every((x) => Number.isSafeInteger(x));
const tuples = (xs: unknown, n: number): xs is number[][] => xs === undefined || (Array.isArray(xs) && xs.every((x) => ints(x) && x.length === n));
const notes = (xs: unknown): xs is [number, number, string][] =>
  xs === undefined || (Array.isArray(xs) && xs.every((x) => Array.isArray(x) && x.length === 3 && ints(x.slice(0, 2)) && typeof x[2] === 'string'));

const twoEnds = ([t1S, p1Ticks, t2S, p2Ticks]: number[]): TrendLineTicks => ({ t1S, p1Ticks, t2S, p2Ticks });
const endsOf = (t: TrendLineTicks) => [t.t1S, t.p1Ticks, t.t2S, t.p2Ticks];

/** The stored JSON, checked: the store wrote it, so a wrong shape is a broken invariant. */
function parsed(json: string, where: string): Drawings {
  const d = JSON.parse(json) as { h?: unknown; t?: unknown; r?: unknown; y?: unknown; f?: unknown; x?: unknown };
  if (!ints(d.h) || d.t === undefined || !tuples(d.t, 4) || !tuples(d.r, 4) || !tuples(d.y, 2) || !tuples(d.f, 4) || !notes(d.x)) {
    throw new Error(`${where}: malformed ${json.slice(0, 80)}`);
  }
  return {
    hlinesTicks: d.h,
    trends: d.t.map(twoEnds),
    ...(d.r ? { rects: d.r.map(twoEnds) } : {}),
    ...(d.y ? { rays: d.y.map(([tS, pTicks]) => ({ tS, pTicks })) } : {}),
    ...(d.f ? { fibs: d.f.map(twoEnds) } : {}),
    ...(d.x ? { texts: d.x.map(([tS, pTicks, text]) => ({ tS, pTicks, text })) } : {}),
  };
}

/** Compact: one array per drawing (200 drawings stay a few kilobytes); the newer kinds only when there are some. */
function json(d: Drawings): string {
  const some = <T>(xs: T[] | undefined) => (xs && xs.length > 0 ? xs : undefined);
  return JSON.stringify({
    h: d.hlinesTicks,
    t: d.trends.map(endsOf),
    r: some(d.rects)?.map(endsOf),
    y: some(d.rays)?.map((y) => [y.tS, y.pTicks]),
    f: some(d.fibs)?.map(endsOf),
    x: some(d.texts)?.map((x) => [x.tS, x.pTicks, x.text]),
  });
}

export class DrawingsStore {
  constructor(private readonly db: Sql) {}

  /** Runs `fn` in one transaction (a session's and its instrument's drawings written together). */
  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  /** The session's drawings, or null when it has none. */
  async of(accountId: number): Promise<DrawingsRow | null> {
    const r = await this.db.get<{ drawings: string; updated_ms: number }>('SELECT drawings, updated_ms FROM replay_drawings WHERE account_id = $a', { a: accountId });
    return r ? { ...parsed(r.drawings, `replay_drawings ${accountId}`), updatedMs: r.updated_ms } : null;
  }

  /** Replaces the session's drawings; none at all deletes the row. */
  async put(accountId: number, d: Drawings, nowMs: number): Promise<void> {
    if (drawingCount(d) === 0) return this.delete(accountId);
    await this.db.run(
      `INSERT INTO replay_drawings (account_id, drawings, updated_ms) VALUES ($a, $d, $now)
         ON CONFLICT (account_id) DO UPDATE SET drawings = excluded.drawings, updated_ms = excluded.updated_ms`,
      { a: accountId, d: json(d), now: nowMs },
    );
  }

  async delete(accountId: number): Promise<void> {
    await this.db.run('DELETE FROM replay_drawings WHERE account_id = $a', { a: accountId });
  }

  /** The drawings the user keeps for an instrument (every session of it), or null when none. */
  async ofInstrument(userId: number, symbol: string): Promise<DrawingsRow | null> {
    const r = await this.db.get<{ drawings: string; updated_ms: number }>('SELECT drawings, updated_ms FROM instrument_drawings WHERE user_id = $u AND symbol = $s', { u: userId, s: symbol });
    return r ? { ...parsed(r.drawings, `instrument_drawings ${userId} ${symbol}`), updatedMs: r.updated_ms } : null;
  }

  /** Replaces the user's drawings of the instrument; none at all deletes the row. */
  async putInstrument(userId: number, symbol: string, d: Drawings, nowMs: number): Promise<void> {
    if (drawingCount(d) === 0) {
      await this.db.run('DELETE FROM instrument_drawings WHERE user_id = $u AND symbol = $s', { u: userId, s: symbol });
      return;
    }
    await this.db.run(
      `INSERT INTO instrument_drawings (user_id, symbol, drawings, updated_ms) VALUES ($u, $s, $d, $now)
         ON CONFLICT (user_id, symbol) DO UPDATE SET drawings = excluded.drawings, updated_ms = excluded.updated_ms`,
      { u: userId, s: symbol, d: json(d), now: nowMs },
    );
  }
}
