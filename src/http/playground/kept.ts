// A body whose `keep` fields (src/http/shared/endpoint.ts: the value as sent, typed `unknown` there)
// are handed to a service typed as what they are: JSON.parse's values (the body is read as JSON,
// http/shared/route.ts `readLenientBody`), or undefined when absent. The services narrow them.

import type { Json } from '../../lib/json.ts';

/** `B` with each field typed `unknown` (a `keep` rule's) typed `Json | undefined`. */
export type Kept<B> = { [K in keyof B]: unknown extends B[K] ? Json | undefined : B[K] };

/** The body itself: only its type changes. */
export function kept<B>(body: B): Kept<B> {
  return body as Kept<B>;
}
