// What happens around the happy path: idle accounting, restarts after downtime, failed commits.
import { describe, expect, it } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { limits } from '../../../src/config.ts';
import { makeApp, type TestApp, waitFor } from '../../support/app.ts';
import { dayOf, rampBars, secondsOf } from '../../support/bars.ts';

const OPEN = '2025-03-03T14:30:00Z';
const CONFIG = { dataStartDate: '2024-01-08', dataEndDate: '2024-01-09' };

async function setup(dbPath?: string): Promise<TestApp & { token: string }> {
  const t = await makeApp({ dbPath, config: CONFIG });
  t.s.chunks.put('NQ', dayOf(OPEN), 'import', rampBars(secondsOf(OPEN), 600, 80_000));
  return Object.assign(t, { token: await t.login() });
}

async function start(t: TestApp & { token: string }) {
  const r = await t.post('Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-03', timeframe: '1s' }, t.token);
  return r.body as { accountId: number; instrument: { contractId: string } };
}

describe('idle accounting', () => {
  it('playback is not API activity: a session left playing for an hour is ended by the sweep', async () => {
    const t = await setup();
    const s = await start(t);
    await t.post('Replay/play', { accountId: s.accountId, speed: 50 }, t.token);
    t.clock.advance(limits.replayIdleMs + 1);
    const live = await t.s.replay.live(1, s.accountId);
    if (!live.ok) throw new Error('no session');
    // Let the timer play what is due (it commits), then sweep.
    await waitFor(() => live.value.currentIndex > 0);
    expect(await t.s.replay.sweepIdle()).toBe(1);
  });

  it('read-only calls are API activity', async () => {
    const t = await setup();
    const s = await start(t);
    t.clock.advance(limits.replayIdleMs - 60_000);
    await t.post('Position/searchOpen', { accountId: s.accountId }, t.token);
    t.clock.advance(120_000);
    expect(await t.s.replay.sweepIdle()).toBe(0);
    await t.post('Order/searchOpen', { accountId: s.accountId }, t.token);
    t.clock.advance(limits.replayIdleMs - 1000);
    expect(await t.s.replay.sweepIdle()).toBe(0);
  });

  it('sessions restored after a long stop are not swept before their clients are back', async () => {
    const dbPath = join(mkdtempSync(join(tmpdir(), 'rd-idle-')), 'replaydesk.db');
    const a = await setup(dbPath);
    const s = await start(a);
    await a.s.shutdown();
    a.s.db.close();
    const b = await makeApp({ dbPath, config: CONFIG, nowMs: a.clock.nowMs() + 3 * limits.replayIdleMs });
    expect(await b.s.replay.sweepIdle()).toBe(0);
    const token = await b.login();
    expect((await b.post('Replay/step', { accountId: s.accountId }, token)).body.currentIndex).toBe(1);
    b.s.db.close();
  });
});

describe('a commit that fails', () => {
  it('answers 500 and leaves memory as the store has it: no phantom position, no lost fill', async () => {
    const t = await setup();
    const s = await start(t);
    await t.post('Replay/step', { accountId: s.accountId, steps: 5 }, t.token);
    const store = (t.s.replay as any).registry.d.store;
    const original = store.insertFills;
    store.insertFills = () => {
      throw new Error('disk full');
    };
    const failed = await t.post('Order/place', { accountId: s.accountId, contractId: s.instrument.contractId, type: 2, side: 0, size: 1 }, t.token);
    store.insertFills = original;
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({ success: false, errorCode: 500, errorMessage: 'Internal server error' });
    expect((await t.post('Position/searchOpen', { accountId: s.accountId }, t.token)).body.positions).toEqual([]);
    expect((await t.post('Trade/search', { accountId: s.accountId }, t.token)).body.trades).toEqual([]);
    const retry = await t.post('Order/place', { accountId: s.accountId, contractId: s.instrument.contractId, type: 2, side: 0, size: 1 }, t.token);
    expect(retry.body.success).toBe(true);
    expect((await t.post('Position/searchOpen', { accountId: s.accountId }, t.token)).body.positions[0].size).toBe(1);
    const step = await t.post('Replay/step', { accountId: s.accountId }, t.token);
    expect(step.body.currentIndex).toBe(6);
  });
});
