// The live profile's replay clock across nodes (src/service/replay-clock.ts): two service instances
// ("nodes") on one PostgreSQL database. Node A runs the user's two sessions; node B holds none, yet
// its clock follows the session acted on last and reads an account's time, because both come from
// the store (last_activity_ms, cursor_s), never from the node's memory.

import { expect, it } from 'bun:test';
import { defaultConfig } from '../../src/config.ts';
import { SIM_POLICY } from '../../src/http/sim/policy.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { randomSecret } from '../../src/lib/secrets.ts';
import { createServices, type Services } from '../../src/service/services.ts';
import { openDb } from '../../src/store/db.ts';
import { openPostgres } from '../../src/store/postgres.ts';
import { T0 } from '../support/app.ts';
import { describePg, freshDatabase } from '../support/postgres.ts';

const SECRET = new TextEncoder().encode(randomSecret());

async function node(url: string, nodeId: string, clock: ManualClock): Promise<Services> {
  const sql = await openPostgres(url, { max: 3, idleTimeoutS: 1 });
  return createServices({ config: defaultConfig({ nodeId }), clock, db: openDb(':memory:'), sql, jwtSecret: SECRET });
}

describePg('the replay clock in a cluster', () => {
  it('a node holding none of the user\'s sessions reads the clock of the one acted on last, and an account\'s time, from the store', async () => {
    const url = await freshDatabase();
    const clock = new ManualClock(T0);
    const a = await node(url, 'node-a', clock);
    const b = await node(url, 'node-b', clock);
    try {
      const user = await a.users.create({ email: 'clock@example.com', plan: 'pro' });
      if (!user.ok) throw new Error('user');
      const userId = user.value.user.id;
      const start = async (startDate: string) => {
        const r = await a.replay.start(userId, { instrumentSymbol: 'NQ', contractId: undefined, startDate, endDate: undefined, timeframe: '1m', accountId: undefined }, SIM_POLICY.start);
        if (!r.ok) throw new Error(JSON.stringify(r.error));
        return r.value.session;
      };
      const first = await start('2025-02-24');
      clock.advance(1000);
      const second = await start('2025-02-25');
      expect(await b.replayClock.ofUser(userId)).toEqual({ nowMs: second.nowS * 1000, wallMs: clock.nowMs(), simulated: true });

      clock.advance(1000);
      expect((await a.replay.step(userId, first.accountId, 5, 1000)).ok).toBe(true);
      expect(b.replay.held(first.accountId)).toBeUndefined();
      const onB = await b.replayClock.ofUser(userId);
      expect(onB.nowMs).toBe(first.nowS * 1000);
      expect(onB.nowMs).toBeGreaterThan(Date.parse('2025-02-24T00:00:00Z'));
      // An account's own time, whichever session was acted on last.
      expect((await b.replayClock.ofAccount(userId, second.accountId)).nowMs).toBe(second.nowS * 1000);

      clock.advance(1000);
      expect((await a.replay.pause(userId, second.accountId)).ok).toBe(true);
      expect((await b.replayClock.ofUser(userId)).nowMs).toBe(second.nowS * 1000);
      // Ended on A: B's clock moves to the other, and the ended account keeps its last time.
      clock.advance(1000);
      expect((await a.replay.end(userId, second.accountId)).ok).toBe(true);
      expect((await b.replayClock.ofUser(userId)).nowMs).toBe(first.nowS * 1000);
      expect((await b.replayClock.ofAccount(userId, second.accountId)).nowMs).toBe(second.nowS * 1000);
    } finally {
      await a.shutdown();
      await b.shutdown();
    }
  }, 120_000);
});
