// Where the replay service decides which node runs a session. One node owns every session
// (`SingleNode`); in a cluster each is held under a lease (`Leased`, service/cluster/ownership.ts).
// A request for a session this node does not hold learns the owner here, and only here: it takes the
// lease, or it throws OwnedElsewhere (the HTTP layer forwards the request to that node) or
// SessionMoving (503, retry). The one other ownership throw is the commit's fence (LeaseLost, from
// `Ownership.fence` in persistence.ts), for a node that lost a lease it held.

import { err, type Result } from '../../lib/result.ts';
import { type Ownership, OwnedElsewhere, SessionMoving } from '../cluster/ownership.ts';
import type { LiveSession } from './session.ts';

/**
 * Takes the session of `accountId` for this node, or throws naming where it is: OwnedElsewhere (the
 * node that holds its lease; the caller forwards there) or SessionMoving (its lease is changing hands).
 */
export async function claimSessionHere(ownership: Ownership, accountId: number): Promise<void> {
  const claim = await ownership.claim(accountId);
  if (claim.owner === 'other') throw new OwnedElsewhere(accountId, claim.nodeUrl, claim.commits);
  if (claim.owner === 'moving') throw new SessionMoving(accountId);
}

/**
 * The answer to a call that waited for a session no longer in memory: it ended (`session_ended`),
 * or, in a cluster, its node let it go (the lease was lost, or a failed commit dropped it to be
 * loaded again): SessionMoving, so the call answers 503 (nothing was done) and its retry finds the
 * session where it runs now, rather than hearing that a live session ended.
 */
export function goneFromThisNode(ownership: Ownership, s: LiveSession): Result<never, { kind: 'session_ended' }> {
  if (ownership.clustered && !s.finalized) throw new SessionMoving(s.accountId);
  return err({ kind: 'session_ended' });
}
