// History/retrieveBars of the current family. `Accept: application/x-msgpack` gets the same
// envelope in msgpack. A long scan runs in slices (src/service/history.ts), so the handler is async.

import type { Services } from '../../service/services.ts';
import { barsResponse } from '../shared/bars.ts';
import { mapError } from '../shared/code-table.ts';
import { authedPost, type App } from '../shared/route.ts';
import * as codes from './codes.ts';

export function registerHistory(app: App, s: Services): void {
  authedPost(app, s, '/History/retrieveBars', async ({ body, principal, request }) => {
    const r = await s.history.retrieveSliced(principal.user.id, {
      contractId: body.contractId,
      unit: body.unit,
      unitNumber: body.unitNumber,
      startTime: body.startTime,
      endTime: body.endTime,
      limit: body.limit,
    });
    if (!r.ok) return mapError(codes.retrieveBars, r.error);
    return barsResponse(request, r.value.instrument, r.value.bars);
  });
}
