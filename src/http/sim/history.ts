// History/retrieveBars of the current family. `Accept: application/x-msgpack` gets the same
// envelope in msgpack. A long scan runs in slices (src/service/history.ts), so the handler is async.

import type { Elysia } from 'elysia';
import type { Services } from '../../service/services.ts';
import { barsResponse } from '../shared/bars.ts';
import { mapError } from '../shared/code-table.ts';
import { route } from '../shared/endpoint.ts';
import * as codes from './codes.ts';
import { SIM_POLICY } from './policy.ts';
import * as ep from './schemas.ts';

export function registerHistory<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.retrieveBars, async ({ body, principal, request }) => {
    const r = await s.history.retrieveSliced(principal.user.id, {
      contractId: body.contractId,
      unit: body.unit,
      unitNumber: body.unitNumber,
      startTime: body.startTime,
      endTime: body.endTime,
      limit: body.limit,
    }, SIM_POLICY.history);
    if (!r.ok) return mapError(codes.retrieveBars, r.error);
    return barsResponse(request, r.value.instrument, r.value.bars);
  });
}
