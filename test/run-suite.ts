// The whole test suite (README's `npm test`): the test files split into jobs, each a `bun test`
// process whose output is printed whole when it ends, then one summary with each job's time and
// every failure repeated with its error at the end, where a CI log's tail shows it.
//
// Jobs are whole directories or fixed groups, taken longest first by whichever process is free:
// - the files on PostgreSQL share one throwaway server (test/support/postgres.ts starts one a process);
// - the browser files are split in two, the largest group.
//
// One job at a time on fewer than 4 cores: on 2, two at once took as long as one (8 m 08 s against
// 8 m 01 s), the heavy jobs (browsers, sandboxes) being CPU-bound. `TEST_JOBS=n` sets it; `npm run
// test:serial` runs every file in one `bun test`. Arguments are passed to every `bun test`.

import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';
import { Glob } from 'bun';

/** The per-test bound (Bun 1.4 ignores a timeout in bunfig.toml). */
const TIMEOUT_MS = 120_000;

const root = new URL('..', import.meta.url).pathname;
const files = [...new Glob('test/**/*.test.ts').scanSync({ cwd: root })].sort();

/** Files that start PostgreSQL: one job, so one server. */
const onPostgres = (f: string) => /support\/(postgres|sql-backends|cluster|pg-app-databases)\b/.test(readFileSync(root + f, 'utf8'));

interface Job {
  name: string;
  files: string[];
  /** Seconds, roughly (WEIGHT): only the order of the queue depends on it. */
  weight: number;
}

/**
 * Seconds a job took in a two-process run (2 cores, 2026-11-26), for the order of the queue only:
 * longest first, so that with several processes the last jobs to end are short ones. Unknown
 * directories count as light.
 */
const WEIGHT: Record<string, number> = {
  'test/browser': 185,
  'test/postgres': 157,
  'test/http/playground': 123,
  'test/playground': 105,
  'test/e2e': 50,
  'test/admin': 50,
  'test/runner': 37,
  'test/data': 22,
  'test/http/sim': 18,
  'test/http/hubs': 12,
};

function jobs(): Job[] {
  const groups = new Map<string, string[]>();
  for (const f of files) {
    const dir = onPostgres(f) ? 'test/postgres' : f.slice(0, f.lastIndexOf('/'));
    groups.set(dir, [...(groups.get(dir) ?? []), f]);
  }
  const out: Job[] = [];
  for (const [dir, fs] of groups) {
    if (dir === 'test/browser') {
      // Alternate by name: the heavy desk and playground files land on both sides.
      out.push({ name: `${dir} (1/2)`, files: fs.filter((_, i) => i % 2 === 0), weight: WEIGHT[dir] ?? 5 });
      out.push({ name: `${dir} (2/2)`, files: fs.filter((_, i) => i % 2 === 1), weight: WEIGHT[dir] ?? 5 });
    } else out.push({ name: dir, files: fs, weight: WEIGHT[dir] ?? 5 });
  }
  return out.sort((a, b) => b.weight - a.weight || a.name.localeCompare(b.name));
}

interface Done {
  job: Job;
  code: number;
  output: string;
  seconds: number;
  pass: number;
  fail: number;
}

/** The job's own count: the last summary line (a test file may run a `bun test` of its own first). */
const count = (out: string, word: string) => Number([...out.matchAll(new RegExp(`^ (\\d+) ${word}$`, 'gm'))].at(-1)?.[1] ?? 0);

async function run(job: Job, extra: string[]): Promise<Done> {
  const t0 = performance.now();
  const proc = Bun.spawn({
    cmd: [process.execPath, 'test', `--timeout=${TIMEOUT_MS}`, ...extra, ...job.files.map((f) => `./${f}`)],
    cwd: root,
    stdout: 'pipe',
    stderr: 'pipe',
    env: process.env,
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const output = stdout + stderr;
  return { job, code, output, seconds: (performance.now() - t0) / 1000, pass: count(output, 'pass'), fail: count(output, 'fail') };
}

/** A failed test's report: its `(fail)` line and the error lines bun printed above it. */
function failures(output: string): string[] {
  const lines = output.split('\n');
  const out: string[] = [];
  let block: string[] = [];
  for (const line of lines) {
    if (/^\(pass\)|^\(skip\)|^\(todo\)|^test\/.*:$/.test(line)) block = [];
    else if (/^\(fail\)/.test(line)) {
      out.push([...block.slice(-60), line].join('\n'));
      block = [];
    } else block.push(line);
  }
  return out;
}

async function main(): Promise<number> {
  const extra = process.argv.slice(2);
  const width = Math.max(1, Number(process.env.TEST_JOBS ?? Math.min(4, Math.floor(availableParallelism() / 2))));
  const queue = jobs();
  const done: Done[] = [];
  const t0 = performance.now();
  const worker = async () => {
    for (let job = queue.shift(); job; job = queue.shift()) {
      const d = await run(job, extra);
      done.push(d);
      console.log(`\n━━ ${job.name}: ${job.files.length} files, ${d.pass} pass, ${d.fail} fail, exit ${d.code}, ${d.seconds.toFixed(1)} s\n${d.output.trimEnd()}`);
    }
  };
  console.log(`${files.length} test files in ${queue.length} jobs, ${width} at a time`);
  await Promise.all(Array.from({ length: width }, worker));
  const pass = done.reduce((n, d) => n + d.pass, 0);
  const fail = done.reduce((n, d) => n + d.fail, 0);
  const broken = done.filter((d) => d.code !== 0);
  console.log('\n━━ summary');
  for (const d of [...done].sort((a, b) => b.seconds - a.seconds)) console.log(`${d.seconds.toFixed(1).padStart(7)} s  ${d.code === 0 ? 'ok  ' : 'FAIL'}  ${d.job.name}`);
  for (const d of broken) {
    const reports = failures(d.output);
    console.log(`\n━━ ${d.job.name} failed (exit ${d.code})`);
    // A job that failed outside a test (a file that would not load, an error between tests): its tail.
    console.log(reports.length > 0 ? reports.join('\n\n') : d.output.split('\n').slice(-80).join('\n'));
  }
  console.log(`\n ${pass} pass\n ${fail} fail\nRan ${pass + fail} tests across ${files.length} files in ${done.length} jobs. [${((performance.now() - t0) / 1000).toFixed(1)} s]`);
  return broken.length > 0 || fail > 0 || pass === 0 ? 1 : 0;
}

process.exit(await main());
