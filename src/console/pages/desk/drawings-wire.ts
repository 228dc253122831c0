// The trader's drawings as the console holds them (one list, each with its kind, its points and
// whether it is kept for the instrument) and as the server holds them (a list per kind, GET/PUT
// /api/auth/replay-sessions/:id/drawings), and the writer that sends them whole, one write in
// flight and the newest sent after it (drawings-model.ts).

import type { Static } from '@sinclair/typebox';
import type { SessionDrawings } from '../../../http/web/shapes.ts';
import { ApiError, auth } from '../../api.ts';

/** Horizontal line, trend line, rectangle, horizontal ray, Fibonacci retracement, note. */
export type DrawKind = 'hline' | 'trend' | 'rect' | 'ray' | 'fib' | 'text';
export const DRAW_KINDS: readonly DrawKind[] = ['hline', 'trend', 'rect', 'ray', 'fib', 'text'];

export interface Point {
  /** Epoch seconds (0 for a horizontal line, which has no time). */
  t: number;
  p: number;
}

export interface Drawing {
  kind: DrawKind;
  /** One point (hline, ray, text) or two (trend, rect, fib: in the order clicked). */
  pts: Point[];
  text?: string;
  /** Kept for the instrument (every session of it), not only this session. */
  instrument: boolean;
}

type WireDrawings = Omit<Static<typeof SessionDrawings>, 'accountId' | 'updatedAt'>;
type Scoped = { scope?: string };

const isoOf = (s: number) => new Date(s * 1000).toISOString();
const secondsOf = (iso: string) => Date.parse(iso) / 1000;

/** The server's order: kind by kind, the session's own before the instrument's (a stable sort keeps each group's order). */
export function canonical(ds: readonly Drawing[]): Drawing[] {
  const rank = (d: Drawing) => DRAW_KINDS.indexOf(d.kind) * 2 + (d.instrument ? 1 : 0);
  return [...ds].sort((a, b) => rank(a) - rank(b));
}

export function toWire(ds: readonly Drawing[]): WireDrawings {
  const of = (k: DrawKind) => canonical(ds).filter((d) => d.kind === k);
  const scope = (d: Drawing) => (d.instrument ? { scope: 'instrument' } : {});
  const ends = (d: Drawing) => ({ startTime: isoOf(d.pts[0].t), startPrice: d.pts[0].p, endTime: isoOf(d.pts[1].t), endPrice: d.pts[1].p, ...scope(d) });
  const at = (d: Drawing) => ({ time: isoOf(d.pts[0].t), price: d.pts[0].p, ...scope(d) });
  return {
    horizontalLines: of('hline').map((d) => ({ price: d.pts[0].p, ...scope(d) })),
    trendLines: of('trend').map(ends),
    rectangles: of('rect').map(ends),
    rays: of('ray').map(at),
    fibRetracements: of('fib').map(ends),
    texts: of('text').map((d) => ({ ...at(d), text: d.text ?? '' })),
  };
}

export function fromWire(w: WireDrawings): Drawing[] {
  const instrument = (x: Scoped) => x.scope === 'instrument';
  const ends = (kind: DrawKind) => (x: WireDrawings['trendLines'][number]) => ({
    kind,
    pts: [{ t: secondsOf(x.startTime), p: x.startPrice }, { t: secondsOf(x.endTime), p: x.endPrice }],
    instrument: instrument(x),
  });
  return canonical([
    ...w.horizontalLines.map((h) => ({ kind: 'hline' as const, pts: [{ t: 0, p: h.price }], instrument: instrument(h) })),
    ...w.trendLines.map(ends('trend')),
    ...(w.rectangles ?? []).map(ends('rect')),
    ...(w.rays ?? []).map((y) => ({ kind: 'ray' as const, pts: [{ t: secondsOf(y.time), p: y.price }], instrument: instrument(y) })),
    ...(w.fibRetracements ?? []).map(ends('fib')),
    ...(w.texts ?? []).map((x) => ({ kind: 'text' as const, pts: [{ t: secondsOf(x.time), p: x.price }], text: x.text, instrument: instrument(x) })),
  ]);
}

const drawingsPath = (accountId: number) => `replay-sessions/${accountId}/drawings`;

export async function fetchDrawings(accountId: number): Promise<Drawing[]> {
  return fromWire(await auth<WireDrawings>('GET', drawingsPath(accountId)));
}

export interface Saved {
  /** The drawings the server holds, as it answered them. */
  drawings: Drawing[];
  problem: string | null;
}

/**
 * The PUT's body: the instrument's drawings (every session's of it) are sent, with instrumentDrawings,
 * only when this write changes them; otherwise the server keeps them as they are, so a tab that read
 * them earlier never undoes what another session of the instrument added since.
 */
function writeBody(d: readonly Drawing[], kept: readonly Drawing[]): WireDrawings & { instrumentDrawings?: boolean } {
  const same = JSON.stringify(toWire(d.filter((x) => x.instrument))) === JSON.stringify(toWire(kept.filter((x) => x.instrument)));
  return same ? toWire(d.filter((x) => !x.instrument)) : { ...toWire(d), instrumentDrawings: true };
}

/** Writes the newest drawings, one write in flight; `done` hears each answer (or failure). `kept`: what the server holds now. */
export function drawingsWriter(accountId: number, kept: Drawing[], done: (s: Saved) => void): (d: Drawing[]) => void {
  let inFlight = false;
  let next: Drawing[] | null = null;
  const send = async (d: Drawing[]): Promise<void> => {
    inFlight = true;
    try {
      kept = fromWire(await auth<WireDrawings>('PUT', drawingsPath(accountId), writeBody(d, kept), { keepalive: true }));
      if (!next) done({ drawings: kept, problem: null });
    } catch (e) {
      const refused = e instanceof ApiError && e.status === 200;
      // Refused: the server's drawings are the truth. Unreachable: keep what the trader drew, say so.
      if (!next) done({ drawings: refused ? kept : d, problem: refused ? e.message : `Drawings not saved: ${(e as Error).message}` });
    } finally {
      inFlight = false;
      const n = next;
      next = null;
      if (n) void send(n);
    }
  };
  return (d) => {
    if (inFlight) next = d;
    else void send(d);
  };
}
