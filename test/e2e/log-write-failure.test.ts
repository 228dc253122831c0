// Logging never takes the server down: the real server process with its stderr on a device that is
// always full (/dev/full: every write fails with ENOSPC, as a full disk under a log file does) starts,
// answers and stops cleanly; before, it exited at its first log line. The line writer alone: dropped
// lines are counted and said once, when writing works again, and a reader that stops reading makes
// lines drop instead of piling up.

import { describe, expect, it } from 'bun:test';
import { closeSync, mkdtempSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LineWriter, type LogSink } from '../../src/log.ts';
import { RUNNER_TEST_CACHE } from '../support/playground.ts';

const ROOT = join(import.meta.dir, '..', '..');

/** A sink that fails while `failing` holds, and keeps what it wrote. */
function fakeSink(atOnce: boolean) {
  const written: string[] = [];
  const pending: (() => void)[] = [];
  const state = { failing: false, manual: false };
  const attempt = (text: string) => {
    if (state.failing) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    written.push(text);
  };
  const sink: LogSink = {
    writeAt: atOnce ? attempt : null,
    writeLater(text, done) {
      const go = () => {
        try {
          attempt(text);
          done(null);
        } catch (e) {
          done(e);
        }
      };
      if (state.manual) pending.push(go);
      else queueMicrotask(go);
    },
  };
  return { sink, written, state, release: () => pending.splice(0).forEach((f) => f()) };
}

describe('the line writer', () => {
  it('on a file: a line that fails is dropped, and the next line written says how many were', () => {
    const f = fakeSink(true);
    const w = new LineWriter(f.sink, 1024);
    w.line('one');
    f.state.failing = true;
    w.line('two');
    w.line('three');
    w.line('four');
    expect(w.droppedCount).toBe(3);
    f.state.failing = false;
    w.line('five');
    w.line('six');
    expect(f.written.map((l) => l.replace(/^\S+ /, ''))).toEqual(['one\n', 'ERROR 3 log lines dropped (writing the log failed)\n', 'five\n', 'six\n']);
  });

  it('on a pipe: lines wait in the background up to the bound, lines past it are dropped and said, flush waits', async () => {
    const f = fakeSink(false);
    f.state.manual = true;
    const w = new LineWriter(f.sink, 20);
    w.line('a'.repeat(9)); // in flight
    w.line('b'.repeat(9)); // queued: 10 bytes
    w.line('c'.repeat(9)); // queued: 20 bytes, the bound
    w.line('d'.repeat(9)); // dropped
    expect(w.droppedCount).toBe(1);
    const flushed = w.flush(60_000);
    f.release(); // the first write lands; the queued pair goes out, told of the drop
    f.release();
    await flushed;
    expect(f.written.map((l) => l.replace(/\S+ ERROR/, 'ERROR'))).toEqual([
      `${'a'.repeat(9)}\n`, `ERROR 1 log lines dropped (writing the log failed)\n${'b'.repeat(9)}\n${'c'.repeat(9)}\n`,
    ]);
  });

  it('on a pipe: a write that fails counts its lines, said with the next write that works', async () => {
    const f = fakeSink(false);
    const w = new LineWriter(f.sink, 1024);
    f.state.failing = true;
    w.line('x');
    await w.flush(60_000);
    w.line('y');
    await w.flush(60_000);
    expect(w.droppedCount).toBe(2);
    f.state.failing = false;
    w.line('z');
    await w.flush(60_000);
    expect(f.written.map((l) => l.replace(/\S+ ERROR/, 'ERROR'))).toEqual(['ERROR 2 log lines dropped (writing the log failed)\nz\n']);
  });
});

describe('the server process with its log on a full device', () => {
  it('starts, answers and logs every request (each write failing), and stops cleanly on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-log-full-'));
    const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('') });
    const port = probe.port;
    probe.stop(true);
    const full = openSync('/dev/full', 'w');
    const proc = Bun.spawn([process.execPath, join(ROOT, 'src', 'main.ts')], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dir, DATA_START_DATE: '2025-02-24', DATA_END_DATE: '2025-03-07', RUNNER_POOL_SIZE: '0', RUNNER_CACHE_DIR: RUNNER_TEST_CACHE, LOG_REQUESTS: '1' },
      stdin: 'ignore',
      stdout: 'ignore',
      stderr: full,
    });
    closeSync(full);
    try {
      const base = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 120_000;
      let up = false;
      while (!up) {
        if (proc.exitCode !== null) throw new Error(`the server exited with ${proc.exitCode} before answering`);
        if (Date.now() > deadline) throw new Error('the server did not answer in time');
        up = await fetch(`${base}/api/sim/Status/ping`).then((r) => r.ok, () => false);
        if (!up) await Bun.sleep(100);
      }
      // Every request writes a log line, each failing: the server answers them all and stays up.
      for (let i = 0; i < 20; i++) expect(await (await fetch(`${base}/api/sim/Status/ping`)).text()).toBe('pong');
      const refused = await fetch(`${base}/api/sim/Contract/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(refused.status).toBe(401);
      expect(proc.exitCode).toBeNull();
      proc.kill('SIGTERM');
      expect(await proc.exited).toBe(0);
    } finally {
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
  }, 180_000);
});
