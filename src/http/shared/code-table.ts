// One table per endpoint maps each domain error kind to the family's answer: an envelope row
// (errorCode, errorMessage) on HTTP 200, or a transport row (HTTP 429 or 503 with Retry-After).
// Typing a table `CodeTable<E>` makes a new kind a compile error until it is mapped.
// A message that depends on the error (a function) may carry a third element: its text for the API
// reference (`describeTable`), e.g. `[7, (e) => …, '{startDate|endDate} must be a date in YYYY-MM-DD format']`.

import { busy, failure, tooManyRequests } from './envelope.ts';

export type Kinded = { kind: string };

type Message<E> = string | ((e: E) => string);

export type CodeRow<E> = readonly [number, Message<E>] | readonly [number, Message<E>, string];

/** HTTP 429 / 503 with `Retry-After` taken from the error's `retryAfterS`. */
export interface TransportRow<E> {
  readonly status: 429 | 503;
  readonly message: Message<E>;
  /** The message's text for the API reference when `message` is a function. */
  readonly doc?: string;
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

/** One row of a code table as the API reference shows it. */
export interface TableRow {
  /** The domain error kind the row answers. */
  readonly kind: string;
  /** HTTP status: 200 for envelope rows, 429 or 503 for transport rows. */
  readonly status: 200 | 429 | 503;
  readonly errorCode: number;
  /** The exact message when it is fixed. */
  readonly errorMessage: string | null;
  /** How the message reads: the fixed message, the row's doc text, or "(depends on the request)". */
  readonly text: string;
}

/** The rows of a table, in its declaration order. */
export function describeTable<E extends Kinded>(table: CodeTable<E>): TableRow[] {
  const rows: TableRow[] = [];
  for (const [kind, row] of Object.entries(table) as [string, CodeRow<E> | TransportRow<E>][]) {
    if ('status' in row) {
      const fixed = typeof row.message === 'string' ? row.message : null;
      rows.push({ kind, status: row.status, errorCode: row.status, errorMessage: fixed, text: fixed ?? row.doc ?? '(depends on the request)' });
    } else {
      const fixed = typeof row[1] === 'string' ? row[1] : null;
      rows.push({ kind, status: 200, errorCode: row[0], errorMessage: fixed, text: fixed ?? row[2] ?? '(depends on the request)' });
    }
  }
  return rows;
}
