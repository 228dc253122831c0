// Round-trip statistics as the server words them (http/shared/present-common.ts `presentStats`, in
// USD): one shape for a playground run's results and a replay session's, the server's schema's type.

import type { Static } from '@sinclair/typebox';
import type { RunResults } from '../http/shared/schemas.ts';

export type WireRunStats = Static<typeof RunResults>;
