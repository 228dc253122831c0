// The console's start form asks which days a replay may start on: the server states the data it
// holds per instrument (the synthetic span joined with imported days, `BarSource.range`) instead of
// the browser deriving it from a History read, which the spec caps at 365 day bars. Endpoint
// declared in schemas.ts.

import type { Elysia } from 'elysia';
import { dayToDateString } from '../../lib/iso-time.ts';
import type { Services } from '../../service/services.ts';
import { route } from '../shared/endpoint.ts';
import * as ep from './schemas.ts';

export function registerDataRanges<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.dataRanges, () =>
    ep.dataRanges.ok({
      instruments: s.contracts.search(null).map((c) => {
        const r = s.bars.range(c.instrument);
        return { symbol: c.instrument.symbol, contractId: c.id, firstDate: dayToDateString(r.firstDay), lastDate: dayToDateString(r.lastDay) };
      }),
    }),
  );
}
