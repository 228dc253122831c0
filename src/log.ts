// Plain one-line logs on stderr: time, level, message, key=value fields. Request lines carry the
// method, the path without query string, the status and the milliseconds; never a header or body,
// so tokens and keys cannot reach the log.

import type { Logger } from './app.ts';

function fmt(fields?: Record<string, unknown>): string {
  if (!fields) return '';
  return Object.entries(fields)
    .map(([k, v]) => ` ${k}=${typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v)}`)
    .join('');
}

export function consoleLogger(write: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Logger {
  return {
    info: (msg, fields) => write(`${new Date().toISOString()} INFO ${msg}${fmt(fields)}`),
    error: (msg, fields) => write(`${new Date().toISOString()} ERROR ${msg}${fmt(fields)}`),
  };
}
