// Runs the benchmarks in bench/ one after another (each prints its own medians).
//
//   npm run bench                                   every bench, this checkout, as before
//   npm run bench -- --only replay-step,edge        some of them (names without `.bench.ts`)
//   npm run bench -- --baseline <commit> [--rounds n] [--only …]
//
// With --baseline, every bench runs against this checkout (A) and against a worktree of <commit> (B),
// in turn A B A B … (n rounds, default 1), each in a process of its own with `ROOT=<checkout>` (the
// one knob every bench reads: bench/root.ts), so both sides see the same drift of a shared machine.
// The worktree is bl-<sha> in the temporary directory (made with `git worktree add --detach` and this
// checkout's node_modules linked, or reused when it exists; remove it with `git worktree remove`).
// Each bench's output is printed as it comes, then one row per figure that differs between A and B:
// A's line with that figure marked §, A's and B's values (medians over the rounds), B/A, and the
// 1-minute load average when each side printed it. Lines are paired by their text with the numbers
// taken out (the n-th such line of A with the n-th of B).

import { existsSync, readdirSync, symlinkSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const dir = import.meta.dir;
const here = resolve(join(dir, '..'));
const NUMBER = /-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?/g;

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const names = readdirSync(dir)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => !args.only || args.only.includes(f.replace(/\.bench\.ts$/, '')))
    .sort();
  if (args.only) for (const n of args.only) if (!names.includes(`${n}.bench.ts`)) throw new Error(`no bench/${n}.bench.ts`);

  if (!args.baseline) {
    for (const name of names) {
      process.stdout.write(`\n=== ${name}\n`);
      const p = Bun.spawnSync([process.execPath, join(dir, name)], { stdout: 'inherit', stderr: 'inherit' });
      if (p.exitCode !== 0) process.stdout.write(`(${name} exited with ${p.exitCode})\n`);
    }
  } else {
    const b = baselineWorktree(args.baseline);
    const a = { root: here, label: `A this checkout (${git(here, 'rev-parse', '--short', 'HEAD')}${git(here, 'status', '--porcelain') ? ', uncommitted changes' : ''})` };
    process.stdout.write(`${a.label}\nB ${b} (${git(b, 'rev-parse', '--short', 'HEAD')})\nrounds ${args.rounds}\n`);
    for (const name of names) {
      const runs: Record<'A' | 'B', Run[]> = { A: [], B: [] };
      for (let r = 0; r < args.rounds; r++) {
        for (const [side, root] of [['A', a.root], ['B', b]] as const) {
          process.stdout.write(`\n=== ${name} ${side} (round ${r + 1}, load ${loadavg()[0].toFixed(2)})\n`);
          const run = await runOne(join(dir, name), root);
          if (run.code !== 0) process.stdout.write(`(${name} ${side} exited with ${run.code})\n`);
          runs[side].push(run);
        }
      }
      printComparison(name, runs.A, runs.B);
    }
  }
}

interface Run {
  code: number;
  /** Each printed line with the 1-minute load average when it came. */
  lines: { text: string; load: number }[];
}

function parseArgs(argv: string[]) {
  const out: { baseline?: string; only?: string[]; rounds: number } = { rounds: 1 };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1];
    if (argv[i] === '--baseline') out.baseline = v;
    else if (argv[i] === '--only') out.only = v.split(',').map((s) => s.trim().replace(/\.bench\.ts$/, ''));
    else if (argv[i] === '--rounds') out.rounds = Math.max(1, Number(v));
    else throw new Error(`unknown argument ${argv[i]} (--baseline <commit>, --only a,b, --rounds n)`);
    i++;
  }
  return out;
}

function git(cwd: string, ...a: string[]): string {
  const p = Bun.spawnSync(['git', ...a], { cwd, stdout: 'pipe', stderr: 'pipe' });
  if (p.exitCode !== 0) throw new Error(`git ${a.join(' ')}: ${p.stderr.toString()}`);
  return p.stdout.toString().trim();
}

/** bl-<sha> in the temporary directory: a detached worktree of `commit`, made once, with this checkout's node_modules. */
function baselineWorktree(commit: string): string {
  const sha = git(here, 'rev-parse', '--short', `${commit}^{commit}`);
  const path = join(tmpdir(), `bl-${sha}`);
  if (!existsSync(path)) git(here, 'worktree', 'add', '--detach', path, sha);
  else if (git(path, 'rev-parse', '--short', 'HEAD') !== sha) throw new Error(`${path} is not at ${sha}`);
  if (!existsSync(join(path, 'node_modules'))) symlinkSync(join(here, 'node_modules'), join(path, 'node_modules'));
  return path;
}

/** One bench in its own process against `root`, its output passed through and kept line by line. */
async function runOne(file: string, root: string): Promise<Run> {
  const p = Bun.spawn([process.execPath, file], { env: { ...process.env, ROOT: root }, stdout: 'pipe', stderr: 'inherit' });
  const lines: Run['lines'] = [];
  const decoder = new TextDecoder();
  let rest = '';
  for await (const chunk of p.stdout) {
    const text = decoder.decode(chunk, { stream: true });
    process.stdout.write(text);
    const parts = (rest + text).split('\n');
    rest = parts.pop() ?? '';
    const load = loadavg()[0];
    for (const t of parts) lines.push({ text: t, load });
  }
  if (rest) lines.push({ text: rest, load: loadavg()[0] });
  return { code: await p.exited, lines };
}

interface Figure {
  /** The line as A printed it. */
  text: string;
  values: number[];
  load: number;
}

/** Figures by the line they sit in (numbers replaced by #, repeated lines numbered) and their slot. */
function figures(run: Run): Map<string, Figure> {
  const out = new Map<string, Figure>();
  const seen = new Map<string, number>();
  for (const { text, load } of run.lines) {
    const values = (text.match(NUMBER) ?? []).map((s) => Number(s.replaceAll(',', '')));
    if (values.length === 0) continue;
    const template = text.replace(NUMBER, '#').replace(/\s+/g, ' ').trim(); // padding moves with the widths
    const k = (seen.get(template) ?? 0) + 1;
    seen.set(template, k);
    out.set(k > 1 ? `${template} [${k}]` : template, { text: text.trim(), values, load });
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function printComparison(name: string, a: Run[], b: Run[]) {
  const fa = a.map(figures);
  const fb = b.map(figures);
  process.stdout.write(`\n--- ${name}: A this checkout, B baseline (B/A; load average A | B)\n`);
  if (a.some((r) => r.code !== 0) || b.some((r) => r.code !== 0)) {
    process.stdout.write(`exit codes A ${a.map((r) => r.code).join(' ')}, B ${b.map((r) => r.code).join(' ')}\n`);
  }
  let rows = 0;
  for (const [key, first] of fa[0]) {
    const sidesA = fa.map((m) => m.get(key)).filter((x) => x !== undefined);
    const sidesB = fb.map((m) => m.get(key)).filter((x) => x !== undefined);
    if (sidesB.length === 0) continue;
    for (let slot = 0; slot < first.values.length; slot++) {
      const va = median(sidesA.map((x) => x.values[slot]));
      const vb = median(sidesB.map((x) => x.values[slot]));
      if (va === vb || Number.isNaN(va) || Number.isNaN(vb)) continue;
      let n = -1;
      const marked = first.text.replace(NUMBER, (m) => (++n === slot ? '§' : m));
      const ratio = va === 0 ? '—' : (vb / va).toFixed(2);
      const load = `${median(sidesA.map((x) => x.load)).toFixed(1)} | ${median(sidesB.map((x) => x.load)).toFixed(1)}`;
      process.stdout.write(`${marked.slice(0, 100).padEnd(100)}  A ${fmt(va).padStart(10)}  B ${fmt(vb).padStart(10)}  B/A ${ratio.padStart(5)}  load ${load}\n`);
      rows++;
    }
  }
  const missing = [...fa[0].keys()].filter((k) => !fb.some((m) => m.has(k))).length;
  if (missing) process.stdout.write(`(${missing} lines of A have no counterpart in B)\n`);
  if (rows === 0) process.stdout.write('(no figure differs)\n');
}

function fmt(v: number): string {
  return Number.isInteger(v) || Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3);
}

await main();
