// A failing rollup warm-up (a full disk) logs once per kind of failure per interval, with counts, and
// its last line says how many days failed; it used to log every failing instrument-day. The failure
// log alone: first line at once, then one per interval per kind with the count since, the rest at the end.

import { describe, expect, it } from 'bun:test';
import { defaultConfig, limits } from '../../src/config.ts';
import { INSTRUMENTS } from '../../src/domain/instrument.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { FailureLog } from '../../src/lib/failure-log.ts';
import { randomSecret } from '../../src/lib/secrets.ts';
import { createServices } from '../../src/service/services.ts';
import { openDb } from '../../src/store/db.ts';
import { T0 } from '../support/app.ts';
import { TEST_PASSWORD_COST } from '../support/test-env.ts';

type Line = [string, Record<string, unknown>];

describe('FailureLog', () => {
  it('logs a kind\'s first failure at once, then one line an interval with the count since; kinds apart; the rest on flush', () => {
    const clock = new ManualClock(T0);
    const lines: Line[] = [];
    const log = new FailureLog(() => clock.nowMs(), 60_000, 2, (m, f) => lines.push([m, f]));
    log.record('unwritable', 'failed', 'disk full');
    for (let i = 0; i < 5; i++) log.record('unwritable', 'failed', `disk full ${i}`);
    log.record('Error', 'failed', 'boom');
    expect(lines).toEqual([['failed', { kind: 'unwritable', failures: 1, error: 'disk full' }], ['failed', { kind: 'Error', failures: 1, error: 'boom' }]]);
    clock.advance(60_000);
    log.record('unwritable', 'failed', 'disk full again');
    expect(lines[2]).toEqual(['failed', { kind: 'unwritable', failures: 6, error: 'disk full again' }]);
    // A third kind past the bound of two is counted under `other`.
    log.record('TypeError', 'failed', 'x');
    log.record('RangeError', 'failed', 'y');
    expect(lines.slice(3)).toEqual([['failed', { kind: 'other', failures: 1, error: 'x' }]]);
    // Error's interval has passed too: its next failure is told at once; `other`'s second waits for the end.
    log.record('Error', 'failed', 'boom 2');
    expect(lines.slice(4)).toEqual([['failed', { kind: 'Error', failures: 1, error: 'boom 2' }]]);
    log.flush('at end');
    expect(lines.slice(5)).toEqual([['at end', { kind: 'other', failures: 1, error: 'y' }]]);
    expect(log.count).toBe(11);
  });
});

describe('the rollup warm-up on a full disk', () => {
  it('logs each kind of failure once (with counts) instead of every instrument-day, and says how many failed', async () => {
    const errors: Line[] = [];
    const infos: Line[] = [];
    const s = await createServices({
      config: defaultConfig({ passwordHash: TEST_PASSWORD_COST, dataStartDate: '2025-02-17', dataEndDate: '2025-03-02', rollupWorkers: 0 }),
      clock: new ManualClock(T0), db: openDb(':memory:'), jwtSecret: new TextEncoder().encode(randomSecret()),
      logError: (m, f) => errors.push([m, f]), logInfo: (m, f) => infos.push([m, f]),
    });
    try {
      let n = 0;
      // Every day fails: most as a full disk does in SQLite, every third with an error of another kind.
      s.bars.warmRollups = () => {
        n++;
        if (n % 3 === 0) throw new TypeError('cannot read rollup');
        throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      };
      const done = new Promise<void>((resolve) => {
        const poll = setInterval(() => {
          if (infos.some(([m]) => m === 'rollups warm')) resolve(clearInterval(poll));
        }, 5);
      });
      s.warmRollups();
      await done;
      const days = 14 * INSTRUMENTS.length;
      expect(n).toBe(days);
      expect(infos.find(([m]) => m === 'rollups warm')).toEqual(['rollups warm', { instrumentDays: days, failedDays: days }]);
      const failed = errors.filter(([m]) => m.startsWith('rollup warm-up'));
      expect(failed.map(([, f]) => f.kind)).toEqual(['unwritable', 'TypeError', 'unwritable', 'TypeError']);
      expect(failed.reduce((sum, [, f]) => sum + (f.failures as number), 0)).toBe(days);
      expect(failed[0]).toEqual(['rollup warm-up: days failed; History builds them on demand', { kind: 'unwritable', failures: 1, error: 'database or disk is full' }]);
      expect(limits.warmupFailureLogIntervalMs).toBeGreaterThan(0);
    } finally {
      await s.shutdown();
      s.db.close();
    }
  });
});
