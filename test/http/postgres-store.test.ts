// The black-box HTTP tests of the three families, run again with the store in PostgreSQL
// (`TEST_STORE=postgres`: test/support/app.ts gives each app an empty database). A child `bun test`
// runs them, so they see the variable from their first import; it uses this process's throwaway server,
// and preloads the hooks that empty and reuse the apps' databases between tests instead of making one
// per app (test/support/pg-app-databases.ts).
//
// The subset, named and kept small (the suite stays well under ten minutes on two cores): orders
// and their fills (Order/*, Trade/search: the session command path, its unit of work and lock),
// payouts (a transaction that also changes a live session), and test/conformance, which runs the same
// scenarios (auth, accounts, replay start/step/jump/end, orders, positions, trades) through both
// simulator families. The rest of the families' tests run on SQLite only: every store they reach is
// checked on both backends by test/store/stores-*.test.ts, playground runs as jobs by
// test/playground/jobs.test.ts, and test/cluster runs bots on PostgreSQL through three nodes.

import { expect, it } from 'bun:test';
import { clusterEnvForChild, describePg } from '../support/postgres.ts';

const PRELOAD = './test/support/pg-app-databases.preload.ts';
const SUBSET = [
  'test/http/sim/order.test.ts',
  'test/http/sim/trade.test.ts',
  'test/http/sim/payout.test.ts',
  'test/conformance',
];
describePg('the families on a PostgreSQL store', () => {
  it('pass their black-box tests', async () => {
    const child = Bun.spawn([process.execPath, 'test', '--timeout', '120000', '--preload', PRELOAD, ...SUBSET], {
      // This process's PostgreSQL, rather than an initdb of the child's own.
      env: { ...process.env, ...(await clusterEnvForChild()), TEST_STORE: 'postgres' },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const [out, errText, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    const summary = (out + errText).split('\n').filter((l) => /^\s*\d+ (pass|fail|skip)|^\(fail\)|Ran \d+ tests/.test(l));
    if (code !== 0) console.log((out + errText).split('\n').filter((l) => /\(fail\)|error:|Expected|Received/.test(l)).slice(0, 80).join('\n'));
    console.log(summary.join('\n'));
    expect(summary.some((l) => /^\s*0 fail/.test(l))).toBe(true);
    expect(code).toBe(0);
  }, 900_000);
});
