// Scanning primitives for delimited bar files: lines and fields are index ranges into the one file
// string, and numbers are parsed straight from char codes. A parser creates one LineReader and one
// FieldSplitter per file and then only moves indexes, so a million-line file makes no per-line
// strings or objects (substrings are cut only to word an error message).
//
// Assumptions: lines end in LF or CRLF; a UTF-8 byte-order mark at the start is skipped; fields are
// not quoted with embedded delimiters (none of the four formats does that), so surrounding quotes
// and spaces are simply trimmed.

import { coreLimits } from '../../core-limits.ts';

const CR = 13;
const SPACE = 32;
const TAB = 9;
const QUOTE = 34;
const BOM = 0xfeff;

export class LineReader {
  readonly text: string;
  /** Lines in the file, counting a last line without a newline; the denominator for progress. */
  readonly lineCount: number;
  /** 1-based number of the current line; 0 before the first next(). */
  lineNo = 0;
  start = 0;
  end = 0;
  private pos: number;

  constructor(text: string) {
    this.text = text;
    this.pos = text.charCodeAt(0) === BOM ? 1 : 0;
    this.lineCount = countLines(text);
  }

  /** Moves to the next line; false at the end of the text. */
  next(): boolean {
    const text = this.text;
    if (this.pos >= text.length) return false;
    let nl = text.indexOf('\n', this.pos);
    if (nl < 0) nl = text.length;
    let e = nl;
    if (e > this.pos && text.charCodeAt(e - 1) === CR) e--;
    this.start = this.pos;
    this.end = e;
    this.pos = nl + 1;
    this.lineNo++;
    return true;
  }

  /** True when the current line holds only spaces or tabs: such lines are skipped everywhere. */
  isBlank(): boolean {
    for (let i = this.start; i < this.end; i++) {
      const c = this.text.charCodeAt(i);
      if (c !== SPACE && c !== TAB) return false;
    }
    return true;
  }

  /** The current line as a string, for error messages only. */
  lineText(): string {
    return this.text.slice(this.start, Math.min(this.end, this.start + 200));
  }
}

export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 0;
  let i = text.indexOf('\n');
  while (i >= 0) {
    n++;
    i = text.indexOf('\n', i + 1);
  }
  return text.charCodeAt(text.length - 1) === 10 ? n : n + 1;
}

/** Splits one line into trimmed field ranges `[starts[k], ends[k])`. */
export class FieldSplitter {
  readonly starts = new Int32Array(coreLimits.importFieldsPerLineMax);
  readonly ends = new Int32Array(coreLimits.importFieldsPerLineMax);
  count = 0;

  split(text: string, start: number, end: number, delim: string): number {
    let n = 0;
    let fs = start;
    for (;;) {
      let fe = text.indexOf(delim, fs);
      if (fe < 0 || fe > end) fe = end;
      if (n < coreLimits.importFieldsPerLineMax) {
        let s = fs;
        let e = fe;
        while (s < e && isTrimmable(text.charCodeAt(s))) s++;
        while (e > s && isTrimmable(text.charCodeAt(e - 1))) e--;
        this.starts[n] = s;
        this.ends[n] = e;
      }
      n++;
      if (fe >= end) break;
      fs = fe + 1;
    }
    this.count = n;
    return n;
  }

  /** Field k as a string, for headers and error messages only. */
  text(text: string, k: number): string {
    return text.slice(this.starts[k], Math.min(this.ends[k], this.starts[k] + 60));
  }
}

function isTrimmable(c: number): boolean {
  return c === SPACE || c === TAB || c === QUOTE;
}

const POW10: readonly number[] = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * Parses a plain decimal (`-16834.25`, `1.104250`, `16834250000000`) from `text[s, e)` and divides
 * it by 10^extraScale (9 for Databento fixed-point prices). The digits are gathered as an integer
 * and divided once by an exact power of ten, so the result is the correctly rounded double of the
 * written decimal. Exponent forms (`1.2e-05`) fall back to Number(). NaN when not a number.
 */
export function parseDecimal(text: string, s: number, e: number, extraScale = 0): number {
  if (s >= e) return NaN;
  let i = s;
  let neg = false;
  let c = text.charCodeAt(i);
  if (c === 45 || c === 43) {
    neg = c === 45;
    i++;
  }
  let mantissa = 0;
  let digits = 0;
  let scale = extraScale;
  let dot = false;
  for (; i < e; i++) {
    c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      mantissa = mantissa * 10 + (c - 48);
      digits++;
      if (dot) scale++;
    } else if (c === 46 && !dot) {
      dot = true;
    } else if (c === 101 || c === 69) {
      const v = Number(text.slice(s, e));
      return extraScale === 0 ? v : v / POW10[extraScale];
    } else {
      return NaN;
    }
  }
  if (digits === 0) return NaN;
  const v = scale === 0 ? mantissa : scale < POW10.length ? mantissa / POW10[scale] : mantissa / 10 ** scale;
  return neg ? -v : v;
}

/** True when `text[s, e)` holds a decimal point: tells Databento display prices from fixed-point ones. */
export function hasDot(text: string, s: number, e: number): boolean {
  const i = text.indexOf('.', s);
  return i >= 0 && i < e;
}

/** The unsigned integer written by exactly `n` digits at `text[i]`, or -1 when any is not a digit. */
export function digitsAt(text: string, i: number, n: number): number {
  let v = 0;
  for (let k = 0; k < n; k++) {
    const c = text.charCodeAt(i + k) - 48; // NaN past the end of the text
    if (!(c >= 0 && c <= 9)) return -1;
    v = v * 10 + c;
  }
  return v;
}

/** True when `text[s, e)` and `text[s2, e2)` hold the same characters. No substring is cut. */
export function sameText(text: string, s: number, e: number, s2: number, e2: number): boolean {
  if (e - s !== e2 - s2) return false;
  for (let k = 0; k < e - s; k++) if (text.charCodeAt(s + k) !== text.charCodeAt(s2 + k)) return false;
  return true;
}
