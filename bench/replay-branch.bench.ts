// Replay/branch's cost (issue 30, "Rewind, by branching"; docs/decisions.md "Branching"): ROOT's
// server (bench/root.ts) as a process on 127.0.0.1, spoken to over its public HTTP interface only, so
// it runs against any commit (one without Replay/branch prints "not available").
//
// Setup: a 1 m NQ session over a month (2025-02-03 to 2025-03-03, synthetic 1 s bars, about 28,000
// 1 m bars) played by jumps of `HOURS_PER_JUMP` hours with a command after each jump: market buys and
// sells, a far limit placed and later canceled (a few dozen commands in all). Then, at the session's
// time, branches at four bars (a day in, mid-month, a day before the end, the last bar played), each
// timed end to end (the HTTP round trip) and its bytes written measured as the growth of the server's
// `wchar` (/proc/<pid>/io: every byte it wrote, SQLite's WAL included; logging off). Each branch is
// ended right after (not timed) so the user's limit of live sessions is never reached. The store's
// checkpoint rows of the parent are counted from its SQLite file, read-only, when the table exists.
// The load average is printed with the figures: the machine is shared.
//
// Run: ./node_modules/.bin/bun bench/replay-branch.bench.ts   (RUNS=3; ROOT=<checkout> for a baseline)

import { Database } from 'bun:sqlite';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './root.ts';
import { spawnServer } from './servers.ts';
import { median } from './support.ts';

const RUNS = Number(process.env.RUNS ?? 3);
const HOURS_PER_JUMP = 18;
const FIRST_S = Date.parse('2025-02-03T00:00:00Z') / 1000;
const load = async () => (await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ');
const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');

const dataDir = mkdtempSync(join(tmpdir(), 'replaydesk-branch-'));
const server = await spawnServer({ env: { DATA_DIR: dataDir, DATA_START_DATE: '2025-01-06', DATA_END_DATE: '2025-03-14', RUNNER_POOL_SIZE: '0', LOG_REQUESTS: 'false' }, timeoutMs: 180_000 });

async function post(path: string, body: unknown, token?: string): Promise<any> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const r = await fetch(`${server.base}/api/sim/${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await r.text();
  try {
    return JSON.parse(text);
  } catch {
    return { success: false, status: r.status, text: text.slice(0, 120) };
  }
}

async function ok(path: string, body: unknown, token: string): Promise<any> {
  const r = await post(path, body, token);
  if (!r.success) throw new Error(`${path}: ${JSON.stringify(r)}`);
  return r;
}

/** Every byte the server process has written so far (its `wchar`). */
function written(): number {
  const m = /wchar: (\d+)/.exec(readFileSync(`/proc/${server.proc.pid}/io`, 'utf8'));
  return m ? Number(m[1]) : Number.NaN;
}

/** A month played with a command after every jump; answers the session's account, contract and the number of commands. */
async function playMonth(token: string): Promise<{ accountId: number; contractId: string; commands: number; done: number; nowS: number }> {
  const start = await ok('Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-02-03', endDate: '2025-03-02', timeframe: '1m' }, token);
  const accountId = start.accountId as number;
  const contractId = start.instrument.contractId as string;
  let commands = 0;
  let done = 0;
  let limitId: number | null = null;
  let nowS = FIRST_S;
  for (let k = 1; nowS < FIRST_S + 27 * 86_400; k++) {
    nowS = FIRST_S + k * HOURS_PER_JUMP * 3600;
    await ok('Replay/jumpTo', { accountId, targetTime: iso(nowS) }, token);
    // Alternating sides: short, flat, …; a far limit placed, canceled two jumps later. Refusals (a closed market, margin) count as sent, not as done.
    let r: any;
    if (k % 6 === 3 && limitId === null) {
      r = await post('Order/place', { accountId, contractId, type: 1, side: 0, size: 1, limitPrice: 1000 }, token);
      if (r.success) limitId = r.orderId;
    } else if (k % 6 === 5 && limitId !== null) {
      r = await post('Order/cancel', { accountId, orderId: limitId }, token);
      limitId = null;
    } else {
      r = await post('Order/place', { accountId, contractId, type: 2, side: k % 2, size: 1 }, token);
    }
    commands++;
    if (r.success) done++;
  }
  return { accountId, contractId, commands, done, nowS };
}

/** The rows a branch wrote, read back from the store: its session row's state, checkpoints, orders and fills. */
function rowsOf(accountId: number): string {
  const db = new Database(join(dataDir, 'replaydesk.db'), { readonly: true });
  try {
    const one = (q: string) => db.query(q).get(accountId) as { n: number; bytes: number | null };
    const cp = one('SELECT COUNT(*) AS n, SUM(LENGTH(engine_core) + COALESCE(LENGTH(rule_state), 0)) AS bytes FROM replay_checkpoints WHERE account_id = ?');
    const core = one('SELECT 1 AS n, LENGTH(engine_core) AS bytes FROM replay_sessions WHERE account_id = ?');
    const orders = one('SELECT COUNT(*) AS n, 0 AS bytes FROM orders WHERE account_id = ?');
    const fills = one('SELECT COUNT(*) AS n, 0 AS bytes FROM fills WHERE account_id = ?');
    return `rows: session state ${core.bytes} B, ${cp.n} checkpoints (${cp.bytes ?? 0} B), ${orders.n} orders, ${fills.n} fills`;
  } catch {
    return 'rows: not readable';
  } finally {
    db.close();
  }
}

/** The parent's checkpoint rows and their bytes, read from the store when the table exists. */
function checkpointsOf(accountId: number): string {
  const db = new Database(join(dataDir, 'replaydesk.db'), { readonly: true });
  try {
    const r = db.query('SELECT COUNT(*) AS n, SUM(LENGTH(engine_core) + COALESCE(LENGTH(rule_state), 0)) AS bytes FROM replay_checkpoints WHERE account_id = ?').get(accountId) as { n: number; bytes: number };
    return `${r.n} checkpoints, ${r.bytes} bytes of state`;
  } catch {
    return 'no checkpoint table';
  } finally {
    db.close();
  }
}

try {
  const creds = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8'));
  const token = (await ok('Auth/loginKey', { userName: creds.userName, apiKey: creds.apiKey }, '')).token as string;
  console.log(`replay-branch: ${ROOT}, load ${await load()}`);
  const byPoint = new Map<string, { ms: number[]; bytes: number[] }>();
  for (let run = 0; run < RUNS; run++) {
    const t0 = performance.now();
    const x = await playMonth(token);
    console.log(`  run ${run + 1}: a month played with ${x.commands} commands (${x.done} carried out) in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${checkpointsOf(x.accountId)}`);
    const last = Math.floor(x.nowS / 60) * 60;
    const points: [string, number][] = [['a day in', FIRST_S + 86_400 + 3600], ['mid-month', FIRST_S + 13 * 86_400 + 3600], ['a day before the end', last - 86_400], ['the last bar', last]];
    for (const [name, timeS] of points) {
      const before = written();
      const b0 = performance.now();
      const r = await post('Replay/branch', { accountId: x.accountId, time: iso(timeS) }, token);
      const ms = performance.now() - b0;
      const bytes = written() - before;
      if (!r.success) {
        console.log(`  Replay/branch not available on this commit (${JSON.stringify(r).slice(0, 160)})`);
        process.exit(0);
      }
      const rows = rowsOf(r.accountId);
      await post('Replay/end', { accountId: r.accountId }, token);
      const e = byPoint.get(name) ?? { ms: [], bytes: [] };
      e.ms.push(ms);
      e.bytes.push(bytes);
      byPoint.set(name, e);
      console.log(`    branch at ${name} (${iso(timeS)}): ${ms.toFixed(0)} ms, ${(bytes / 1024).toFixed(1)} KiB written (the process's wchar); ${rows}; load ${await load()}`);
    }
    await post('Replay/end', { accountId: x.accountId }, token);
  }
  for (const [name, e] of byPoint) console.log(`branch at ${name}: median ${median(e.ms).toFixed(0)} ms, ${(median(e.bytes) / 1024).toFixed(1)} KiB written`);
} finally {
  server.proc.kill('SIGTERM');
  await server.proc.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
