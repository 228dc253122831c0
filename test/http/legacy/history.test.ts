// Earlier family: History/retrieveBars (barsBack, endTime defaulting to the replay time, per-instrument caps).
import { describe, expect, it } from 'bun:test';
import type { BarSpec } from '../../support/replay.ts';
import { failure } from '../../support/legacy.ts';
import { legacyApp, legacyStart, legacyStep } from '../../support/legacy-trading.ts';
import { HISTORY_BARS_PER_REQUEST } from '../../../src/http/legacy/policy.ts';

const BARS: BarSpec[] = [20000, 20001, 20002, 20003, 20004, 20005];
const req = { contractId: 'CON.F.US.NQ.H25', unit: 2, unitNumber: 1 };
const times = (bars: any[]) => bars.map((b) => b.t.slice(11, 16));

describe('History/retrieveBars', () => {
  it('barsBack counts back from endTime', async () => {
    const t = await legacyApp(BARS);
    const r = await t.call('History/retrieveBars', { ...req, barsBack: 2, endTime: '2025-03-03T14:34:00Z' });
    expect(r.body.success).toBe(true);
    expect(times(r.body.bars)).toEqual(['14:32', '14:33']);
    expect(r.body.bars[1]).toEqual({ t: '2025-03-03T14:33:00Z', o: 20003, h: 20003, l: 20003, c: 20003, v: 1 });
  });

  it('barsBack without endTime and without a live session counts back from the end of the data', async () => {
    const t = await legacyApp(BARS);
    const r = await t.call('History/retrieveBars', { ...req, barsBack: 3 });
    expect(times(r.body.bars)).toEqual(['14:33', '14:34', '14:35']);
  });

  it('with a live session, endTime defaults to its replay time: never the bar after the one replayed', async () => {
    const t = await legacyApp(BARS);
    const x = await legacyStart(t);
    await legacyStep(t, x, 2);
    const back = await t.call('History/retrieveBars', { ...req, barsBack: 10 });
    expect(times(back.body.bars)).toEqual(['14:30', '14:31']);
    const fwd = await t.call('History/retrieveBars', { ...req, startTime: '2025-03-03T00:00:00Z' });
    expect(times(fwd.body.bars)).toEqual(['14:30', '14:31']);
    // An explicit endTime is the caller's choice.
    const explicit = await t.call('History/retrieveBars', { ...req, startTime: '2025-03-03T00:00:00Z', endTime: '2025-03-04T00:00:00Z' });
    expect(explicit.body.bars.length).toBe(6);
  });

  it('contract IDs are this family\'s (CL reads the oil history)', async () => {
    const t = await legacyApp(BARS);
    const r = await t.call('History/retrieveBars', { contractId: 'CON.F.US.CL.H24', unit: 3, unitNumber: 1, startTime: '2024-01-08T00:00:00Z', endTime: '2024-01-09T00:00:00Z' });
    expect(r.body.success).toBe(true);
    expect(r.body.bars.length).toBeGreaterThan(10);
  });

  it('the cap depends on instrument and timeframe', async () => {
    expect(HISTORY_BARS_PER_REQUEST.NQ.second).toBe(10_000);
    expect(HISTORY_BARS_PER_REQUEST.CL.second).toBe(5_000);
    const t = await legacyApp(BARS);
    const r = await t.call('History/retrieveBars', { contractId: 'CON.F.US.CL.H24', unit: 1, unitNumber: 10, startTime: '2024-01-08T00:00:00Z' });
    expect(r.body.bars.length).toBe(5_000);
  });

  it.each([
    ['unknown contract', { contractId: 'CON.F.US.XYZ.H25' }, 'Contract not found'],
    ['a current-family contract ID', { contractId: 'CON.F.US.ENQ.H25' }, 'Contract not found'],
    ['unknown unit', { unit: 9 }, 'Unit invalid'],
    ['unitNumber 0', { unitNumber: 0 }, 'Unit number invalid'],
    ['barsBack 0', { barsBack: 0 }, 'barsBack must be a whole number of at least 1'],
    ['barsBack not a number', { barsBack: 'ten' }, 'barsBack must be a whole number of at least 1'],
    ['barsBack with startTime', { barsBack: 5, startTime: '2025-03-03T00:00:00Z' }, 'barsBack cannot be combined with startTime'],
    ['unparseable endTime', { endTime: 'later' }, 'Invalid time range'],
  ])('%s → errorCode 1 "%s"', async (_n, over, message) => {
    const t = await legacyApp(BARS);
    expect((await t.call('History/retrieveBars', { ...req, ...over })).body).toEqual(failure(1, message));
  });
});
