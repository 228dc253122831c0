// A table's raw row as a type, written once: the fields of the row type a store answers, under their
// snake_case column names, with the columns stored differently from their field (0/1 for a boolean,
// JSON text) given apart. The store's `toX` functions still map each column by hand.

/** `createdMs` → `created_ms`. */
export type SnakeCase<S extends string> = S extends `${infer C}${infer Rest}`
  ? `${C extends Lowercase<C> ? C : `_${Lowercase<C>}`}${SnakeCase<Rest>}`
  : S;

/** The columns of a table of `Row`s: each field under its column name, but those `Stored` names otherwise. */
export type Columns<Row, Stored = Record<never, never>> =
  Omit<{ [K in keyof Row & string as SnakeCase<K>]: Row[K] }, keyof Stored> & Stored;
