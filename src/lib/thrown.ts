// A `catch` holds whatever was thrown: an Error nearly always, any value at all in principle. Code that
// reports a failure takes an Error; `asError` is where a caught value becomes one.

/** A caught value as an Error: itself when it is one, else an Error carrying the value's text. */
export function asError(e: unknown): Error {
  if (e instanceof Error) return e;
  const error = new Error(String(e));
  // No name: the Error's text (String(error)) is then the value's own, as it was before it was wrapped.
  error.name = '';
  return error;
}
