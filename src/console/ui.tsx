// Small shared pieces of the console: an error line, money and number formats.

export function ErrorLine({ error }: { error: string | null | undefined }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** $1,234.56 / -$12.00 */
export function money(v: number | null | undefined): string {
  return v === null || v === undefined || Number.isNaN(v) ? '—' : usd.format(v);
}

/** A class for coloring a signed amount. */
export function signClass(v: number | null | undefined): string {
  return !v ? '' : v > 0 ? 'pos' : 'neg';
}

/** Time in UTC as `2025-03-03 14:30:00`. */
export function utc(iso: string | number | null | undefined): string {
  if (iso === null || iso === undefined) return '—';
  const d = typeof iso === 'number' ? new Date(iso) : new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toISOString().slice(0, 19).replace('T', ' ');
}

/** Runs an async action, reporting its ApiError message through `setError`. */
export async function attempt<T>(setError: (e: string | null) => void, f: () => Promise<T>): Promise<T | undefined> {
  setError(null);
  try {
    return await f();
  } catch (e) {
    setError(e instanceof Error ? e.message : String(e));
    return undefined;
  }
}
