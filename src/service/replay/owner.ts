// Where the replay service decides which node runs a session. One node owns every session
// (`SingleNode`); in a cluster each is held under a lease (`Leased`, service/cluster/ownership.ts).
// The HTTP edge asks first, before a request naming a session is authenticated or read as its
// endpoint's (`SessionRegistry.ownerOf`, src/http/shared/edge.ts): this node takes a free lease, and
// a request for a session another node holds is passed on there, so it never reaches a service.
// What a service can still meet is a session that stopped being this node's (SessionMoving: a lease
// changing hands since the edge asked, or a session let go while a call waited for it), as the
// commit's fence can (LeaseLost, from `Ownership.fence` in persistence.ts): 503, retry.

import { err, type Result } from '../../lib/result.ts';
import { type Ownership, SessionMoving, type SessionOwner } from '../cluster/ownership.ts';
import type { LiveSession } from './session.ts';

export const HERE: SessionOwner = Object.freeze({ at: 'here' });
const MOVING: SessionOwner = Object.freeze({ at: 'moving' });

/** Who runs the session under `accountId`'s lease, as its claim answers: this node takes a free lease. */
export async function ownerByLease(ownership: Ownership, accountId: number): Promise<SessionOwner> {
  const claim = await ownership.claim(accountId);
  if (claim.owner === 'self') return HERE;
  if (claim.owner === 'moving') return MOVING;
  return { at: 'node', nodeUrl: claim.nodeUrl, accountId, commits: claim.commits };
}

/**
 * Takes the session of `accountId` for this node before loading it. The edge claimed it already for
 * the request (`ownerByLease`); a claim that finds another holder now met a lease changing hands
 * since, or a caller that did not ask the edge: SessionMoving (503, retry).
 */
export async function claimSessionHere(ownership: Ownership, accountId: number): Promise<void> {
  const claim = await ownership.claim(accountId);
  if (claim.owner !== 'self') throw new SessionMoving(accountId);
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
