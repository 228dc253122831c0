// The integrity check's worker (src/service/integrity-watch.ts): opens the database file read-only
// on a connection of its own and runs PRAGMA quick_check, off the server's main thread (it reads
// every page: seconds per GB, during which bun:sqlite would block the event loop). WAL lets it read
// while the server writes. Answers 'ok' or the first findings.

import { Database } from 'bun:sqlite';

declare const self: Worker;

const FINDINGS_SHOWN = 5;

self.onmessage = (event: MessageEvent<{ path: string }>) => {
  let finding: string;
  try {
    const db = new Database(event.data.path, { readonly: true });
    try {
      const rows = db.query(`PRAGMA quick_check(${FINDINGS_SHOWN})`).all() as { quick_check: string }[];
      finding = rows.map((r) => r.quick_check).join('; ');
    } finally {
      db.close();
    }
  } catch (e) {
    finding = String((e as Error)?.message ?? e);
  }
  self.postMessage({ finding });
};
