// The Python side of the playground (runner/python: the strategy harness, the indicators, and every
// catalog template run over synthetic bars) has its own unittest suite; this runs it so that
// `bun test` covers it. The suite reads the template catalog through bun: BUN points it at this one.
import { expect, it } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { limits } from '../../src/config.ts';

const ROOT = join(import.meta.dir, '..', '..');

it('the Python harness, indicator and template tests pass under python3', () => {
  const r = Bun.spawnSync(['python3', '-m', 'unittest', 'discover', '-s', 'runner/python'], {
    cwd: ROOT,
    env: { ...process.env, BUN: process.execPath },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const report = r.stderr.toString(); // unittest reports on stderr
  if (r.exitCode !== 0) console.error(report);
  expect(r.exitCode).toBe(0);
  const ran = Number(/Ran (\d+) tests? in/.exec(report)?.[1] ?? 0);
  expect(ran).toBeGreaterThanOrEqual(40);
  // A skip would mean the templates went untested (bun not found): not acceptable here.
  expect(report).toMatch(/\nOK\n?$/);
}, 120_000);

it("holds strategies to the server's own bounds (runner/python/strategy_api.py mirrors src/config.ts)", () => {
  const py = readFileSync(join(ROOT, 'runner/python/strategy_api.py'), 'utf8');
  const constant = (name: string) => Number(new RegExp(`^${name} = ([0-9_]+)`, 'm').exec(py)?.[1].replaceAll('_', ''));
  expect(constant('ORDER_SIZE_MAX')).toBe(limits.orderSizeMax);
  expect(constant('PRICE_TICKS_ABS_MAX')).toBe(limits.priceTicksAbsMax);
  expect(constant('BRACKET_TICKS_MAX')).toBe(limits.bracketTicksMax);
});
