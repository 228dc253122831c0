// Deterministic random numbers for the generator: seeds from (symbol, UTC day, stream) through integer
// hashing, sfc32 draws, and normal and exponential draws by table look-up.
//
// Determinism across machines: sfc32 is integer math on 32-bit words, and the tables are built at load
// time from IEEE-754 operations that are exactly rounded in every JavaScript engine (+ − × ÷,
// Math.sqrt, Math.floor), with a logarithm written here in those operations; Math.log/exp/pow are
// never used. So the same seed gives the same draws, bit for bit, everywhere.

import { assert } from '../../lib/assert.ts';

// ---- Deterministic math for the tables (IEEE + − × ÷ and sqrt only). ----

const LN2 = 0.6931471805599453;
const SQRT2 = 1.4142135623730951;

/** Natural logarithm by exact halving and the atanh series: bit-identical on every engine. */
function detLog(x: number): number {
  assert(x > 0 && x < Infinity, 'detLog needs a positive finite number');
  let e = 0;
  while (x >= 2) { x *= 0.5; e++; }
  while (x < 1) { x *= 2; e--; }
  if (x > SQRT2) { x *= 0.5; e++; }
  const s = (x - 1) / (x + 1);
  const s2 = s * s;
  let term = s;
  let sum = 0;
  for (let k = 1; k < 40; k += 2) { sum += term / k; term *= s2; }
  return 2 * sum + e * LN2;
}

// Acklam's coefficients for the inverse normal CDF.
const ACKLAM_A = [-39.69683028665376, 220.9460984245205, -275.928510446969, 138.357751867269, -30.66479806614716,
  2.506628277459239];
const ACKLAM_B = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
const ACKLAM_C = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734,
  4.374664141464968, 2.938163982698783];
const ACKLAM_D = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];

/** Inverse standard normal CDF (Acklam's rational approximation, relative error < 1.2e-9). */
function inverseNormal(p: number): number {
  const a = ACKLAM_A, b = ACKLAM_B, c = ACKLAM_C, d = ACKLAM_D;
  if (p < 0.02425) {
    const q = Math.sqrt(-2 * detLog(p));
    const num = ((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5];
    return num / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - 0.02425) return -inverseNormal(1 - p);
  const q = p - 0.5;
  const r = q * q;
  const num = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q;
  return num / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

const TABLE_SIZE = 4_096; // indexed by the top 12 bits of a draw
const FRACTION_SCALE = 1 / 1_048_576; // the low 20 bits of a draw, as a fraction

/** Normal draw = base[top 12 bits] + slope[top 12 bits] × (low 20 bits): a piecewise-linear inverse CDF. */
export const normalBase = new Float64Array(TABLE_SIZE);
export const normalSlope = new Float64Array(TABLE_SIZE);
/** Exponential(1) draw = expTable[12 bits], the quantile at the middle of each cell. */
export const expTable = new Float64Array(TABLE_SIZE);

function buildTables(): void {
  const q = new Float64Array(TABLE_SIZE + 1);
  q[0] = inverseNormal(1 / (16 * TABLE_SIZE));
  for (let j = 1; j < TABLE_SIZE / 2; j++) q[j] = inverseNormal(j / TABLE_SIZE);
  for (let j = TABLE_SIZE / 2; j <= TABLE_SIZE; j++) q[j] = -q[TABLE_SIZE - j]; // exact symmetry: mean 0
  let variance = 0;
  for (let j = 0; j < TABLE_SIZE; j++) variance += (q[j] * q[j] + q[j] * q[j + 1] + q[j + 1] * q[j + 1]) / 3;
  const scale = 1 / Math.sqrt(variance / TABLE_SIZE); // unit variance despite the clipped tails
  for (let j = 0; j < TABLE_SIZE; j++) {
    normalBase[j] = q[j] * scale;
    normalSlope[j] = (q[j + 1] - q[j]) * scale * FRACTION_SCALE;
    expTable[j] = -detLog(1 - (j + 0.5) / TABLE_SIZE);
  }
}
buildTables();

// ---- Random numbers: sfc32 (32-bit state words, integer math only). ----

/** Finalizer of MurmurHash3: spreads every input bit over the whole word. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85eb_ca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2_ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** FNV-1a of the symbol: the per-symbol part of every seed. */
export function hashSymbol(symbol: string): number {
  let h = 0x811c_9dc5;
  for (let i = 0; i < symbol.length; i++) h = Math.imul(h ^ symbol.charCodeAt(i), 0x0100_0193);
  return h >>> 0;
}

// One independent stream of draws per use, so that one use never shifts the draws of another.
export const STREAM_ANCHOR_FORWARD = 1;
export const STREAM_ANCHOR_BACKWARD = 2;
export const STREAM_MINUTE = 3;
export const STREAM_WALK = 4;
export const STREAM_BARS = 5;

/**
 * sfc32 seeded from (symbol, UTC day, stream). The per-slot loops in intraday.ts inline `nextU32` on
 * local copies of `a`–`d` for speed, so a change here must be made there too.
 */
export class Sfc32 {
  a: number;
  b: number;
  c: number;
  d: number;

  constructor(symbolHash: number, day: number, stream: number) {
    this.a = fmix32(symbolHash ^ 0x9e37_79b9);
    this.b = fmix32((day + 0x632b_e5ab) ^ Math.imul(stream, 0x27d4_eb2f));
    this.c = fmix32(symbolHash + Math.imul(stream, 0x1656_67b1) + day);
    this.d = 1;
    for (let i = 0; i < 12; i++) this.nextU32();
  }

  nextU32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  uniform(): number {
    return this.nextU32() * 2.3283064365386963e-10;
  }

  normal(): number {
    const r = this.nextU32();
    const i = r >>> 20;
    return normalBase[i] + normalSlope[i] * (r & 0xf_ffff);
  }
}
