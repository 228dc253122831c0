// The console's one time format, in the time zone the trader chose in Settings: UTC (the default),
// the exchange's time (America/Chicago, where CME futures settle), New York, or the browser's own.
// Every time the console writes reads `YYYY-MM-DD HH:MM:SS`, 24-hour, in that zone, and names the
// zone where a heading or a clock needs it (`zoneLabel`). The server speaks ISO 8601 UTC throughout;
// only this module turns it into the trader's zone, and back (`parseZoned`, for times typed in).
// The choice is this browser's (localStorage), like the other display preferences (pages/settings/display.tsx).

export const TIME_ZONES = [
  { value: 'UTC', label: 'UTC' },
  { value: 'America/Chicago', label: 'Exchange time (Chicago, CT)' },
  { value: 'America/New_York', label: 'New York (ET)' },
  { value: 'browser', label: 'This browser’s time zone' },
] as const;

export type TimeZoneChoice = (typeof TIME_ZONES)[number]['value'];

const KEY = 'rd.timeZone';
const SHORT: Record<string, string> = { UTC: 'UTC', 'America/Chicago': 'CT', 'America/New_York': 'ET' };

function stored(): TimeZoneChoice {
  try {
    const v = localStorage.getItem(KEY);
    return TIME_ZONES.some((z) => z.value === v) ? (v as TimeZoneChoice) : 'UTC';
  } catch {
    return 'UTC';
  }
}

let choice: TimeZoneChoice = stored();
let formatter: Intl.DateTimeFormat | null = null;

/** The chosen zone as Settings shows it. */
export function timeZoneChoice(): TimeZoneChoice {
  return choice;
}

/** Chooses the zone for every time shown from now on (pages re-render on their next update). */
export function setTimeZone(z: TimeZoneChoice): void {
  choice = z;
  formatter = null;
  try {
    localStorage.setItem(KEY, z);
  } catch {}
}

/** The IANA name of the zone in use (the browser's resolved when so chosen). */
export function timeZoneName(): string {
  return choice === 'browser' ? Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC' : choice;
}

/** A short name for headings and the clock: UTC, CT, ET, or the browser zone's IANA name. */
export function zoneLabel(): string {
  const name = timeZoneName();
  return SHORT[name] ?? name;
}

function parts(ms: number): Record<string, string> {
  formatter ??= new Intl.DateTimeFormat('en-CA', {
    timeZone: timeZoneName(),
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  const out: Record<string, string> = {};
  for (const p of formatter.formatToParts(new Date(ms))) out[p.type] = p.value;
  return out;
}

/** `2025-03-03 08:30:00` in the chosen zone, from ISO 8601 or epoch milliseconds; '—' for none. */
export function formatTime(t: string | number | null | undefined): string {
  if (t === null || t === undefined) return '—';
  const ms = typeof t === 'number' ? t : Date.parse(t);
  if (Number.isNaN(ms)) return String(t);
  if (timeZoneName() === 'UTC') return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
  const p = parts(ms);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

/** The zone's offset from UTC at instant `ms`, in milliseconds (Chicago in winter: −6 h). */
function offsetMs(ms: number): number {
  const local = formatTime(ms);
  return Date.parse(`${local.replace(' ', 'T')}Z`) - Math.floor(ms / 1000) * 1000;
}

/**
 * A wall time in the chosen zone (`YYYY-MM-DD HH:MM[:SS]`) as ISO 8601 UTC; null when it is not
 * such a time. A repeated wall time (the autumn change) reads as its first occurrence; one the
 * clocks skip (the spring change) reads an hour off, as no instant bears it.
 */
export function parseZoned(text: string): string | null {
  const m = /^\s*(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?Z?\s*$/.exec(text);
  if (!m) return null;
  const wall = `${m[1]}T${m[2]}:${m[3]}:${m[4] ?? '00'}Z`;
  const wallMs = Date.parse(wall);
  // Date.parse rolls 25:00 or 02-30 over instead of refusing: a round trip catches it.
  if (Number.isNaN(wallMs) || new Date(wallMs).toISOString().slice(0, 19) !== wall.slice(0, 19)) return null;
  // Two passes: the offset at the first guess, then at the instant it gives.
  let ms = wallMs - offsetMs(wallMs);
  ms = wallMs - offsetMs(ms);
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

/**
 * A chart axis label in the chosen zone, for lightweight-charts' tick mark kinds (0 year, 1 month,
 * 2 day of month, 3 time, 4 time with seconds). The chart places its marks on UTC boundaries, so a
 * day's mark names its wall time too when the zone's day does not begin there (`03-04 18:00` in
 * Chicago): every label is the instant it marks, in the zone the clock shows.
 */
export function zonedTickMark(epochS: number, kind: number): string {
  const t = formatTime(epochS * 1000);
  if (kind === 0) return t.slice(0, 4);
  if (kind === 1) return t.slice(0, 7);
  if (kind === 2) return t.slice(11, 16) === '00:00' ? t.slice(5, 10) : `${t.slice(5, 10)} ${t.slice(11, 16)}`;
  return kind === 4 ? t.slice(11, 19) : t.slice(11, 16);
}
