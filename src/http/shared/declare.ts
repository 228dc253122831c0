// Endpoint declarations several families write alike, built once. The simulator families' calls
// are bearer POSTs; most of them act on an account that the service looks up first (`accountId`
// first in the body and in the field rules, a non-integer answered `Account not found`), and most of
// those on the live session that account runs (`session`: edge.ts forwards the request to the node
// running it). Every endpoint is declared by its route, `'GET /strategies/:id'`, its
// authentication and its summary (the line the API reference shows); many (reads, and POSTs that
// carry nothing) have no request fields.

import type { TProperties, TSchema } from '@sinclair/typebox';
import type { Auth } from './auth-table.ts';
import type { CodeTable, Kinded } from './code-table.ts';
import { ACCOUNT_SESSION, defineEndpoint, type Endpoint, type EndpointSpec, type FieldRules, type Method } from './endpoint.ts';
import { AccountId } from './schemas.ts';

type Route = `${Method} /${string}`;
type PathOf<Rt extends Route> = Rt extends `${string} ${infer P}` ? P : never;

/** Request fields and their rules, or neither (an endpoint without request fields). */
type Fields<Req, R> = { readonly request?: undefined; readonly fields?: undefined } | { readonly request: Req; readonly fields: R };

/** An endpoint by its route, authentication and summary; without `request` it has no request fields. */
export function endpoint<
  const Rt extends Route,
  const A extends Auth,
  const Req extends TProperties = {},
  const Res extends TSchema = TSchema,
  E extends Kinded = Kinded,
  const R extends FieldRules<Req, E> = FieldRules<Req, E>,
>(
  route: Rt,
  auth: A,
  summary: string,
  spec: Omit<EndpointSpec<A, Req, Res, E, R>, 'method' | 'path' | 'auth' | 'summary' | 'request' | 'fields'> & Fields<Req, R>,
): Endpoint<A, Req, Res, E, R, PathOf<Rt>> {
  const space = route.indexOf(' ');
  const { request = {}, fields = {}, ...rest } = spec;
  return defineEndpoint({ method: route.slice(0, space) as Method, path: route.slice(space + 1), auth, summary, ...rest, request, fields } as never) as never;
}

export const ACCOUNT_NOT_FOUND = { kind: 'account_not_found' } as const;
type NotFound = typeof ACCOUNT_NOT_FOUND;

type WithAccount<Req extends TProperties> = { accountId: typeof AccountId } & Req;
type AccountRules<R> = { readonly accountId: { readonly refuse: NotFound } } & R;

/** What the caller writes: the endpoint less what the builder sets. */
type Rest<A extends Auth, Req extends TProperties, Res extends TSchema, E extends Kinded, R extends FieldRules<Req, E>> = Omit<
  EndpointSpec<A, Req, Res, E, R>,
  'method' | 'path' | 'auth' | 'summary' | 'request' | 'fields' | 'session'
>;

/** The spec of an account endpoint: its own fields after `accountId`; its code table answers `account_not_found`. */
type AccountSpec<Req extends TProperties, Res extends TSchema, E extends Kinded, R extends FieldRules<Req, E>> = Rest<'bearer', Req, Res, E, R> & {
  readonly errors: CodeTable<E> & Record<NotFound['kind'], unknown>;
} & Fields<Req, R>;

type AccountEndpoint<Req extends TProperties, Res extends TSchema, E extends Kinded, R, Path extends string> = Endpoint<
  'bearer',
  WithAccount<Req>,
  Res,
  E | NotFound,
  AccountRules<R> & FieldRules<WithAccount<Req>, E | NotFound>,
  Path
>;

function account(path: string, summary: string, spec: AccountSpec<TProperties, TSchema, Kinded, FieldRules<TProperties, Kinded>>, onSession: boolean) {
  const { request = {}, fields = {}, ...rest } = spec;
  return defineEndpoint({
    method: 'POST',
    path,
    auth: 'bearer',
    ...(onSession ? { session: ACCOUNT_SESSION } : {}),
    summary,
    ...rest,
    request: { accountId: AccountId, ...request },
    fields: { accountId: { refuse: ACCOUNT_NOT_FOUND }, ...fields },
  });
}

/** The builder of account endpoints, on the account's live session or not. */
const accountBuilder =
  (onSession: boolean) =>
  <const Path extends string, const Req extends TProperties = {}, const Res extends TSchema = TSchema, E extends Kinded = Kinded, const R extends FieldRules<Req, E> = FieldRules<Req, E>>(
    path: Path,
    summary: string,
    spec: AccountSpec<Req, Res, E, R>,
  ): AccountEndpoint<Req, Res, E, R, Path> =>
    account(path, summary, spec as never, onSession) as never;

/** A bearer POST on an account (`accountId` checked first), not tied to its live session. */
export const accountPost = accountBuilder(false);

/** A bearer POST on the live session of an account (`accountId` checked first; in a cluster, served by the session's node). */
export const sessionPost = accountBuilder(true);
