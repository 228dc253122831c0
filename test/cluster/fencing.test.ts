// No session runs on two nodes at once: two service instances (two "nodes") on one PostgreSQL
// database. When node A's lease expires (it stalled), node B takes the session over; whatever A then
// tries to commit is refused inside its own transaction (LeaseLost), writes nothing, and A lets the
// session go, so the store holds B's history only. Who holds a session is what the HTTP edge asks
// (`owners.ownerOf`) before serving a request for it.

import { expect, it } from 'bun:test';
import { defaultConfig } from '../../src/config.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { randomSecret } from '../../src/lib/secrets.ts';
import { LeaseLost } from '../../src/service/cluster/ownership.ts';
import { createServices, type Services } from '../../src/service/services.ts';
import { openDb } from '../../src/store/db.ts';
import { openPostgres } from '../../src/store/postgres.ts';
import { describePg, freshDatabase } from '../support/postgres.ts';
import { T0 } from '../support/app.ts';
import { SIM_POLICY } from '../../src/http/sim/policy.ts';

const SECRET = new TextEncoder().encode(randomSecret());

async function node(url: string, nodeId: string): Promise<Services> {
  const sql = await openPostgres(url, { max: 3, idleTimeoutS: 1 });
  return createServices({ config: defaultConfig({ nodeId }), clock: new ManualClock(T0), db: openDb(':memory:'), sql, jwtSecret: SECRET });
}

describePg('session leases', () => {
  it('refuse the commits of a node that lost the lease; the node that took it carries on', async () => {
    const url = await freshDatabase();
    const a = await node(url, 'node-a');
    const b = await node(url, 'node-b');
    const user = await a.users.create({ email: 'fence@example.com', plan: 'pro' });
    if (!user.ok) throw new Error('user');
    const userId = user.value.user.id;
    const req = { instrumentSymbol: 'NQ', contractId: undefined, startDate: '2025-02-24', endDate: undefined, timeframe: '1m', accountId: undefined };
    const started = await a.replay.start(userId, req, SIM_POLICY.start);
    if (!started.ok) throw new Error(JSON.stringify(started.error));
    const accountId = started.value.session.accountId;
    expect((await a.replay.step(userId, accountId, 3, 1000)).ok).toBe(true);

    // B cannot take a live lease: it is told who holds it (the edge passes B's requests to A), and
    // a call that reaches B's service anyway is told the session is not B's to run (503, retry).
    expect(await b.owners.ownerOf(accountId)).toMatchObject({ at: 'node', nodeUrl: expect.any(String), accountId });
    await expect(b.replay.step(userId, accountId, 1, 1000)).rejects.toMatchObject({ name: 'SessionMoving' });

    // A stalls past its lease and B takes it (the expired-lease path itself is the three-node test's
    // kill -9): the row now names B, as B's acquire leaves it. B loads the session where A left it.
    await b.sql.run(`UPDATE session_leases SET node_id = 'node-b', expires_ms = 0 WHERE account_id = $a`, { a: accountId });
    const onB = await b.replay.step(userId, accountId, 2, 1000);
    expect(onB.ok && onB.value.session.currentIndex).toBe(5);

    // Every commit of A's starts with the fence, which now refuses: A can write nothing.
    await expect(a.topology.ownership.fence(accountId)).rejects.toBeInstanceOf(LeaseLost);
    // A's next command fails, whether its lease renewal noticed first (the session is dropped and
    // B holds it) or the commit's fence did (LeaseLost): either way nothing is written.
    const tried = await a.replay.step(userId, accountId, 10, 1000).then(() => 'committed', (e: Error) => e.name);
    expect(['LeaseLost', 'SessionMoving']).toContain(tried);
    const row = await b.sql.get<{ current_index: number }>('SELECT current_index FROM replay_sessions WHERE account_id = $a', { a: accountId });
    expect(row?.current_index).toBe(5);
    // A let it go: its next request is forwarded to B, which carries on from 5.
    expect(await a.owners.ownerOf(accountId)).toMatchObject({ at: 'node', accountId });
    await expect(a.replay.step(userId, accountId, 1, 1000)).rejects.toMatchObject({ name: 'SessionMoving' });
    const more = await b.replay.step(userId, accountId, 1, 1000);
    expect(more.ok && more.value.session.currentIndex).toBe(6);
    await a.shutdown();
    await b.shutdown();
  }, 120_000);
});
