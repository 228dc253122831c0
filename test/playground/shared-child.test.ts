// An optimisation's combinations share their runner children (docs/decisions.md, "Optimiser in
// seconds"), and still each starts as in a new child: a combination that sets a module global, a
// module attribute, a builtin, a module in sys.modules, a file, and poisons an imported module's
// function leaves nothing the next one can see, and the random generator starts where a new child's
// does. A combination that kills its child fails with its error; the next combinations get another
// child and complete. One runner for optimisations, so every combination follows the one before on
// the same child when sharing works; the pool counts the children it spawned.

import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { makePlaygroundApp, type PlaygroundApp, SANDBOX_HOOK_MS, SANDBOX_TEST_MS } from '../support/playground.ts';

const DAY = { instrument: 'NQ', startDate: '2025-02-27', timeframe: '1m' };

/** Each combination reports what it found of earlier combinations, then leaves its own marks. */
const SNOOP = `
import builtins, json, math, os, random, sys, types

counter = 0

def init(ctx):
    global counter
    counter += 1
    seen = []
    if counter != 1: seen.append('global')
    if hasattr(math, 'rd_mark'): seen.append('module attribute')
    if json.dumps([1]) != '[1]': seen.append('poisoned function')
    if 'rd_made' in sys.modules: seen.append('module')
    if hasattr(builtins, 'rd_builtin'): seen.append('builtin')
    if os.path.exists('/tmp/rd_file') or os.path.exists('/home/pyodide/rd_file'): seen.append('file')
    # JavaScript values Python takes each run (Pyodide keeps one reference per value, outside the memory).
    from js import Math
    if Math.floor(2.5) != 2: seen.append('javascript')
    print('seen:', ','.join(seen) or 'nothing', 'random:', random.random())
    math.rd_mark = ctx.params['x']
    json.dumps = lambda *a, **k: 'poisoned'
    sys.modules['rd_made'] = types.ModuleType('rd_made')
    builtins.rd_builtin = 1
    sys.setrecursionlimit(50)
    for p in ('/tmp/rd_file', '/home/pyodide/rd_file'):
        with open(p, 'w') as f:
            f.write('x')
    if ctx.params['x'] == 3:
        # The child's process ends here (arbitrary JavaScript is reachable from Python in the sandbox).
        from pyodide.code import run_js
        run_js('Deno.exit(7)')

def on_bar(ctx, bar):
    pass
`;

let p: PlaygroundApp;
beforeAll(async () => {
  p = await makePlaygroundApp({ runnerMaxConcurrent: 2, runnerOptimizeMaxConcurrent: 1 });
  await p.s.runner().warm();
}, SANDBOX_HOOK_MS);
afterAll(async () => {
  await p?.close();
}, SANDBOX_HOOK_MS);

async function optimisationEnd(id: string): Promise<any> {
  for (;;) {
    const o = (await p.call('GET', `optimizations/${id}`)).body.optimization;
    if (o.status !== 'running') return o;
    await Bun.sleep(100);
  }
}

describe('combinations sharing a child', () => {
  it('never see one another\'s state, and a combination that kills its child leaves the rest to complete on another', async () => {
    const spawned0 = p.s.runner().spawnedCount;
    const r = await p.call('POST', 'optimize', { ...DAY, code: SNOOP, params: { x: { min: 1, max: 6, step: 1 } }, objective: 'net_pnl' });
    expect(r.body.success).toBe(true);
    const o = await optimisationEnd(r.body.optimizationId);
    const cs = (await p.call('GET', `optimizations/${o.id}/combinations?sort=index`)).body.combinations;
    expect(cs.map((c: any) => [c.params.x, c.status])).toEqual([[1, 'completed'], [2, 'completed'], [3, 'failed'], [4, 'completed'], [5, 'completed'], [6, 'completed']]);
    const randoms = new Set<string>();
    for (const c of cs) {
      const run = (await p.call('GET', `executions/${c.runId}`)).body.execution;
      const line = run.logs.find((l: string) => l.startsWith('seen:'));
      expect([c.params.x, line.split(' random:')[0]]).toEqual([c.params.x, 'seen: nothing']);
      randoms.add(line.split(' random: ')[1]);
    }
    // Every combination drew the first number a new child draws.
    expect(randoms.size).toBe(1);
    // Combination 3 ended its child: its error says so, and 4 to 6 ran on another child.
    const failed = (await p.call('GET', `executions/${cs[2].runId}`)).body.execution;
    expect(failed.error).toBe('The strategy process ended unexpectedly (exit code 7)');
    // The combination itself says why it failed, as its run does; the others have no error.
    expect(cs.map((c: any) => c.error)).toEqual([null, null, failed.error, null, null, null]);
    // Six combinations one after another on the optimisation's one runner: two children (the
    // second after the crash), and the pool's refills of its one waiting child, not one a combination.
    expect(p.s.runner().spawnedCount - spawned0).toBeLessThanOrEqual(4);
  }, SANDBOX_TEST_MS);
});
