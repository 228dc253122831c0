// The bars an optimisation's combinations share on a node (src/service/playground/optimize-shared.ts):
// a span's day is aggregated once and its columns reused by every later combination of the span,
// each in a batch of its own; another span is aggregated apart; outside an optimisation's runs
// every call reads again. A child kept for the next combination is told to reset (a child killed
// after its run never is), and is taken once it says `ready` again.

import { describe, expect, it } from 'bun:test';
import type { Incoming, RunnerChild } from '../../runner/host/child.ts';
import { findInstrument, type Instrument } from '../../src/domain/instrument.ts';
import { parseTimeframe, type Timeframe } from '../../src/domain/timeframe.ts';
import { OptimizationShares } from '../../src/service/playground/optimize-shared.ts';
import { DAY_S } from '../../src/lib/time-units.ts';
import { day, rollupWorld } from '../data/rollup-fixture.ts';

const NQ = findInstrument('NQ') as Instrument;
const tf = (text: string) => (parseTimeframe(text, { customEnabled: true, storedResolutionS: NQ.storedResolutionS }) as { ok: true; value: Timeframe }).value;

/** A bar source counting its reads. */
function counted() {
  const { source } = rollupWorld();
  const reads = { day: 0, rollup: 0 };
  const day0 = source.day.bind(source);
  const rollup0 = source.rollup.bind(source);
  source.day = (inst, d) => (reads.day++, day0(inst, d));
  source.rollup = (inst, d, w) => (reads.rollup++, rollup0(inst, d, w));
  return { source, reads };
}

describe('the bars of an optimisation\'s span', () => {
  const d = day(2025, 3, 4);
  const span = { inst: NQ, tf: tf('5m'), ctx: [tf('1h')], startS: d * DAY_S, endS: (d + 2) * DAY_S };

  it('are aggregated once for every combination of the span, each combination with a batch of its own', () => {
    const { source, reads } = counted();
    const shares = new OptimizationShares(source);
    shares.begin('opt_a');
    const first = shares.dayBatch('opt_a', span, d);
    const after = { ...reads };
    expect(after.day + after.rollup).toBeGreaterThan(0);
    const second = shares.dayBatch('opt_a', span, d);
    expect(reads).toEqual(after);
    expect(second).not.toBe(first);
    expect(second!.run).toBe(first!.run);
    expect(second!.runEnd).toBe(first!.runEnd);
    expect(second!.ctx).toBe(first!.ctx);
    expect(first!.run.length).toBeGreaterThan(0);
    // Another span (a walk-forward's next window) is its own.
    const other = shares.dayBatch('opt_a', { ...span, startS: span.startS + 3600 }, d);
    expect(other!.run).not.toBe(first!.run);
    expect(other!.run.time[0]).toBeGreaterThanOrEqual(span.startS + 3600);
    shares.close();
  });

  it('are read for each call outside an optimisation running here', () => {
    const { source } = counted();
    const shares = new OptimizationShares(source);
    const a = shares.dayBatch('opt_b', span, d);
    const b = shares.dayBatch('opt_b', span, d);
    expect(b!.run).not.toBe(a!.run);
    expect([...b!.run.close]).toEqual([...a!.run.close]);
    shares.close();
  });
});

/** A runner child that records what it is sent and answers `next()` with what the test gives it. */
function fakeChild() {
  const sent: object[] = [];
  const answers: ((m: Incoming) => void)[] = [];
  let killed = false;
  const child = {
    send: (msg: object) => (sent.push(msg), true),
    next: () => new Promise<Incoming>((resolve) => answers.push(resolve)),
    kill: () => {
      killed = true;
    },
  } as unknown as RunnerChild;
  return { child, sent, killed: () => killed, say: (t: string) => answers.shift()?.({ kind: 'message', msg: { t } }) };
}

describe('a child kept for the next combination', () => {
  it('is told to reset, and taken once it says ready again', async () => {
    const shares = new OptimizationShares(counted().source);
    shares.begin('opt_c');
    const f = fakeChild();
    shares.adopt(f.child);
    shares.park('opt_c', f.child);
    expect(f.sent).toEqual([{ t: 'reset' }]);
    f.say('ready');
    expect(await shares.take('opt_c')).toBe(f.child);
    expect(f.killed()).toBe(false);
    shares.close();
  });
});
