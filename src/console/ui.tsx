// Small shared pieces of the console: an error line, money and number formats.

import { formatTime } from './time-format.ts';

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

/**
 * A time as `2025-03-03 14:30:00`, in the time zone chosen in Settings (UTC unless changed): the
 * console's one time format (time-format.ts). The name is older than the setting.
 */
export function utc(iso: string | number | null | undefined): string {
  return formatTime(iso);
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
