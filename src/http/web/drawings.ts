// A replay session's chart drawings (GET and PUT /api/auth/replay-sessions/:accountId/drawings):
// horizontal and trend lines kept with the session (src/service/drawings.ts). Prices in the
// instrument's units, times ISO 8601 UTC. Endpoints declared in schemas.ts.

import type { Static } from '@sinclair/typebox';
import type { Elysia } from 'elysia';
import { ticksToPrice } from '../../domain/instrument.ts';
import { isoFromEpochMs, isoFromEpochS, parseIsoMs } from '../../lib/iso-time.ts';
import type { DrawingsInput, SessionDrawings } from '../../service/drawings.ts';
import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { route } from '../shared/endpoint.ts';
import * as codes from './codes.ts';
import * as ep from './schemas.ts';

function present(accountId: number, d: SessionDrawings) {
  const price = (ticks: number) => ticksToPrice(d.inst, ticks);
  return {
    accountId,
    horizontalLines: d.drawings.hlinesTicks.map((t) => ({ price: price(t) })),
    trendLines: d.drawings.trends.map((t) => ({ startTime: isoFromEpochS(t.t1S), startPrice: price(t.p1Ticks), endTime: isoFromEpochS(t.t2S), endPrice: price(t.p2Ticks) })),
    updatedAt: d.updatedMs === null ? null : isoFromEpochMs(d.updatedMs),
  };
}

/** The request's lines with times in epoch seconds (whole seconds, as bars are), or null when a time is not ISO 8601. */
function parsed(body: { horizontalLines: Static<typeof ep.HorizontalLine>[]; trendLines: Static<typeof ep.TrendLine>[] }): DrawingsInput | null {
  const seconds = (iso: string) => {
    const ms = parseIsoMs(iso);
    return ms === undefined ? Number.NaN : Math.floor(ms / 1000);
  };
  const trends = body.trendLines.map((t) => ({ t1S: seconds(t.startTime), p1: t.startPrice, t2S: seconds(t.endTime), p2: t.endPrice }));
  if (trends.some((t) => Number.isNaN(t.t1S) || Number.isNaN(t.t2S))) return null;
  return { hlines: body.horizontalLines.map((h) => h.price), trends };
}

export function registerDrawings<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.drawings, async ({ params, user }) => {
    const accountId = Number(params.accountId);
    const r = await s.drawings.read(user.id, accountId);
    if (!r.ok) return mapError(codes.drawingsRead, r.error);
    return ep.drawings.ok(present(accountId, r.value));
  });

  route(app, s, ep.drawingsReplace, async ({ params, body, user }) => {
    const accountId = Number(params.accountId);
    const input = parsed(body);
    if (!input) return mapError(codes.drawingsReplace, { kind: 'invalid_drawings' });
    const r = await s.drawings.replace(user.id, accountId, input);
    if (!r.ok) return mapError(codes.drawingsReplace, r.error);
    return ep.drawingsReplace.ok(present(accountId, r.value));
  });
}
