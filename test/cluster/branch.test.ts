// Replay/branch in a cluster (docs/decisions.md, "Branching"): two nodes in this process on one
// PostgreSQL with real HTTP between them. A branch request sent to either node is served by the
// node running the parent (the body's accountId names it, as every session call), and that node
// holds the new session as Replay/start's node holds a new one: its lease is taken in the branch's
// transaction, so the other node passes the branch's calls on to it.

import { expect, it } from 'bun:test';
import { randomSecret } from '../../src/lib/secrets.ts';
import { type InProcessNode, inProcessNode, postAt, userToken } from '../support/in-process-node.ts';
import { describePg, freshDatabase } from '../support/postgres.ts';

const SECRET = new TextEncoder().encode(randomSecret());

describePg('Replay/branch in a cluster', () => {
  it('is served by the parent\'s node, which holds the new session; the other node passes its calls on', async () => {
    const url = await freshDatabase();
    const a = await inProcessNode(url, 'branch-a', SECRET);
    const b = await inProcessNode(url, 'branch-b', SECRET);
    try {
      await branchAcross(a, b);
    } finally {
      await b.stop();
      await a.stop();
    }
  }, 120_000);
});

/** A session on `a`, branched through `b`: `a` holds the branch, `b` passes its calls on. */
async function branchAcross(a: InProcessNode, b: InProcessNode): Promise<void> {
  const token = await userToken(a, 'branch@example.com');
  const start = await postAt(a.base, 'Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-02-24', timeframe: '1m' }, token);
  expect(start.body).toMatchObject({ success: true });
  const { accountId } = start.body;
  const stepped = await postAt(a.base, 'Replay/step', { accountId, steps: 5 }, token);
  expect(stepped.body).toMatchObject({ success: true, currentIndex: 5 });
  const time = new Date(Date.parse(stepped.body.bars[2].t) + 60_000).toISOString().replace('.000Z', 'Z');

  const branched = await postAt(b.base, 'Replay/branch', { accountId, time }, token);
  expect(branched.body).toMatchObject({ success: true, parentAccountId: accountId, branchTime: time, currentIndex: 3 });
  const branch = branched.body.accountId as number;
  expect([a.s.replay.held(branch) !== undefined, b.s.replay.held(branch) !== undefined]).toEqual([true, false]);
  expect((await postAt(b.base, 'Replay/step', { accountId: branch, steps: 2 }, token)).body).toMatchObject({ success: true, currentIndex: 5 });
  expect(b.s.replay.held(branch)).toBeUndefined();
  // The parent is where it was.
  expect((await postAt(b.base, 'Replay/step', { accountId, steps: 1 }, token)).body).toMatchObject({ success: true, currentIndex: 6 });
}
