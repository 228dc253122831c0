// The black-box HTTP tests of the three families, run again with the store in PostgreSQL
// (`TEST_STORE=postgres`: test/support/app.ts gives each app a fresh database). A child `bun test`
// runs them, so they see the variable from their first import; it starts its own throwaway server.
//
// The subset, named: each Simulator API group that writes the store (auth and tokens, accounts,
// replay sessions, orders, positions, trades, challenges and payouts) in the current family, the
// earlier family's order and replay groups, both families side by side (test/conformance), and the
// playground's strategies. Left out, with the reason: History and contracts (they read market data,
// which stays in each node's SQLite file), tests that reopen a SQLite file to restart (they test the
// file), transport and cookie details (no store involved), the admin CLI (a process on DATA_DIR; its
// PostgreSQL path is test/admin/migrate.test.ts), runs in real sandboxes (test/http/playground/runs:
// slow, and the run store is covered by the cluster's job tests) and the browser.

import { expect, it } from 'bun:test';
import { describePg } from '../support/postgres.ts';

const SUBSET = [
  'test/http/sim/auth.test.ts',
  'test/http/sim/account.test.ts',
  'test/http/sim/replay.test.ts',
  'test/http/sim/order.test.ts',
  'test/http/sim/position.test.ts',
  'test/http/sim/trade.test.ts',
  'test/http/sim/challenge.test.ts',
  'test/http/sim/payout.test.ts',
  'test/http/legacy/order.test.ts',
  'test/http/legacy/replay.test.ts',
  'test/conformance',
  'test/http/playground/strategies.test.ts',
];
describePg('the families on a PostgreSQL store', () => {
  it('pass their black-box tests', async () => {
    const child = Bun.spawn([process.execPath, 'test', '--timeout', '120000', ...SUBSET], {
      env: { ...process.env, TEST_STORE: 'postgres' },
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
