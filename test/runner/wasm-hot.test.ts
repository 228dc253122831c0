// The interpreter loop's index in Pyodide's module (runner/host/wasm-hot.ts): the largest function
// body, counted after the imported functions, read from the module itself. On Pyodide's own module it
// is used by test/runner/pool.test.ts (the flag a pool child is spawned with).
import { describe, expect, it } from 'bun:test';
import { largestFunctionIndex } from '../../runner/host/wasm-hot.ts';

const leb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};
const name = (s: string) => [...leb(s.length), ...new TextEncoder().encode(s)];
const section = (id: number, payload: number[]) => [id, ...leb(payload.length), ...payload];
/** A function body of exactly `size` bytes: no locals, `nop`s, `end`. */
const body = (size: number) => [...leb(size), 0, ...new Array(size - 2).fill(0x01), 0x0b];

function module(bodies: number[]): Uint8Array {
  const types = section(1, [1, 0x60, 0, 0]); // one type: [] -> []
  const imports = section(2, [
    5,
    ...name('env'), ...name('f0'), 0, 0, // function
    ...name('env'), ...name('mem'), 2, 1, 1, 2, // memory with a maximum
    ...name('env'), ...name('f1'), 0, 0, // function
    ...name('env'), ...name('g'), 3, 0x7f, 0, // immutable i32 global
    ...name('env'), ...name('t'), 1, 0x70, 0, 1, // funcref table without a maximum
  ]);
  const funcs = section(3, [...leb(bodies.length), ...bodies.map(() => 0)]);
  const code = section(10, [...leb(bodies.length), ...bodies.flatMap(body)]);
  return new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, ...types, ...imports, ...funcs, ...code]);
}

describe('largestFunctionIndex', () => {
  it('is the largest body, after the imported functions (and only functions count among imports)', () => {
    const m = module([3, 200, 5]);
    expect(WebAssembly.validate(m)).toBe(true);
    expect(largestFunctionIndex(m)).toBe(2 + 1);
    expect(largestFunctionIndex(module([300, 200, 5]))).toBe(2);
    expect(largestFunctionIndex(module([3, 4, 500]))).toBe(4);
  });

  it('is null for a module without code', () => {
    expect(largestFunctionIndex(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]))).toBeNull();
  });
});
