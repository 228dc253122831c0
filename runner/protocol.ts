// The wire between the server and a runner child: length-prefixed msgpack frames on stdin/stdout.
//
// A frame is a 4-byte little-endian body length followed by the msgpack body (one map with a `t`
// field naming the message). The same framing runs both ways, but the two directions are not
// trusted alike: the server trusts what it sends; everything the child sends is untrusted (the
// child runs user code that can write anything to stdout), so the server decodes it with a size cap
// and checks every field before use (src/service/playground/messages.ts).
//
// Messages, server → child:
//   run    {code, params, meta, symbol, startingBalanceCents, slippageTicks}
//   batch  {seq, base, time, e, o, h, l, c, v, ctx}     bars of the run's timeframe (prices in ticks)
//   fine   {ks, offsets, time, open, high, low, close, volume}   stored bars of some run bars
//   finish {}
//   reset  {}                                           after a clean `finished`: put the interpreter back, say `ready`
// Messages, child → server:
//   ready    {}                                          Pyodide is loaded, waiting for `run`
//   snapshot {bytes}                                     snapshot mode only
//   started  {error}                                     user code compiled, init(ctx) ran
//   need     {k, up, down}                               stored bars of run bar k, please
//   batch    {seq, acts, logs, error, balanceCents, fillCount}
//   finished {logs, error}

import { Packr, RESERVE_START_SPACE, Unpackr } from 'msgpackr';

// Plain maps and typed arrays only: no records, no structured clones, nothing that builds classes.
const packr = new Packr({ useRecords: false, moreTypes: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

export function encodeFrame(msg: object): Uint8Array {
  const body = packr.pack(msg) as Uint8Array;
  const out = new Uint8Array(4 + body.byteLength);
  new DataView(out.buffer).setUint32(0, body.byteLength, true);
  out.set(body, 4);
  return out;
}

// The server's frames to its children, a day of bars each (megabytes): packed into one buffer kept
// from frame to frame, with the length prefix in the space msgpackr reserves before the body. A new
// buffer each time (and a second copy for the prefix) cost the server more than the packing, on
// machines where first touching fresh memory is dear (measured: ~0.4 s of server CPU over an empty
// run's 910,800 bars). msgpackr's packing buffer is module state shared by all its packers (the
// History's msgpack answers too): after each frame the others get a fresh buffer of their own, so
// none of their packed bytes can ever lie in this one. A Buffer: msgpackr writes strings with its
// utf8Write.
let scratch: Buffer = Buffer.allocUnsafeSlow(64 * 1024);

/**
 * encodeFrame's bytes in a buffer that the next call overwrites: hand them to a sink that copies
 * (Bun's FileSink `write` does) before encoding another frame.
 */
export function encodeFrameTransient(msg: object): Uint8Array {
  packr.useBuffer(scratch);
  try {
    const framed = packr.pack(msg, RESERVE_START_SPACE | 4) as Uint8Array;
    // A frame larger than the buffer made msgpackr move to a larger one: keep that.
    if (framed.buffer !== scratch.buffer) scratch = Buffer.from(framed.buffer);
    new DataView(framed.buffer, framed.byteOffset, 4).setUint32(0, framed.byteLength - 4, true);
    // A plain view: a Buffer's `slice` would not copy.
    return new Uint8Array(framed.buffer, framed.byteOffset, framed.byteLength);
  } finally {
    packr.useBuffer(Buffer.allocUnsafeSlow(8192));
  }
}

export class FrameError extends Error {}

/**
 * Accumulates bytes and yields whole frames. `maxFrameBytes` bounds one body: a larger length
 * prefix is a protocol error before any of it is buffered.
 */
export class FrameDecoder {
  private buf = new Uint8Array(64 * 1024);
  private start = 0;
  private end = 0;

  constructor(private maxFrameBytes: number) {}

  setMaxFrameBytes(n: number): void {
    this.maxFrameBytes = n;
  }

  push(chunk: Uint8Array): void {
    if (this.end + chunk.byteLength > this.buf.byteLength) {
      const live = this.end - this.start;
      let size = this.buf.byteLength;
      while (size < live + chunk.byteLength) size *= 2;
      const next = size === this.buf.byteLength ? this.buf : new Uint8Array(size);
      next.set(this.buf.subarray(this.start, this.end), 0);
      this.buf = next;
      this.start = 0;
      this.end = live;
    }
    this.buf.set(chunk, this.end);
    this.end += chunk.byteLength;
  }

  /** The next complete frame's message, or undefined when more bytes are needed. */
  next(): unknown {
    const avail = this.end - this.start;
    if (avail < 4) return undefined;
    const len = this.buf[this.start] | (this.buf[this.start + 1] << 8) | (this.buf[this.start + 2] << 16) | (this.buf[this.start + 3] << 24);
    if (len < 0 || len > this.maxFrameBytes) throw new FrameError(`frame of ${len >>> 0} bytes exceeds ${this.maxFrameBytes}`);
    if (avail < 4 + len) return undefined;
    // A copy: msgpack `bin` values come back as views into the body, and this buffer is reused for
    // the frames that follow (a queued batch must not change under its reader).
    const body = this.buf.slice(this.start + 4, this.start + 4 + len);
    this.start += 4 + len;
    if (this.start === this.end) this.start = this.end = 0;
    try {
      return unpackr.unpack(body);
    } catch (e) {
      throw new FrameError(`undecodable frame: ${(e as Error).message}`);
    }
  }

  /** Bytes received but not yet consumed as frames. */
  get pending(): number {
    return this.end - this.start;
  }
}

/** A typed array as raw little-endian bytes (msgpack `bin`); the receiver views it with `asInt32` etc. */
export function rawBytes(a: Int32Array | Uint32Array | Float64Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

function aligned(u8: Uint8Array, width: number): ArrayBuffer {
  if (u8.byteLength % width !== 0) throw new FrameError(`column of ${u8.byteLength} bytes is not a multiple of ${width}`);
  const copy = new Uint8Array(u8.byteLength);
  copy.set(u8);
  return copy.buffer;
}

export function asInt32(u8: unknown): Int32Array {
  if (!(u8 instanceof Uint8Array)) throw new FrameError('column is not binary');
  return new Int32Array(aligned(u8, 4));
}

export function asUint32(u8: unknown): Uint32Array {
  if (!(u8 instanceof Uint8Array)) throw new FrameError('column is not binary');
  return new Uint32Array(aligned(u8, 4));
}
