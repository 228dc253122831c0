// The marker of a request field that failed its schema and is left for the service to refuse in
// its own order of checks (the `defer` field rule of http/shared/endpoint.ts). It lives below the
// services so that their typed inputs can name it: a service receives a field either typed as its
// schema says or as `INVALID`, and checks it once.

declare const invalidBrand: unique symbol;
/** A request field that failed its schema and is left for the service to refuse (`defer` rule). */
export interface Invalid {
  readonly [invalidBrand]: true;
}
/** The value a deferred field that failed its schema has; every service check refuses it. */
export const INVALID = Object.freeze({ toString: () => '(invalid)' }) as unknown as Invalid;

/** Whether a field is the marker (a type guard: `=== INVALID` alone does not narrow the field's type). */
export function isInvalid(v: unknown): v is Invalid {
  return v === INVALID;
}
