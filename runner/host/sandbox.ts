// The command line of a runner child: the layers of isolation around user Python, outermost first.
//
// 1. prlimit (util-linux): CPU seconds (a backstop behind the server's SIGKILL at the deadline),
//    open files (bounds a Worker/thread bomb: each Worker holds descriptors), no core files, a file
//    size cap. RLIMIT_AS is not used: it breaks V8's cage reservation (the playground sandbox note).
// 2. bubblewrap, when present and user namespaces work: no network, no other processes, an empty
//    filesystem except read-only Deno, Pyodide, the bundle and the snapshot, a private /tmp.
// 3. Deno with every permission denied except reading Pyodide, the bundle and the snapshot; an
//    empty environment except DENO_DIR (Deno's own cache, not reachable from JS).
// 4. V8 caps: a 512 MB JS heap and a 1 GiB wasm memory, so a Python memory bomb ends as MemoryError.
//
// Nothing here depends on the server's state; `detectIsolation` runs once per process.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

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
}

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
  detected = { prlimit, bwrap };
  return detected;
}

export function childCommand(paths: ChildPaths, mode: 'snapshot' | 'serve', limits: SandboxLimits, iso: Isolation): { cmd: string[]; env: Record<string, string> } {
  const reads = [paths.pyodideDir, paths.bundleDir, ...(paths.snapshot ? [paths.snapshot] : [])];
  const denoDir = iso.bwrap ? '/tmp/deno' : paths.denoDir;
  const deno = [
    paths.deno, 'run', '--no-prompt', '--no-config', '--no-lock', '--no-remote', '--no-npm',
    `--allow-read=${reads.join(',')}`,
    '--deny-write', '--deny-net', '--deny-env', '--deny-run', '--deny-ffi', '--deny-sys',
    `--v8-flags=--max-old-space-size=${limits.heapMb},--wasm-max-mem-pages=${limits.wasmPages}`,
    paths.bundleFile, paths.pyodideDir, mode, paths.snapshot ?? '',
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
      `--fsize=${256 * 1024 * 1024}`, '--', ...cmd,
    ];
  }
  return { cmd, env: { DENO_DIR: denoDir, NO_COLOR: '1' } };
}
