// The WAL checkpointer's thread (src/store/wal-checkpoints.ts): a connection of its own to the server's
// SQLite file that copies the WAL's committed pages into the database file (`PRAGMA
// wal_checkpoint(PASSIVE)`: it never waits for nor blocks the server's writers) every `intervalMs`
// and when asked. Its fsyncs and page copies are what the server's own commit did every 1,000 pages
// on the event loop before. A pass that writers outran is followed by up to CATCH_UP_PASSES more, so
// the WAL is often wholly copied and the next writer starts it over from its beginning.

import { Database } from 'bun:sqlite';

declare const self: Worker;

export type CheckpointRequest = { kind: 'open'; path: string; intervalMs: number } | { kind: 'now'; id: number } | { kind: 'stop' };
export type CheckpointReply = { kind: 'done'; id: number; log: number; checkpointed: number } | { kind: 'error'; id: number | null; message: string } | { kind: 'stopped' };

const CATCH_UP_PASSES = 3;

let db: Database | null = null;
let timer: ReturnType<typeof setInterval> | null = null;

/** One checkpoint, then catch-up passes while writers added frames meanwhile: the WAL's frames, and how many are in the file. */
function checkpoint(): { log: number; checkpointed: number } {
  let r = { busy: 0, log: 0, checkpointed: 0 };
  for (let pass = 0; pass <= CATCH_UP_PASSES; pass++) {
    r = db!.query('PRAGMA wal_checkpoint(PASSIVE)').get() as typeof r;
    if (r.log <= 0 || r.checkpointed >= r.log) break;
  }
  return { log: r.log, checkpointed: r.checkpointed };
}

function tick(): void {
  try {
    checkpoint();
  } catch (e) {
    self.postMessage({ kind: 'error', id: null, message: String((e as Error)?.message ?? e) } satisfies CheckpointReply);
  }
}

self.onmessage = (event: MessageEvent<CheckpointRequest>) => {
  const m = event.data;
  if (m.kind === 'open') {
    db = new Database(m.path);
    // As the server's connection: a checkpoint syncs the WAL before copying and the file after.
    db.exec('PRAGMA synchronous = NORMAL');
    timer = setInterval(tick, m.intervalMs);
  } else if (m.kind === 'now') {
    try {
      self.postMessage({ kind: 'done', id: m.id, ...checkpoint() } satisfies CheckpointReply);
    } catch (e) {
      self.postMessage({ kind: 'error', id: m.id, message: String((e as Error)?.message ?? e) } satisfies CheckpointReply);
    }
  } else {
    if (timer) clearInterval(timer);
    db?.close();
    db = null;
    self.postMessage({ kind: 'stopped' } satisfies CheckpointReply);
  }
};
