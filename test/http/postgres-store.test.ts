// The black-box HTTP tests of the three families, run again with the store in PostgreSQL
// (`TEST_STORE=postgres`: test/support/app.ts gives each app a fresh database). A child `bun test`
// runs them, so they see the variable from their first import; it starts its own throwaway server.
//
// The subset: every Simulator API group of both simulator families (auth, accounts, contracts,
// replay, orders, positions, trades, history, challenges, payouts) and the playground's strategies
// and runs, which is every store the services write. Left out: tests that reopen a SQLite file to
// restart (they test the file), the admin CLI (a separate process on DATA_DIR) and the browser.

import { expect, it } from 'bun:test';
import { describePg } from '../support/postgres.ts';

const SUBSET = [
  'test/http/sim',
  'test/http/legacy',
  'test/http/playground/strategies.test.ts',
  'test/http/playground/runs.test.ts',
  'test/http/web/challenges.test.ts',
  'test/conformance',
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
