// A shared child's fresh start between runs: the interpreter put back as it was before its first run.
//
// An optimisation's combinations run one after another in one child (docs/decisions.md, "Optimiser
// in seconds"); each must start from the state a new child would have. Python's whole state (every
// module and its globals, sys.modules, builtins, the random generator, the C modules' state, the
// allocator) lives in the WebAssembly memory, so the memory is copied once before the first run and
// written back after each: what a run defined, imported or changed is gone. The memory a run grew
// is zeroed (the allocator takes fresh memory for zeroed, as sbrk's is), and stays mapped. Pyodide's
// table of the JavaScript values Python holds (a WebAssembly table; the slots' counts are in the
// memory) is put back with it, as Pyodide's own snapshot load does.
//
// Outside that memory Pyodide keeps its file system (MEMFS, JavaScript objects): its files are
// listed and copied at the same moment, and after a run new paths are removed, changed or removed
// ones written back. What stays shared is the JavaScript realm (globalThis, Pyodide's tables of
// JavaScript objects), which only code reaching for JavaScript on purpose touches: the same user's
// same code, whose results the server recomputes anyway (the decision's reasons).

// Pyodide's FS as the child uses it (Emscripten's API).
interface Fs {
  readdir(path: string): string[];
  lstat(path: string): { mode: number; mtime: Date; size: number };
  isDir(mode: number): boolean;
  isFile(mode: number): boolean;
  isLink(mode: number): boolean;
  readlink(path: string): string;
  readFile(path: string): Uint8Array;
  writeFile(path: string, data: Uint8Array): void;
  mkdir(path: string, mode?: number): void;
  symlink(target: string, path: string): void;
  unlink(path: string): void;
  rmdir(path: string): void;
  chmod(path: string, mode: number): void;
  utime(path: string, atimeMs: number, mtimeMs: number): void;
}

type Entry =
  | { kind: 'dir'; mode: number }
  | { kind: 'file'; mode: number; mtimeMs: number; data: Uint8Array }
  | { kind: 'link'; target: string };

export interface Checkpoint {
  memory: Uint8Array;
  /** Pyodide's table of the JavaScript values Python holds (its slots' counts live in the memory). */
  refs: unknown[];
  /** Pyodide's map from a JavaScript value to its one (deduplicated) reference, and its entries. */
  dedup: { map: Map<unknown, unknown>; entries: [unknown, unknown][] } | null;
  files: Map<string, Entry>;
}

/** Pyodide's module as the reset uses it: the memory's view and the reference table's accessors. */
export interface PyModule {
  HEAPU8: Uint8Array;
  __hiwire_get(i: number): unknown;
  __hiwire_set(i: number, v: unknown): number;
}

/** Device and process trees: Emscripten's own, not files a run can leave behind. */
const SKIPPED = new Set(['/dev', '/proc']);

function children(fs: Fs, dir: string): string[] {
  return fs.readdir(dir).filter((n) => n !== '.' && n !== '..').map((n) => (dir === '/' ? `/${n}` : `${dir}/${n}`));
}

/** Every path under `dir` (depth first, parents before children) with what it is now. */
function walk(fs: Fs, dir: string, out: Map<string, { mode: number; mtimeMs: number }>): void {
  for (const p of children(fs, dir)) {
    if (SKIPPED.has(p)) continue;
    const st = fs.lstat(p);
    out.set(p, { mode: st.mode, mtimeMs: st.mtime.getTime() });
    if (fs.isDir(st.mode)) walk(fs, p, out);
  }
}

/** The reference table's entries, to its end (reading past it throws). */
function refsOf(m: PyModule): unknown[] {
  const out: unknown[] = [];
  for (;;) {
    try {
      out.push(m.__hiwire_get(out.length));
    } catch {
      return out;
    }
  }
}

/**
 * Pyodide's deduplication map (a JavaScript Map that only WebAssembly holds): caught by watching
 * Map.prototype.set while Python takes a method of a probe object, which Pyodide deduplicates.
 */
function dedupMap(touch: (o: object) => unknown): Map<unknown, unknown> | null {
  const probe = { probe() {} };
  const set = Map.prototype.set;
  let found: Map<unknown, unknown> | null = null;
  Map.prototype.set = function (this: Map<unknown, unknown>, k: unknown, v: unknown) {
    if (k === probe.probe || k === probe) found = this;
    return set.call(this, k, v);
  };
  try {
    touch(probe);
  } finally {
    Map.prototype.set = set;
  }
  return found;
}

export function checkpoint(fs: Fs, m: PyModule, touch: (o: object) => unknown): Checkpoint {
  const map = dedupMap(touch);
  const now = new Map<string, { mode: number; mtimeMs: number }>();
  walk(fs, '/', now);
  const files = new Map<string, Entry>();
  for (const [p, { mode, mtimeMs }] of now) {
    if (fs.isDir(mode)) files.set(p, { kind: 'dir', mode });
    else if (fs.isLink(mode)) files.set(p, { kind: 'link', target: fs.readlink(p) });
    else if (fs.isFile(mode)) files.set(p, { kind: 'file', mode, mtimeMs, data: fs.readFile(p) });
  }
  return { memory: m.HEAPU8.slice(), refs: refsOf(m), dedup: map && { map, entries: [...map] }, files };
}

/** Puts memory, references and files back as they were at `cp`. */
export function restore(fs: Fs, m: PyModule, cp: Checkpoint): void {
  // Without the map a run's references could outlive it there: the child is not reused (it exits).
  if (cp.dedup === null) throw new Error('no deduplication map: the child cannot be reset');
  cp.dedup.map.clear();
  for (const [k, v] of cp.dedup.entries) cp.dedup.map.set(k, v);
  const heap = m.HEAPU8; // the memory's current view (a grown memory has a new one)
  heap.set(cp.memory);
  heap.fill(0, cp.memory.byteLength);
  // Slots the memory says are taken hold their values again; later ones let go of what the run left.
  const n = refsOf(m).length;
  for (let i = 0; i < n; i++) if (m.__hiwire_set(i, i < cp.refs.length ? cp.refs[i] : null) < 0) throw new Error(`reference slot ${i} not restored`);
  const now = new Map<string, { mode: number; mtimeMs: number }>();
  walk(fs, '/', now);
  // New paths go, children before their parents.
  for (const p of [...now.keys()].reverse()) {
    if (cp.files.has(p)) continue;
    if (fs.isDir((now.get(p) as { mode: number }).mode)) fs.rmdir(p);
    else fs.unlink(p);
  }
  for (const [p, e] of cp.files) {
    const cur = now.get(p);
    if (e.kind === 'dir') {
      if (cur === undefined) fs.mkdir(p, e.mode);
      else if (cur.mode !== e.mode) fs.chmod(p, e.mode);
    } else if (e.kind === 'link') {
      if (cur !== undefined && fs.isLink(cur.mode) && fs.readlink(p) === e.target) continue;
      if (cur !== undefined) fs.unlink(p);
      fs.symlink(e.target, p);
    } else if (cur === undefined || cur.mode !== e.mode || cur.mtimeMs !== e.mtimeMs || fs.lstat(p).size !== e.data.byteLength) {
      fs.writeFile(p, e.data);
      fs.chmod(p, e.mode);
      fs.utime(p, e.mtimeMs, e.mtimeMs); // unchanged from now on: not written again after the next run
    }
  }
}
