// Ready runner children. A child handed out for a single run runs one execution and is killed; one
// handed out for an optimisation may run several of its combinations (`lasting`: the server's
// optimize-shared.ts), resetting its interpreter between them. The pool keeps
// `size` children spawned and loaded (Pyodide restored from the snapshot, waiting for `run`), and
// spawns a replacement in the background whenever one is taken.
//
// Bursts (several runs at once): while k children handed out are still running, the pool keeps up
// to min(k, `burst`) ready, one successor for each, so the next runs find a loaded child instead of
// waiting for a spawn and a snapshot restore (about a second of CPU each). A `lasting` child counts
// for none: its next runs are its own.
//
// A child loaded ahead of need loads at the lowest CPU priority (sandbox.ts, LOAD_NICE), so on a
// busy machine its seconds of CPU come from what the running children and the server leave, not
// from them; it is raised to normal priority as soon as a run waits for it, and when handed out.
// The `size` kept for single runs also have V8 optimise Python's interpreter loop as they load
// (wasm-hot.ts), which costs the load about 0.7 CPU s and saves a long run more, and map the memory a
// long run's Python heap grows into (runner/limits.ts, PREFAULT_MB); a burst's children and a child spawned
// for a run already waiting skip both.
//
// The snapshot is built the first time it is needed, by a child in snapshot mode that runs only our
// harness (never user code), and kept in the cache directory under a name holding the Pyodide version
// and the bundle's hash, so a new harness or Pyodide gets a new snapshot and stale ones are ignored.

import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PREFAULT_MB, READY_TIMEOUT_MS, SERVE_FRAME_BYTES_MAX, SERVE_TOTAL_BYTES_MAX, SNAPSHOT_BUILD_TIMEOUT_MS, SNAPSHOT_FRAME_BYTES_MAX } from '../limits.ts';
import { buildBundle, type RunnerBundle } from './bundle.ts';
import { RunnerChild } from './child.ts';
import { largestFunctionIndex } from './wasm-hot.ts';
import { type ChildOptions, childCommand, DEFAULT_SANDBOX_LIMITS, denoBinary, detectIsolation, type Isolation, pyodideDir, pyodideVersion, raisePriority, type SandboxLimits } from './sandbox.ts';

export interface PoolOptions {
  /** Holds the bundle, the snapshot and Deno's cache. */
  cacheDir: string;
  /** Ready children kept waiting (default 1). */
  size: number;
  /** While children handed out are running, keep as many ready as are running, up to this (default `size`). */
  burst?: number;
  limits?: SandboxLimits;
  /** How long a child may take to load Pyodide and say ready. */
  readyTimeoutMs?: number;
  /** Operational news (a snapshot built). */
  log?: (msg: string, fields?: Record<string, unknown>) => void;
  /** Children that failed to start. */
  logError?: (msg: string, fields?: Record<string, unknown>) => void;
}

interface Prepared {
  bundle: RunnerBundle;
  snapshot: string;
  /** The interpreter loop's function index in Pyodide's module (wasm-hot.ts). */
  hot: number | null;
}

/**
 * A child being loaded for the pool: `child` once spawned; `wanted` once a run waits for it;
 * `optimise`: one of the `size` kept for single runs, loaded with the interpreter loop optimised.
 */
interface Loading {
  ready: Promise<RunnerChild | null>;
  child: RunnerChild | null;
  wanted: boolean;
  optimise: boolean;
}

export class RunnerPool {
  private prepared: Promise<Prepared> | null = null;
  private readonly ready: Loading[] = [];
  private closed = false;
  /** Serving children spawned and not yet ready: close kills them at once instead of waiting for their load. */
  private readonly loading = new Set<RunnerChild>();
  /** Children handed out (not `lasting`) that have not exited yet. */
  private busy = 0;
  private spawned = 0;
  readonly isolation: Isolation;
  private readonly limits: SandboxLimits;

  private readonly opts: PoolOptions;

  constructor(opts: PoolOptions) {
    // Absolute: the paths go to Deno's permission flags and to bubblewrap's binds.
    this.opts = { ...opts, cacheDir: resolve(opts.cacheDir) };
    this.limits = opts.limits ?? DEFAULT_SANDBOX_LIMITS;
    this.isolation = detectIsolation();
  }

  /** Builds the bundle and snapshot if needed and fills the pool; safe to call many times. */
  warm(): Promise<void> {
    return this.prepare().then(() => this.refill());
  }

  /**
   * A child that is loaded and waiting for `run`; throws when none can be started. `lasting`: the
   * child will serve several runs (an optimisation's combinations, one after another): it gets no
   * loaded successor of its own (the burst), as the next runs are its own.
   */
  async acquire(opts: { lasting?: boolean } = {}): Promise<RunnerChild> {
    const burst = opts.lasting !== true;
    await this.prepare();
    for (;;) {
      const next = this.ready.shift() ?? this.spawnReady(false);
      next.wanted = true;
      if (next.child) raisePriority(next.child.pid);
      const child = await next.ready;
      if (child) {
        raisePriority(child.pid); // threads the load started meanwhile
        this.track(child, burst);
      }
      this.refill();
      if (child) return child;
      if (this.closed) throw new Error('runner pool closed');
      // A pooled child that died while waiting: take a fresh one (spawnReady throws on a real failure).
      const fresh = await this.spawnReady(false, true).ready;
      if (fresh) {
        this.track(fresh, burst);
        this.refill();
        return fresh;
      }
    }
  }

  /** Serving children spawned since the pool was made (for tests and logs). */
  get spawnedCount(): number {
    return this.spawned;
  }

  /** Children handed out and still running, and children ready or loading (for tests and logs). */
  get counts(): { busy: number; waiting: number } {
    return { busy: this.busy, waiting: this.ready.length };
  }

  /**
   * The children kept ready or still loading, in hand-out order: the process id (0 until spawned) and
   * whether it is one of the `size` loaded for single runs (for tests and logs).
   */
  get waitingChildren(): { pid: number; optimise: boolean }[] {
    return this.ready.map((l) => ({ pid: l.child?.pid ?? 0, optimise: l.optimise }));
  }

  /** Process ids of the children loading now (for tests and logs). */
  get loadingPids(): number[] {
    return [...this.loading].map((c) => c.pid);
  }

  async close(): Promise<void> {
    this.closed = true;
    const loading = [...this.loading];
    for (const child of loading) child.kill();
    await Promise.all(loading.map((c) => c.exited));
    const waiting = this.ready.splice(0);
    for (const p of waiting) (await p.ready)?.kill();
  }

  private prepare(): Promise<Prepared> {
    this.prepared ??= (async () => {
      mkdirSync(this.opts.cacheDir, { recursive: true });
      const bundle = await buildBundle(this.opts.cacheDir);
      const snapshot = join(this.opts.cacheDir, `snapshot-pyodide${pyodideVersion()}-${bundle.hash.slice(0, 16)}.bin`);
      if (!existsSync(snapshot) || statSync(snapshot).size < 1024 * 1024) await this.buildSnapshot(bundle, snapshot);
      return { bundle, snapshot, hot: largestFunctionIndex(readFileSync(join(pyodideDir(), 'pyodide.asm.wasm'))) };
    })();
    this.prepared.catch(() => {
      this.prepared = null;
    });
    return this.prepared;
  }

  private async buildSnapshot(bundle: RunnerBundle, path: string): Promise<void> {
    const t0 = performance.now();
    const child = this.spawn(bundle, null, 'snapshot');
    const timer = setTimeout(() => child.kill(), SNAPSHOT_BUILD_TIMEOUT_MS);
    try {
      const m = await child.next();
      if (m.kind !== 'message' || m.msg.t !== 'snapshot' || !(m.msg.bytes instanceof Uint8Array)) {
        throw new Error(`snapshot build failed: ${m.kind === 'protocol_error' ? m.reason : JSON.stringify(m.kind === 'exit' ? m.exit : m.msg.t)} ${child.stderrTail}`);
      }
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, m.msg.bytes, { mode: 0o644 });
      renameSync(tmp, path);
      this.opts.log?.('runner snapshot built', { path, bytes: m.msg.bytes.byteLength, ms: Math.round(performance.now() - t0) });
    } finally {
      clearTimeout(timer);
      child.kill();
    }
  }

  private spawn(bundle: RunnerBundle, snapshot: string | null, mode: 'snapshot' | 'serve', opts: ChildOptions = {}): RunnerChild {
    const denoDir = join(this.opts.cacheDir, 'deno');
    mkdirSync(denoDir, { recursive: true });
    const { cmd, env } = childCommand(
      { deno: denoBinary(), pyodideDir: pyodideDir(), bundleDir: bundle.dir, bundleFile: bundle.file, snapshot, denoDir },
      mode,
      this.limits,
      this.isolation,
      opts,
    );
    const caps = mode === 'snapshot' ? { frameBytesMax: SNAPSHOT_FRAME_BYTES_MAX, totalBytesMax: SNAPSHOT_FRAME_BYTES_MAX + 64 } : { frameBytesMax: SERVE_FRAME_BYTES_MAX, totalBytesMax: SERVE_TOTAL_BYTES_MAX };
    return new RunnerChild(cmd, env, caps);
  }

  /**
   * Spawns a serving child; its `ready` resolves when the child says ready, or null if it died first
   * (or the pool closed). `background`: loaded ahead of need, at low priority until wanted.
   */
  private spawnReady(background: boolean, throwOnFailure = false, optimise = false): Loading {
    const l: Loading = { ready: Promise.resolve(null), child: null, wanted: !background, optimise };
    l.ready = this.load(l, throwOnFailure);
    return l;
  }

  private async load(l: Loading, throwOnFailure: boolean): Promise<RunnerChild | null> {
    const { bundle, snapshot, hot } = await this.prepare();
    if (this.closed) return null;
    // Wanted at once: the quickest start. Ahead of need: at low priority, and for single runs with the
    // loop optimised in the load (sandbox.ts). A burst's child (an optimisation's next combination, a
    // short run that the optimisation costs about as much as it saves) loads without.
    this.spawned++;
    const child = this.spawn(bundle, snapshot, 'serve', l.wanted ? {} : { background: true, eagerTierUp: l.optimise ? hot : null, prefaultMb: l.optimise ? PREFAULT_MB : 0 });
    l.child = child;
    this.loading.add(child);
    const timer = setTimeout(() => child.kill(), this.opts.readyTimeoutMs ?? READY_TIMEOUT_MS);
    try {
      const m = await child.next();
      if (m.kind === 'message' && m.msg.t === 'ready' && !this.closed) return child;
      child.kill();
      if (this.closed) return null;
      const why = m.kind === 'protocol_error' ? m.reason : m.kind === 'exit' ? `exit ${JSON.stringify(m.exit)}` : `unexpected ${String(m.msg.t)}`;
      this.opts.logError?.('runner child failed to start', { why, stderr: child.stderrTail });
      if (throwOnFailure) throw new Error(`runner child failed to start: ${why}`);
      return null;
    } finally {
      clearTimeout(timer);
      this.loading.delete(child);
    }
  }

  private track(child: RunnerChild, burst: boolean): void {
    if (!burst) return;
    this.busy++;
    void child.exited.then(() => this.busy--);
  }

  /** Ready children wanted now: `size`, or one for each running child up to `burst`. */
  private target(): number {
    return Math.max(this.opts.size, Math.min(this.busy, this.opts.burst ?? this.opts.size));
  }

  private refill(): void {
    while (!this.closed && this.ready.length < this.target()) {
      const l = this.spawnReady(true, false, this.ready.length < this.opts.size);
      l.ready = l.ready.catch((e) => {
        this.opts.logError?.('runner pool refill failed', { error: String(e) });
        return null;
      });
      this.ready.push(l);
    }
  }
}
