// Small shared pieces of the console: an error line, a figure, a labelled select, a table's header
// row, money and number formats.

import type { ComponentChildren } from 'preact';
import { formatTime } from './time-format.ts';

export function ErrorLine({ error }: { error: string | null | undefined }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}

/** A labelled figure of a stats strip (`.stats`, `.pg-stats`, `.ch-figs`). */
export function Stat({ label, value, cls, testid }: { label: string; value: ComponentChildren; cls?: string; testid?: string }) {
  return (
    <div class="stat">
      <div class="label">{label}</div>
      <div class={`value ${cls ?? ''}`} data-testid={testid}>
        {value}
      </div>
    </div>
  );
}

/** A choice of a select: its value, and the words shown when they differ from it. */
export type Choice = string | { value: string; label: string };

/** A select under its label; `onPick` hears the value chosen. */
export function LabelledSelect({ label, name, value, choices, onPick }: { label: string; name: string; value: string; choices: readonly Choice[]; onPick: (value: string) => void }) {
  return (
    <label>
      {label}
      <select name={name} value={value} onChange={(e) => onPick(e.currentTarget.value)}>
        {choices.map((c) => {
          const [v, words] = typeof c === 'string' ? [c, c] : [c.value, c.label];
          return (
            <option key={v} value={v}>
              {words}
            </option>
          );
        })}
      </select>
    </label>
  );
}

/** A column of a table's header row: its heading, right-aligned (`num`) for figures. */
export type Column = string | { num: string };

/** A table's header row, one `th` a column (`''` for an unnamed one). */
export function THead({ columns }: { columns: readonly Column[] }) {
  return (
    <thead>
      <tr>
        {columns.map((c, i) =>
          typeof c === 'string' ? (
            <th key={i}>{c}</th>
          ) : (
            <th key={i} class="num">
              {c.num}
            </th>
          ),
        )}
      </tr>
    </thead>
  );
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
