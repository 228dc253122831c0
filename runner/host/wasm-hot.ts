// The index of a WebAssembly module's largest function: in Pyodide's module, CPython's interpreter
// loop (`_PyEval_EvalFrameDefault`, 79 KB of the 9.6 MB), where a strategy spends nearly all its time.
//
// V8 runs WebAssembly first in its baseline compiler (Liftoff) and optimises hot functions in the
// background, and a call already running never switches to the optimised code. A fresh child's run
// therefore spent its first hundreds of thousands of bars in the baseline interpreter loop, and paid
// the optimisation during the run. A child loaded ahead of need gets
// `--wasm-eager-tier-up-function=<this index>`: the loop is optimised while it loads (sandbox.ts).
//
// The index is read from the module, not written down, so a new Pyodide brings its own. Only the
// sections needed are read: imports (imported functions come first in the index space) and code.

const SECTION_IMPORT = 2;
const SECTION_CODE = 10;

class Reader {
  constructor(
    private readonly b: Uint8Array,
    public p = 0,
  ) {}

  byte(): number {
    if (this.p >= this.b.length) throw new Error('wasm: unexpected end');
    return this.b[this.p++];
  }

  /** Unsigned LEB128 (at most 32 bits, as the format's counts and sizes are). */
  u32(): number {
    let r = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const x = this.byte();
      r += (x & 0x7f) * 2 ** shift;
      if (x < 0x80) return r;
    }
    throw new Error('wasm: LEB128 too long');
  }

  skip(n: number): void {
    this.p += n;
  }

  limits(): void {
    const flags = this.byte();
    this.u32();
    if (flags & 1) this.u32();
  }
}

/** Imported functions, counted from an import section's payload. */
function importedFunctions(r: Reader): number {
  let funcs = 0;
  for (let n = r.u32(); n > 0; n--) {
    r.skip(r.u32()); // module name
    r.skip(r.u32()); // field name
    const kind = r.byte();
    if (kind === 0) {
      r.u32(); // type index
      funcs++;
    } else if (kind === 1) {
      r.byte(); // reference type
      r.limits();
    } else if (kind === 2) {
      r.limits();
    } else if (kind === 3) {
      r.byte(); // value type
      r.byte(); // mutability
    } else if (kind === 4) {
      r.byte(); // tag attribute
      r.u32(); // type index
    } else throw new Error(`wasm: import kind ${kind}`);
  }
  return funcs;
}

/** The function index (imports included) of the largest function body; null for a module without code. */
export function largestFunctionIndex(module: Uint8Array): number | null {
  const r = new Reader(module, 8); // magic and version
  let imported = 0;
  while (r.p < module.length) {
    const id = r.byte();
    const size = r.u32();
    const end = r.p + size;
    if (id === SECTION_IMPORT) imported = importedFunctions(new Reader(module.subarray(r.p, end)));
    if (id === SECTION_CODE) {
      let best = -1;
      let bestSize = -1;
      const count = r.u32();
      for (let i = 0; i < count; i++) {
        const body = r.u32();
        if (body > bestSize) [best, bestSize] = [i, body];
        r.skip(body);
      }
      return best < 0 ? null : imported + best;
    }
    r.p = end;
  }
  return null;
}
