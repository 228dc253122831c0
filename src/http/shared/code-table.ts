// One table per endpoint maps each domain error kind to the family's (errorCode, errorMessage).
// `satisfies CodeTable<E>` makes a new kind a compile error until it is mapped.

import { busy, failure, tooManyRequests } from './envelope.ts';

type Kinded = { kind: string };

export type CodeRow<E> = readonly [number, string | ((e: E) => string)];

export type CodeTable<E extends Kinded> = {
  [K in E['kind']]: CodeRow<Extract<E, { kind: K }>> | 'rate_limited' | 'busy';
};

/** Turns a domain error into the family's Response through its endpoint table. */
export function mapError<E extends Kinded>(table: CodeTable<E>, e: E, fields: Record<string, unknown> = {}): Response {
  const row = table[e.kind as E['kind']] as CodeRow<E> | 'rate_limited' | 'busy';
  if (row === 'rate_limited') {
    const r = e as unknown as { retryAfterS: number; message?: string };
    return tooManyRequests(r.retryAfterS, r.message ?? 'Too many requests');
  }
  if (row === 'busy') {
    const r = e as unknown as { retryAfterS: number; message?: string };
    return busy(r.retryAfterS, r.message);
  }
  const [code, message] = row;
  return failure(code, typeof message === 'function' ? message(e) : message, fields);
}
