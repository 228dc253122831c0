// Pages of the SQLite file garbled while the server runs: the periodic PRAGMA quick_check (in a
// worker, off the request path) notices, /health turns degraded with `database: "error"`, and the
// log gets one line however many checks fail; the start-time check alone let such a file be served.

import { expect, it } from 'bun:test';
import { mkdtempSync, openSync, writeSync, closeSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, type Logger, storeHealthFor } from '../../src/app.ts';
import { IntegrityWatch } from '../../src/service/integrity-watch.ts';
import { makeApp, readReply } from '../support/app.ts';

it('a file garbled after the start: the periodic check turns /health degraded and logs once', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'rd-integrity-')), 'replaydesk.db');
  const t = await makeApp({ dbPath: path });
  const errors: string[] = [];
  const log: Logger = { info() {}, error: (message) => void errors.push(message) };
  const store = storeHealthFor(t.s, log);
  const app = buildApp(t.s, log, store);
  const watch = new IntegrityWatch({ path, intervalMs: 60_000, timeoutMs: 120_000 }, store);
  const health = async () => readReply(await app.handle(new Request('http://localhost/health')));

  expect(await watch.checkNow()).toBeNull();
  expect((await health()).status).toBe(200);

  // Everything in the main file, then every page but the header's overwritten.
  t.s.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const size = statSync(path).size;
  const fd = openSync(path, 'r+');
  const junk = Buffer.alloc(4096, 0xa7);
  for (let at = 4096; at < size; at += 4096) writeSync(fd, junk, 0, junk.length, at);
  closeSync(fd);

  const finding = await watch.checkNow();
  expect(finding).not.toBeNull();
  const h = await health();
  expect(h.status).toBe(503);
  expect(h.body).toMatchObject({ status: 'degraded', database: 'error' });
  expect(await watch.checkNow()).not.toBeNull();
  expect(errors).toEqual(['store: the integrity check (PRAGMA quick_check) failed; /health answers degraded']);
  await t.s.shutdown();
  t.s.db.close();
}, 120_000);
