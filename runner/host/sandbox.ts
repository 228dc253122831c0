// The command line of a runner child: the layers of isolation around user Python, outermost first.
//
// 1. prlimit (util-linux): CPU seconds (a backstop behind the server's SIGKILL at the deadline),
//    open files (bounds a Worker/thread bomb: each Worker holds descriptors), no core files, a file
//    size cap. RLIMIT_AS is not used: it breaks V8's cage reservation (V8 aborts with "CagedHeap
//    reservation" under it; the V8 caps in 4. bound memory instead).
// 2. bubblewrap, when present and user namespaces work: no network, no other processes, an empty
//    filesystem except read-only Deno, Pyodide, the bundle and the snapshot, a private /tmp.
// 3. Deno with every permission denied except reading Pyodide, the bundle and the snapshot; an
//    empty environment except DENO_DIR (Deno's own cache, not reachable from JS).
// 4. V8 caps: a 512 MB JS heap and a 1 GiB wasm memory, so a Python memory bomb ends as MemoryError.
//
// A child the pool loads ahead of need starts under `nice` (LOAD_NICE): its seconds of loading take
// CPU only when the running children and the server leave some. The pool raises it back to nice 0
// when a run waits for it or takes it (raisePriority), with CAP_SYS_NICE or, without it, through the
// child's RLIMIT_NICE of 20 (possible only where the server's own hard limit allows it; otherwise
// children load at normal priority, as they would have to run). The pool may also have V8 optimise
// the interpreter loop while the child loads (`eagerTierUp`, wasm-hot.ts: about 0.7 CPU s more at
// load, 0.5–1.5 s less in a long run), and have it map the memory a run's Python heap will grow into
// (`prefaultMb`). A child a run is already waiting for gets none of these.
//
// Nothing here depends on the server's state; `detectIsolation` runs once per process.

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { YOUNG_SEMI_SPACE_MB } from '../limits.ts';

export interface SandboxLimits {
  /** RLIMIT_CPU of the child, seconds. */
  cpuSeconds: number;
  /** V8 old-space cap, MB. */
  heapMb: number;
  /** WebAssembly memory cap in 64 KiB pages (16384 = 1 GiB). */
  wasmPages: number;
  /** RLIMIT_NOFILE. */
  openFiles: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { cpuSeconds: 660, heapMb: 512, wasmPages: 16384, openFiles: 256 };

export interface Isolation {
  prlimit: string | null;
  bwrap: string | null;
  /**
   * How a child loaded ahead of need starts at low priority: coreutils `nice`, and whether the child
   * must get RLIMIT_NICE 20 so that the server may raise it back. Null when the server could not
   * raise it back (no CAP_SYS_NICE, and a hard RLIMIT_NICE below 20): such children load at nice 0.
   */
  nice: { path: string; rlimit: boolean } | null;
}

/** The niceness of a child loading ahead of need (the lowest priority). */
export const LOAD_NICE = 19;

export interface ChildPaths {
  deno: string;
  pyodideDir: string;
  bundleDir: string;
  bundleFile: string;
  /** Absent in snapshot mode. */
  snapshot: string | null;
  /** Deno's own cache directory (outside bwrap; inside it Deno gets a private tmpfs). */
  denoDir: string;
}

export function pyodideDir(): string {
  return dirname(Bun.resolveSync('pyodide/package.json', import.meta.dir));
}

export function pyodideVersion(): string {
  return (require(join(pyodideDir(), 'package.json')) as { version: string }).version;
}

/** The Deno binary the npm package `deno` installed (its platform package holds the real file). */
export function denoBinary(): string {
  const candidates: string[] = [];
  for (const pkg of ['deno', `@deno/${process.platform}-${process.arch}-glibc`, `@deno/${process.platform}-${process.arch}`]) {
    try {
      candidates.push(join(dirname(Bun.resolveSync(`${pkg}/package.json`, import.meta.dir)), 'deno'));
    } catch {}
  }
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error('the deno binary is missing: run npm install');
  return found;
}

let detected: Isolation | null = null;

export function detectIsolation(): Isolation {
  if (detected) return detected;
  const which = (cmd: string): string | null => {
    for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(':')) if (dir && existsSync(join(dir, cmd))) return join(dir, cmd);
    return null;
  };
  const prlimit = which('prlimit');
  let bwrap = which('bwrap');
  if (bwrap) {
    // User namespaces can be off (default Docker seccomp, sysctls): try once, fall back to Deno alone.
    // The bound is generous: a probe cut short on a loaded machine would drop a layer of isolation.
    const r = spawnSync(bwrap, ['--unshare-all', '--die-with-parent', '--ro-bind', '/usr', '/usr', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64', '--symlink', 'usr/bin', '/bin', '/bin/true'], { timeout: 60_000 });
    if (r.status !== 0) bwrap = null;
  }
  detected = { prlimit, bwrap, nice: niceMethod(which('nice'), prlimit) };
  return detected;
}

/** `nice` as detectIsolation uses it: raising a child back needs CAP_SYS_NICE or a hard RLIMIT_NICE of 20. */
function niceMethod(nice: string | null, prlimit: string | null): Isolation['nice'] {
  if (!nice) return null;
  try {
    const capEff = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (capEff !== undefined && (BigInt(`0x${capEff}`) >> 23n) & 1n) return { path: nice, rlimit: false }; // CAP_SYS_NICE
    const hard = /^Max nice priority\s+\S+\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
    if (prlimit && (hard === 'unlimited' || Number(hard) >= 20)) return { path: nice, rlimit: true };
  } catch {}
  return null;
}

export interface ChildOptions {
  /** Loaded ahead of need: at LOAD_NICE until raisePriority. */
  background?: boolean;
  /** A function V8 optimises while the child loads instead of during its run (wasm-hot.ts). */
  eagerTierUp?: number | null;
  /**
   * MB of WebAssembly memory the child touches and frees while it loads, so the pages a run's
   * Python heap grows into are already mapped (PREFAULT_MB).
   */
  prefaultMb?: number;
}

/** Re-exported for the pool's tests, which read what a child was started with. */
export { PREFAULT_MB } from '../limits.ts';

export function childCommand(paths: ChildPaths, mode: 'snapshot' | 'serve', limits: SandboxLimits, iso: Isolation, opts: ChildOptions = {}): { cmd: string[]; env: Record<string, string> } {
  const background = opts.background === true;
  const eager = opts.eagerTierUp == null ? '' : `,--wasm-eager-tier-up-function=${opts.eagerTierUp}`;
  const reads = [paths.pyodideDir, paths.bundleDir, ...(paths.snapshot ? [paths.snapshot] : [])];
  const denoDir = iso.bwrap ? '/tmp/deno' : paths.denoDir;
  const deno = [
    paths.deno, 'run', '--no-prompt', '--no-config', '--no-lock', '--no-remote', '--no-npm',
    `--allow-read=${reads.join(',')}`,
    '--deny-write', '--deny-net', '--deny-env', '--deny-run', '--deny-ffi', '--deny-sys',
    `--v8-flags=--max-old-space-size=${limits.heapMb},--max-semi-space-size=${YOUNG_SEMI_SPACE_MB},--wasm-max-mem-pages=${limits.wasmPages}${eager}`,
    paths.bundleFile, paths.pyodideDir, mode, paths.snapshot ?? '', String(opts.prefaultMb ?? 0),
  ];
  let cmd = deno;
  if (iso.bwrap) {
    const ro = (p: string) => ['--ro-bind', p, p];
    cmd = [
      iso.bwrap, '--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--clearenv',
      '--setenv', 'DENO_DIR', denoDir, '--setenv', 'NO_COLOR', '1',
      '--ro-bind', '/usr', '/usr', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64', '--symlink', 'usr/bin', '/bin',
      '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp',
      ...ro(paths.deno), ...reads.flatMap(ro),
      '--', ...deno,
    ];
  }
  if (iso.prlimit) {
    cmd = [
      iso.prlimit, `--cpu=${limits.cpuSeconds}`, `--nofile=${limits.openFiles}`, '--core=0',
      // Deno writes its own cache: a file-size cap, not zero (zero kills it with SIGXFSZ).
      `--fsize=${256 * 1024 * 1024}`,
      // RLIMIT_NICE 20 allows nice 0: the server may raise a backgrounded child back without privilege.
      ...(background && iso.nice?.rlimit ? ['--nice=20'] : []),
      '--', ...cmd,
    ];
  }
  if (background && iso.nice) cmd = [iso.nice.path, '-n', String(LOAD_NICE), ...cmd];
  return { cmd, env: { DENO_DIR: denoDir, NO_COLOR: '1' } };
}

/**
 * Every thread of a child's process tree back to nice 0 (bubblewrap runs Deno a level or two below
 * the spawned process, and Linux keeps a niceness per thread). Best effort: a thread that ended
 * meanwhile, or a kernel that refuses, leaves the child as it was.
 */
export function raisePriority(pid: number): void {
  const seen = new Set<number>();
  const visit = (p: number) => {
    if (seen.has(p)) return;
    seen.add(p);
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${p}/task`);
    } catch {
      return;
    }
    for (const tid of tids) {
      try {
        if (getPriority(Number(tid)) !== 0) setPriority(Number(tid), 0);
      } catch {}
      let kids = '';
      try {
        kids = readFileSync(`/proc/${p}/task/${tid}/children`, 'utf8');
      } catch {}
      for (const k of kids.split(' ')) if (k.trim() !== '') visit(Number(k));
    }
  };
  visit(pid);
}
