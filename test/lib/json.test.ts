// A runner child's frame read as `Decoded` (src/lib/json.ts): JSON's shapes pass as they are, anything
// else msgpack can carry becomes INVALID where it stands, nesting past the bound too, and the checks
// of src/service/playground/messages.ts then refuse such a value as they refused the original.
import { describe, expect, it } from 'bun:test';
import { Packr, Unpackr } from 'msgpackr';
import { INVALID } from '../../src/lib/invalid.ts';
import { parseDecoded } from '../../src/lib/json.ts';
import { asError } from '../../src/lib/thrown.ts';
import { frameOf, logLines, optionalText, parseActions, RunEnd } from '../../src/service/playground/messages.ts';

/** A message through msgpack as a child sends it and the server decodes it (runner/protocol.ts's options). */
function received(m: object): Record<string, unknown> {
  const body = new Packr({ useRecords: false, moreTypes: true }).pack(m);
  return new Unpackr({ useRecords: false, mapsAsObjects: true }).unpack(body) as Record<string, unknown>;
}

describe('parseDecoded', () => {
  it('keeps JSON data and absent values as they are: the same object, not a copy', () => {
    const m = { t: 'batch', seq: 1, acts: [[10, 'close', null]], logs: ['a'], error: null, spent: { batchMs: 1.5 }, gone: undefined };
    expect(parseDecoded(m, 4)).toBe(m);
  });

  it('puts INVALID where a value is none of JSON\'s, and copies only then', () => {
    const m = { acts: [[10, 'place', new Uint8Array([1]), 0, 1, null, null, null, null]], at: new Date(0), big: 10n, set: new Set([1]), ok: 'x' };
    const d = parseDecoded(m, 4);
    expect(d).toEqual({ acts: [[10, 'place', INVALID, 0, 1, null, null, null, null]], at: INVALID, big: INVALID, set: INVALID, ok: 'x' });
    expect(m.acts[0][2]).toBeInstanceOf(Uint8Array);
  });

  it('reads no deeper than the bound: a container past it is INVALID', () => {
    expect(parseDecoded({ a: [[[1]]] }, 3)).toEqual({ a: [[INVALID]] });
    expect(parseDecoded({ a: [[[1]]] }, 4)).toEqual({ a: [[[1]]] });
  });
});

describe('a child\'s frame, checked field by field', () => {
  it('a binary value inside an action is refused as that action, as before it was read as Decoded', () => {
    const m = frameOf(received({ t: 'batch', acts: [[10, 'place', 1, 0, 1, new Uint8Array([1, 2]), null, null, null]] }));
    expect(() => parseActions(m.acts, 10, 11)).toThrow(new RunEnd('failed', 'The strategy process broke the runner protocol (bad place action); the run was stopped'));
  });

  it('a log line or an error text that is binary is refused, an absent one is none', () => {
    const m = frameOf(received({ t: 'finished', logs: ['a', new Uint8Array([1])], error: new Uint8Array([1]) }));
    expect(() => logLines(m.logs)).toThrow(RunEnd);
    expect(() => optionalText(m.error, 'error')).toThrow(RunEnd);
    expect(logLines(frameOf(received({ t: 'finished' })).logs)).toEqual([]);
  });
});

describe('asError', () => {
  it('an Error is itself; another value becomes an Error whose text is the value\'s', () => {
    const e = new TypeError('boom');
    expect(asError(e)).toBe(e);
    expect(String(asError('boom'))).toBe('boom');
    expect(asError(42).message).toBe('42');
    expect(String(asError(undefined))).toBe('undefined');
  });
});
