// The runner child: one Deno process per execution (or per run of an optimisation's combinations), with no permission but reading Pyodide, this
// bundle and the snapshot (runner/host/sandbox.ts builds the command line). It loads Pyodide, runs
// the user's strategy through runner/python/harness.py against the bundled engine, and speaks only
// frames on stdin/stdout (runner/protocol.ts).
//
// Modes (Deno.args: pyodideDir, mode, snapshotPath, prefaultMb):
//   snapshot  loads Pyodide from scratch, imports the harness (trusted code only), sends the memory
//             snapshot and exits. Never sees user code.
//   serve     loads Pyodide from the snapshot (mapping prefaultMb MB of memory for the run to grow
//             into, when given), says `ready`, then runs an execution; after one that finished
//             cleanly, when the server sends `reset` (it keeps the child for another run), it puts
//             the interpreter back as it was before (fresh.ts), says `ready` again and runs the next
//             `run` the server sends.

import harnessPy from '../python/harness.py' with { type: 'text' };
import indicatorsPy from '../python/indicators.py' with { type: 'text' };
import legsPy from '../python/legs.py' with { type: 'text' };
import strategyApiPy from '../python/strategy_api.py' with { type: 'text' };
import type { BarColumns } from '../../src/data/bar-columns.ts';
import { findInstrument } from '../../src/domain/instrument.ts';
import { asInt32, asUint32, encodeFrame, FrameDecoder } from '../protocol.ts';
import { EngineBridge } from './bridge.ts';
import { fineBars, loadBatch } from './columns.ts';
import { checkpoint, restore } from './fresh.ts';
import { GLUE, PY_DIR } from './glue.ts';
import { accountState, legColumns, legEnginesOf } from './leg-bridge.ts';

declare const Deno: {
  args: string[];
  stdin: { readSync(p: Uint8Array): number | null };
  stdout: { writeSync(p: Uint8Array): number };
  readFileSync(path: string): Uint8Array;
  readFile(path: string): Promise<Uint8Array>;
  exit(code: number): never;
};

// An empty lockfile: no package can be loaded, from any URL (test/playground/escape.test.ts, "cannot load packages").
const LOCK = JSON.stringify({
  info: { abi_version: '2026_0', arch: 'wasm32', platform: 'emscripten_5_0_3', python: '3.14.2' },
  packages: {},
});

const decoder = new FrameDecoder(512 * 1024 * 1024);
const chunk = new Uint8Array(1 << 20);
const queued: Record<string, unknown>[] = [];

function send(msg: object): void {
  const bytes = encodeFrame(msg);
  let off = 0;
  while (off < bytes.byteLength) off += Deno.stdout.writeSync(bytes.subarray(off));
}

function readFrame(): Record<string, unknown> {
  for (;;) {
    const m = decoder.next();
    if (m !== undefined) return m as Record<string, unknown>;
    const n = Deno.stdin.readSync(chunk);
    if (n === null) Deno.exit(0); // the server went away
    decoder.push(chunk.subarray(0, n as number));
  }
}

/** The next frame of type `t`; frames of other types read meanwhile wait in `queued`. */
function expect(t: string): Record<string, unknown> {
  const at = queued.findIndex((m) => m.t === t);
  if (at >= 0) return queued.splice(at, 1)[0];
  for (;;) {
    const m = readFrame();
    if (m.t === t) return m;
    queued.push(m);
  }
}

function nextCommand(): Record<string, unknown> {
  return queued.length > 0 ? (queued.shift() as Record<string, unknown>) : readFrame();
}

/**
 * Bars per call into Python. A batch (a day: up to 86,400 bars) is run in slices, each its own call:
 * Python runs a whole call in one invocation of its interpreter loop, and V8 swaps in the optimised
 * code of a WebAssembly function (tier-up) only for calls made after it is compiled, so a fresh
 * child's first day would otherwise run entirely in baseline code. A call costs microseconds.
 */
const SLICE_BARS = 4096;

/** Runs the loaded batch's n bars (run bars from `base`) a slice a call; the strategy's error stops it. */
function runSlices(
  pyBatch: (base: number, off: number, m: number, ctx: unknown, legs?: unknown) => unknown, base: number, n: number, ctx: unknown[], legs: unknown[] | undefined,
): string | undefined {
  let error: string | undefined;
  let off = 0;
  do {
    // Context bars (and the other contracts' bars) of the batch go with its first slice.
    const first = off === 0;
    error = (legs === undefined || !first
      ? pyBatch(base + off, off, Math.min(SLICE_BARS, n - off), first ? ctx : undefined)
      : pyBatch(base + off, off, Math.min(SLICE_BARS, n - off), ctx, legs)) as string | undefined;
    off += SLICE_BARS;
  } while (off < n && !error);
  return error;
}

/** Asks the server for stored bars (`need`) and reads its answer, counting the time spent. */
function askFine(spent: { needMs: number; needs: number }, need: object): Map<number, BarColumns> {
  const t0 = performance.now();
  send(need);
  const bars = fineBars(expect('fine'));
  spent.needMs += performance.now() - t0;
  spent.needs++;
  return bars;
}

async function loadPython(pyodideDir: string, snapshot: Promise<Uint8Array> | null) {
  const { loadPyodide } = await import(`${pyodideDir}/pyodide.mjs`);
  const quiet = () => {};
  return await loadPyodide({
    indexURL: `${pyodideDir}/`,
    lockFileContents: LOCK,
    packageBaseUrl: '/nonexistent/',
    // Pyodide's defaults copy no host variable but add `_` (the script path): give it nothing.
    env: { HOME: '/home/pyodide', _: '/sandbox' },
    stdout: quiet,
    stderr: quiet,
    ...(snapshot ? { _loadSnapshot: snapshot } : { _makeSnapshot: true }),
  });
}

async function makeSnapshot(pyodideDir: string): Promise<void> {
  const py = await loadPython(pyodideDir, null);
  py.FS.mkdirTree(PY_DIR);
  py.FS.writeFile(`${PY_DIR}/harness.py`, harnessPy);
  py.FS.writeFile(`${PY_DIR}/indicators.py`, indicatorsPy);
  py.FS.writeFile(`${PY_DIR}/strategy_api.py`, strategyApiPy);
  py.FS.writeFile(`${PY_DIR}/legs.py`, legsPy);
  py.runPython(GLUE);
  send({ t: 'snapshot', bytes: py.makeMemorySnapshot() });
}

/**
 * The harness's output: each kept line leaves at once, in a frame of its own (at most the harness's
 * 2,000 lines), with the open time of the bar the strategy was on (null before the first bar), so a
 * child that dies mid-batch has already delivered what it printed. Returns the drain of kept lines.
 */
function pythonLogs(g: { get(name: string): any }): () => string[] {
  const pyLogs = g.get('_rd_logs');
  const setEmit = g.get('_rd_set_emit');
  setEmit((line: string, barTime?: number | null) => send({ t: 'log', logs: [String(line)], times: [typeof barTime === 'number' ? barTime : null] }));
  setEmit.destroy();
  return () => {
    const l = pyLogs();
    const out = l.toJs() as string[];
    l.destroy();
    return out;
  };
}

/** The interpreter's entry points the serving loop calls (GLUE's functions). */
interface Python {
  py: any;
  start: (code: unknown, params: unknown, meta: unknown, bridge: EngineBridge) => unknown;
  alloc: (n: number) => string;
  batch: (base: number, off: number, m: number, ctx: unknown, legs?: unknown) => unknown;
  finish: () => unknown;
  done: () => unknown;
  logs: () => string[];
  heap: { HEAPU8: Uint8Array; HEAPF64: Float64Array; HEAPU32: Uint32Array; HEAP32: Int32Array };
}

async function serve(pyodideDir: string, snapshotPath: string, prefaultMb: number): Promise<void> {
  // Read off the main thread: Pyodide awaits it only after starting to compile its module and
  // while loading its JS, so the 31 MB read overlaps them.
  const py = await loadPython(pyodideDir, Deno.readFile(snapshotPath));
  const g = py.globals;
  const p: Python = {
    py, start: g.get('_rd_start'), alloc: g.get('_rd_alloc'), batch: g.get('_rd_batch'), finish: g.get('_rd_finish'), done: g.get('_rd_done'),
    logs: pythonLogs(g), heap: py._module,
  };
  // Taken before the prefault: the state each run starts from (fresh.ts). The prefault's pages stay mapped.
  const fresh = checkpoint(py.FS, py._module, g.get('_rd_touch'));
  if (prefaultMb > 0) g.get('_rd_prefault')(prefaultMb);
  send({ t: 'ready' });
  // An optimisation's child runs one combination after another (the server decides: it sends `reset`
  // and then `run`, or kills the child); a run that did not finish cleanly ends the child. The
  // interpreter is put back only on `reset`: most children are killed after their one run, and
  // never pay for it.
  while (runOnce(p, expect('run'))) {
    expect('reset');
    restore(py.FS, py._module, fresh);
    send({ t: 'ready' });
  }
}

/** One execution from `run` to `finished`; true when it finished without an error. */
function runOnce(p: Python, run: Record<string, unknown>): boolean {
  const inst = findInstrument(String(run.symbol));
  if (!inst) throw new Error(`unknown instrument ${String(run.symbol)}`);
  // Where the child's time goes, reported with `finished` (diagnostics only; the server trusts none of it).
  const spent = { batchMs: 0, convertMs: 0, needMs: 0, needs: 0 };
  const bridge = new EngineBridge(inst, Number(run.startingBalanceCents), Number(run.slippageTicks), p.heap, (k, up, down) => askFine(spent, { t: 'need', k, up, down }));
  bridge.legs = legEnginesOf(run, bridge, (leg, k, up, down) => {
    const bars = askFine(spent, { t: 'need', k, up, down, leg }).get(k);
    if (bars === undefined) throw new Error(`server sent no stored bars of contract ${leg} for run bar ${k}`);
    return bars;
  });
  // The harness's divisor (meta.ticks_per_unit): the prices packed here must be the ones it would make.
  const ticksPerUnit = Number((run.meta as Record<string, unknown>).ticks_per_unit);
  const startError = p.start(run.code, run.params, run.meta, bridge) as string | undefined;
  send({ t: 'started', error: startError ?? null, logs: p.logs() });
  if (startError) return false;

  for (;;) {
    const m = nextCommand();
    if (m.t === 'finish') {
      bridge.actions = [];
      const error = p.finish() as string | undefined;
      const s = accountState(bridge, Number(run.startingBalanceCents));
      send({ t: 'finished', acts: bridge.actions, error: error ?? null, logs: p.logs(), ...s, spent });
      return !error;
    }
    if (m.t !== 'batch') throw new Error(`unexpected ${String(m.t)}`);
    const base = Number(m.base);
    const t0 = performance.now();
    const { end, close } = loadBatch(m, ticksPerUnit, p.alloc, p.heap);
    bridge.batch = { base, end, close };
    bridge.actions = [];
    const ctx = (m.ctx as unknown[][]).map(([tf, t, ee, o, h, l, cc, v]) => [
      tf, asUint32(t), asUint32(ee), asInt32(o), asInt32(h), asInt32(l), asInt32(cc), asUint32(v),
    ]);
    const legs = bridge.legs === undefined ? undefined : legColumns(m.legs, bridge.legs);
    const t1 = performance.now();
    const error = runSlices(p.batch, base, close.length, ctx, legs);
    spent.convertMs += t1 - t0;
    spent.batchMs += performance.now() - t1;
    const s = accountState(bridge, Number(run.startingBalanceCents));
    send({ t: 'batch', seq: m.seq, done: p.done(), acts: bridge.actions, logs: p.logs(), error: error ?? null, ...s });
    if (error) return false;
  }
}

const [pyodideDir, mode, snapshotPath, prefault] = Deno.args;
try {
  if (mode === 'snapshot') await makeSnapshot(pyodideDir);
  else await serve(pyodideDir, snapshotPath, Math.min(Math.max(Number(prefault) || 0, 0), 512));
  Deno.exit(0);
} catch (e) {
  // Reported on stderr, which the server reads with a cap and logs; never trusted as a result.
  console.error(String((e as Error)?.stack ?? e));
  Deno.exit(3);
}
