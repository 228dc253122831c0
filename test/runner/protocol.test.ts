// The runner's framing: frames split anywhere, several at once, binary columns that stay intact
// while later frames reuse the decoder's buffer, and the caps on what a child may send.
import { describe, expect, it } from 'bun:test';
import { Packr } from 'msgpackr';
import { asInt32, asUint32, encodeFrame, encodeFrameTransient, FrameDecoder, FrameError, rawBytes } from '../../runner/protocol.ts';

describe('frames', () => {
  it('decode across arbitrary chunk boundaries', () => {
    const a = encodeFrame({ t: 'batch', seq: 1, c: rawBytes(new Int32Array([1, -2, 3])) });
    const b = encodeFrame({ t: 'need', k: 7, up: 2147483647, down: -2147483648 });
    const all = new Uint8Array([...a, ...b]);
    for (let cut = 0; cut <= all.length; cut++) {
      const d = new FrameDecoder(1 << 20);
      const out: any[] = [];
      d.push(all.subarray(0, cut));
      for (let m = d.next(); m !== undefined; m = d.next()) out.push(m);
      d.push(all.subarray(cut));
      for (let m = d.next(); m !== undefined; m = d.next()) out.push(m);
      expect(out.map((m) => m.t)).toEqual(['batch', 'need']);
      expect(Array.from(asInt32(out[0].c))).toEqual([1, -2, 3]);
      expect(out[1]).toEqual({ t: 'need', k: 7, up: 2147483647, down: -2147483648 });
      expect(d.pending).toBe(0);
    }
  });

  it('keeps a decoded column intact while later frames arrive (a queued batch is read later)', () => {
    const d = new FrameDecoder(1 << 20);
    d.push(encodeFrame({ t: 'batch', time: rawBytes(new Uint32Array([100, 200, 4_000_000_000])) }));
    const first = d.next() as any;
    for (let i = 0; i < 50; i++) {
      d.push(encodeFrame({ t: 'fine', time: rawBytes(new Uint32Array(1000).fill(i)) }));
      d.next();
    }
    expect(Array.from(asUint32(first.time))).toEqual([100, 200, 4_000_000_000]);
  });

  it('encodes the same bytes into a reused buffer, small frames and frames larger than it alike', () => {
    const msgs = [
      { t: 'run', code: 'x', params: { a: 1 } },
      { t: 'batch', seq: 1, c: rawBytes(new Int32Array(300_000).map((_, i) => i - 150_000)) }, // 1.2 MB: the buffer grows
      { t: 'finish' },
      { t: 'batch', seq: 2, c: rawBytes(new Int32Array(3).fill(-1)) },
    ];
    const d = new FrameDecoder(1 << 24);
    for (const m of msgs) {
      const framed = encodeFrameTransient(m);
      expect(Array.from(framed)).toEqual(Array.from(encodeFrame(m)));
      d.push(framed.slice()); // as the sink copies before the next frame is encoded
    }
    const out = [d.next(), d.next(), d.next(), d.next()] as any[];
    expect(out.map((m) => m.t)).toEqual(['run', 'batch', 'finish', 'batch']);
    expect(asInt32(out[1].c)[299_999]).toBe(149_999);
    expect(Array.from(asInt32(out[3].c))).toEqual([-1, -1, -1]);
    // The buffer is reused: the next frame overwrites the last one's bytes.
    const a = encodeFrameTransient({ t: 'finish' });
    const before = a.slice();
    encodeFrameTransient({ t: 'stop' });
    expect(Array.from(a)).not.toEqual(Array.from(before));
  });

  it("never overwrites what another of msgpackr's packers packed (their buffer state is shared)", () => {
    const other = new Packr({ useRecords: false });
    encodeFrameTransient({ t: 'batch', c: rawBytes(new Int32Array(10_000)) });
    const held = other.pack({ answer: 'x'.repeat(100), n: 7 }); // a History answer, say, not yet sent
    const copy = Uint8Array.prototype.slice.call(held);
    encodeFrameTransient({ t: 'batch', c: rawBytes(new Int32Array(200_000).fill(-1)) }); // larger: would reach it
    encodeFrameTransient({ t: 'finish' });
    expect(Array.from(held)).toEqual(Array.from(copy));
  });

  it('refuses a frame over the cap before buffering it, and undecodable bytes', () => {
    const d = new FrameDecoder(16);
    d.push(encodeFrame({ t: 'x', pad: 'y'.repeat(64) }).subarray(0, 4));
    expect(() => d.next()).toThrow(FrameError);
    const e = new FrameDecoder(1024);
    e.push(new Uint8Array([2, 0, 0, 0, 0xc1, 0xc1]));
    expect(() => e.next()).toThrow(FrameError);
  });

  it('refuses a column whose length is not a whole number of elements', () => {
    expect(() => asInt32(new Uint8Array(6))).toThrow('not a multiple of 4');
    expect(() => asInt32('nope')).toThrow('column is not binary');
  });
});
