// Ownership decided at the edge (a cluster). An endpoint that acts on a live replay session says in
// its declaration where the request names the account (`session`: a body field, or a path
// parameter). Before anything on this node reads the request as that endpoint's (authentication, the
// body's check, the handler), the route asks who runs the session (`Services.owners`, the replay
// registry) and, when another node does, passes the request on as it came (forward.ts), so the owner
// authenticates it, once, and answers it. One node runs every session: nothing is asked.

import type { Services } from '../../service/services.ts';
import { busy } from './envelope.ts';
import { forwardTo, SESSION_MOVING } from './forward.ts';
import type { RequestContext } from './request-context.ts';
import { isBadJson, readLenientBody } from './route.ts';

/**
 * Where a request names the account of the session it acts on: a body field (with `account`, how
 * the field's value names it: the earlier family's order ids `<account>-<order>`), or a path
 * parameter. Read as the endpoint's handler reads it; anything but an integer names none.
 */
export type SessionField<K extends string = string> =
  | { readonly body: K; readonly account?: (value: unknown) => unknown }
  | { readonly path: string };

/** The usual place: the body's `accountId` (a replay account, or a challenge account trading in a session). */
export const ACCOUNT_SESSION = Object.freeze({ body: 'accountId' } as const);

/**
 * The answer to a request whose session another node runs: the owner's (passed on), or 503 moving
 * (its lease is changing hands, or the request already came over a hop: one hop at most). Null when
 * this node serves it: its own session, none live, no account named, or one node.
 */
export async function servedElsewhere(
  s: Services,
  named: SessionField,
  ctx: RequestContext,
  params: Readonly<Record<string, string | undefined>> | undefined,
): Promise<Response | null> {
  if (!s.topology.ownership.clustered) return null;
  const accountId = await accountNamed(named, ctx, params);
  if (accountId === null) return null;
  const owner = await s.owners.ownerOf(accountId);
  if (owner.at === 'here') return null;
  if (owner.at === 'moving' || ctx.forwarded) return busy(1, SESSION_MOVING);
  return forwardTo(s, ctx, owner);
}

/** The account the request names, read leniently from the raw request (the endpoint's own checks come later); null for none. */
async function accountNamed(named: SessionField, ctx: RequestContext, params: Readonly<Record<string, string | undefined>> | undefined): Promise<number | null> {
  let value: unknown;
  if ('path' in named) {
    value = Number(params?.[named.path]);
  } else {
    const body = await readLenientBody(ctx);
    const field = isBadJson(body) ? undefined : body[named.body];
    value = named.account ? named.account(field) : field;
  }
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : null;
}

/** Whether two declarations name a session in the same place (a profile's variants must). */
export function sameSessionField(a: SessionField | undefined, b: SessionField | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if ('path' in a || 'path' in b) return 'path' in a && 'path' in b && a.path === b.path;
  return a.body === b.body && a.account === b.account;
}
