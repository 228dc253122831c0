// The runner child: one Deno process per execution, with no permission but reading Pyodide, this
// bundle and the snapshot (runner/host/sandbox.ts builds the command line). It loads Pyodide, runs
// the user's strategy through runner/python/harness.py against the bundled engine, and speaks only
// frames on stdin/stdout (runner/protocol.ts).
//
// Modes (Deno.args: pyodideDir, mode, snapshotPath, prefaultMb):
//   snapshot  loads Pyodide from scratch, imports the harness (trusted code only), sends the memory
//             snapshot and exits. Never sees user code.
//   serve     loads Pyodide from the snapshot (mapping prefaultMb MB of memory for the run to grow
//             into, when given), says `ready`, then runs exactly one execution.

import harnessPy from '../python/harness.py' with { type: 'text' };
import indicatorsPy from '../python/indicators.py' with { type: 'text' };
import legsPy from '../python/legs.py' with { type: 'text' };
import strategyApiPy from '../python/strategy_api.py' with { type: 'text' };
import type { BarColumns } from '../../src/data/bar-columns.ts';
import { findInstrument } from '../../src/domain/instrument.ts';
import { asInt32, asUint32, encodeFrame, FrameDecoder } from '../protocol.ts';
import { EngineBridge, SHARED, SHARED_SLOTS } from './bridge.ts';
import { fineBars, loadBatch } from './columns.ts';
import { accountState, legColumns, legEnginesOf } from './leg-bridge.ts';

declare const Deno: {
  args: string[];
  stdin: { readSync(p: Uint8Array): number | null };
  stdout: { writeSync(p: Uint8Array): number };
  readFileSync(path: string): Uint8Array;
  readFile(path: string): Promise<Uint8Array>;
  exit(code: number): never;
};

const PY_DIR = '/rd';
// An empty lockfile: no package can be loaded, from any URL (test/playground/escape.test.ts, "cannot load packages").
const LOCK = JSON.stringify({
  info: { abi_version: '2026_0', arch: 'wasm32', platform: 'emscripten_5_0_3', python: '3.14.2' },
  packages: {},
});

// Glue between the harness and the JS bridge: converts JS arrays to the tuples the harness expects.
const GLUE = `
import sys
from array import array
sys.path.insert(0, '${PY_DIR}')
import harness
import legs

# The bridge's shared array (runner/child/bridge.ts, SHARED, whose numbers are written in here): the
# state, the fills not yet taken, an order's fields and the working orders cross as int64s in memory,
# not as call arguments or answers. The state is slots 0-6, the order's fields 10 slots from _ORDER.
_FILLS_FROM, _FILLS_HELD, _FILLS_TAKEN = ${SHARED.fillsFrom}, ${SHARED.fillsHeld}, ${SHARED.fillsTaken}
_FILLS, _WORKING, _WORKING_MAX = ${SHARED.fills}, ${SHARED.working}, ${SHARED.workingMax}
_SLOTS = ${SHARED_SLOTS}
_NONE = -(1 << 63)

class _Bridge:
    __slots__ = ('_j', '_a', '_advance', '_fills', '_working', '_working_text', '_place', '_cancel', '_close', '_modify', '_lg')
    legs = property(lambda self: self._lg)
    def __init__(self, j):
        self._j = j
        self._lg = None if j.legs is None else legs.JsLegs(j.legs)  # the other contracts (runner/child/leg-bridge.ts)
        a = self._a = array('q', bytes(8 * _SLOTS))
        j.bind(a.buffer_info()[0], _SLOTS)
        self._advance = j.advanceShared
        self._fills = j.fillsText
        self._working = j.workingShared
        self._working_text = j.workingText
        self._place = j.placeShared
        self._cancel = j.cancelShared
        self._close = j.closeShared
        self._modify = j.modifyShared
    def advance(self, k):
        self._advance(k)
        a = self._a
        return (a[0], a[1], a[2], a[3], a[4], a[5], a[6])
    def place(self, k, ty, side, size, lim, stp, sl, tp, trail, sl_type):
        a = self._a
        a[${SHARED.order}] = k
        a[${SHARED.order + 1}] = ty
        a[${SHARED.order + 2}] = side
        a[${SHARED.order + 3}] = size
        a[${SHARED.order + 4}] = _NONE if lim is None else lim
        a[${SHARED.order + 5}] = _NONE if stp is None else stp
        a[${SHARED.order + 6}] = _NONE if sl is None else sl
        a[${SHARED.order + 7}] = _NONE if tp is None else tp
        a[${SHARED.order + 8}] = _NONE if trail is None else trail
        a[${SHARED.order + 9}] = _NONE if sl_type is None else sl_type
        oid = self._place()
        return (oid, '' if oid else self._j.lastReason)
    def modify(self, k, oid, size, lim, stp, trail):
        return self._modify(k, oid, size, lim, stp, trail)
    def cancel(self, k, oid):
        return bool(self._cancel(k, oid))
    def close(self, k, size):
        oid = self._close(k, size)
        return (oid, '' if oid else self._j.lastReason)
    def state(self):
        a = self._a
        return (a[0], a[1], a[2], a[3], a[4], a[5], a[6])
    def fills(self, i):
        # Fills [i, fill count): from the shared array when it holds them all, else as text.
        a = self._a
        n = a[5] - i
        if n <= 0:
            return []
        a[_FILLS_TAKEN] = i + n
        if a[_FILLS_FROM] == i and a[_FILLS_HELD] >= n:
            return [tuple(a[b:b + 8]) for b in range(_FILLS, _FILLS + 8 * n, 8)]
        t = self._fills(i)
        return [tuple(map(int, f.split(','))) for f in t.split(';')] if t else []
    def working(self):
        n = self._working()
        if n > _WORKING_MAX:
            t = self._working_text()
            return [tuple(None if v == '' else int(v) for v in o.split(',')) for o in t.split(';')] if t else []
        a = self._a
        return [tuple(None if v == _NONE else v for v in a[b:b + 7]) for b in range(_WORKING, _WORKING + 7 * n, 7)]

def _cols(t, e, o, h, l, c, v):
    return {'t': t.to_py().tolist(), 'e': e.to_py().tolist(), 'o': o.to_py().tolist(), 'h': h.to_py().tolist(),
            'l': l.to_py().tolist(), 'c': c.to_py().tolist(), 'v': v.to_py().tolist()}

def _rd_start(code, params, meta, jbridge):
    return harness.start(code, params.to_py(), meta.to_py(), _Bridge(jbridge))

_src = None  # the current batch's columns (Series layout)
_ZD = array('d', [0.0])
_ZQ = array('q', [0])

def _rd_alloc(n):
    # The batch's seven columns (four 'd' prices in units, then volume, time and end as 'q'), zeroed,
    # n long; JS writes the values straight into their buffers (loadBatch), so no copy is made here.
    global _src
    _src = (_ZD * n, _ZD * n, _ZD * n, _ZD * n, _ZQ * n, _ZQ * n, _ZQ * n)
    return ','.join([str(c.buffer_info()[0]) for c in _src])

def _rd_batch(base, off, m, ctx, legs=None):
    # Bars [off, off + m) of the loaded batch, as bars base... of the run; legs: the other
    # contracts' bars of the batch (a run over several instruments), with its first slice.
    src = _src if off == 0 and m == len(_src[0]) else tuple(c[off:off + m] for c in _src)
    cx = {x[0]: _cols(*list(x)[1:]) for x in ctx} if ctx is not None and len(ctx) else None
    lg = [_cols(*list(x)) for x in legs] if legs is not None else None
    return harness.run_columns(base, src, cx, lg)

def _rd_finish():
    return harness.finish()

def _rd_logs():
    return harness.take_logs()

def _rd_set_emit(fn):
    harness.set_emit(fn)

def _rd_prefault(mb):
    # Touches mb MB of fresh memory and frees it: the heap keeps the pages, mapped, for the run to
    # grow into (runner/limits.ts, PREFAULT_MB).
    block = _ZQ * (mb * 131072)
    del block

def _rd_done():
    # Bars that reached the strategy (the one whose on_bar raised included).
    return len(harness._rt.series)
`;

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

async function serve(pyodideDir: string, snapshotPath: string, prefaultMb: number): Promise<void> {
  // Read off the main thread: Pyodide awaits it only after starting to compile its module and
  // while loading its JS, so the 31 MB read overlaps them.
  const py = await loadPython(pyodideDir, Deno.readFile(snapshotPath));
  const g = py.globals;
  const pyStart = g.get('_rd_start');
  const pyAlloc = g.get('_rd_alloc');
  const heap = py._module as { HEAPF64: Float64Array; HEAPU32: Uint32Array; HEAP32: Int32Array };
  const pyBatch = g.get('_rd_batch');
  const pyFinish = g.get('_rd_finish');
  const pyDone = g.get('_rd_done');
  const logs = pythonLogs(g);
  if (prefaultMb > 0) g.get('_rd_prefault')(prefaultMb);
  send({ t: 'ready' });

  const run = expect('run');
  const inst = findInstrument(String(run.symbol));
  if (!inst) throw new Error(`unknown instrument ${String(run.symbol)}`);
  // Where the child's time goes, reported with `finished` (diagnostics only; the server trusts none of it).
  const spent = { batchMs: 0, convertMs: 0, needMs: 0, needs: 0 };
  const bridge = new EngineBridge(inst, Number(run.startingBalanceCents), Number(run.slippageTicks), heap, (k, up, down) => askFine(spent, { t: 'need', k, up, down }));
  bridge.legs = legEnginesOf(run, bridge, (leg, k, up, down) => {
    const bars = askFine(spent, { t: 'need', k, up, down, leg }).get(k);
    if (bars === undefined) throw new Error(`server sent no stored bars of contract ${leg} for run bar ${k}`);
    return bars;
  });
  // The harness's divisor (meta.ticks_per_unit): the prices packed here must be the ones it would make.
  const ticksPerUnit = Number((run.meta as Record<string, unknown>).ticks_per_unit);
  const startError = pyStart(run.code, run.params, run.meta, bridge) as string | undefined;
  send({ t: 'started', error: startError ?? null, logs: logs() });
  if (startError) return;

  for (;;) {
    const m = nextCommand();
    if (m.t === 'finish') {
      bridge.actions = [];
      const error = pyFinish() as string | undefined;
      const s = accountState(bridge, Number(run.startingBalanceCents));
      send({ t: 'finished', acts: bridge.actions, error: error ?? null, logs: logs(), ...s, spent });
      return;
    }
    if (m.t !== 'batch') throw new Error(`unexpected ${String(m.t)}`);
    const base = Number(m.base);
    const t0 = performance.now();
    const { end, close } = loadBatch(m, ticksPerUnit, pyAlloc, heap);
    bridge.batch = { base, end, close };
    bridge.actions = [];
    const ctx = (m.ctx as unknown[][]).map(([tf, t, ee, o, h, l, cc, v]) => [
      tf, asUint32(t), asUint32(ee), asInt32(o), asInt32(h), asInt32(l), asInt32(cc), asUint32(v),
    ]);
    const legs = bridge.legs === undefined ? undefined : legColumns(m.legs, bridge.legs);
    const t1 = performance.now();
    const error = runSlices(pyBatch, base, close.length, ctx, legs);
    spent.convertMs += t1 - t0;
    spent.batchMs += performance.now() - t1;
    const s = accountState(bridge, Number(run.startingBalanceCents));
    send({ t: 'batch', seq: m.seq, done: pyDone(), acts: bridge.actions, logs: logs(), error: error ?? null, ...s });
    if (error) return;
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
