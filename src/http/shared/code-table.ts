// One table per endpoint maps each domain error kind to the family's answer: an envelope row
// (errorCode, errorMessage) on HTTP 200, or a transport row (HTTP 429 or 503 with Retry-After).
// `satisfies CodeTable<E>` makes a new kind a compile error until it is mapped.

import { busy, failure, tooManyRequests } from './envelope.ts';

type Kinded = { kind: string };

type Message<E> = string | ((e: E) => string);

export type CodeRow<E> = readonly [number, Message<E>];

/** HTTP 429 / 503 with `Retry-After` taken from the error's `retryAfterS`. */
export interface TransportRow<E> {
  readonly status: 429 | 503;
  readonly message: Message<E>;
}

export type CodeTable<E extends Kinded> = {
  [K in E['kind']]: CodeRow<Extract<E, { kind: K }>> | TransportRow<Extract<E, { kind: K }>>;
};

export const TOO_MANY_REQUESTS = { status: 429, message: 'Too many requests' } as const;

function text<E>(m: Message<E>, e: E): string {
  return typeof m === 'function' ? m(e) : m;
}

/** Turns a domain error into the family's Response through its endpoint table. */
export function mapError<E extends Kinded>(table: CodeTable<E>, e: E, fields: Record<string, unknown> = {}): Response {
  const row = table[e.kind as E['kind']] as CodeRow<E> | TransportRow<E>;
  if ('status' in row) {
    const retryAfterS = (e as unknown as { retryAfterS: number }).retryAfterS;
    return row.status === 429 ? tooManyRequests(retryAfterS, text(row.message, e), fields) : busy(retryAfterS, text(row.message, e), fields);
  }
  return failure(row[0], text(row[1], e), fields);
}
