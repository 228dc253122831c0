// The open-files cap on a runner child, the defence against a Worker bomb besides the run's deadline:
// the command line carries it, and the child's dying words become the strategy's error. The escape
// suite (test/playground/escape.test.ts) sets the bomb off in a real sandbox with a short deadline,
// which usually ends it first; these checks keep the cap from going unseen.

import { describe, expect, it } from 'bun:test';
import { childCommand, DEFAULT_SANDBOX_LIMITS } from '../../runner/host/sandbox.ts';
import { exitMessage } from '../../src/service/playground/messages.ts';

const ISO = { prlimit: '/usr/bin/prlimit', bwrap: '/usr/bin/bwrap', nice: { path: '/usr/bin/nice', rlimit: true } };
const PATHS = { deno: '/d/deno', pyodideDir: '/p', bundleDir: '/b', bundleFile: '/b/child.js', snapshot: '/s.bin', denoDir: '/c/deno' };

describe('the open-files cap', () => {
  it('is 256 descriptors, set by prlimit around the whole child', () => {
    expect(DEFAULT_SANDBOX_LIMITS.openFiles).toBe(256);
    const { cmd } = childCommand(PATHS, 'serve', DEFAULT_SANDBOX_LIMITS, ISO);
    expect(cmd.slice(0, 2)).toEqual(['/usr/bin/prlimit', `--cpu=${DEFAULT_SANDBOX_LIMITS.cpuSeconds}`]);
    expect(cmd[2]).toBe('--nofile=256');
    expect(cmd.indexOf('--')).toBeLessThan(cmd.indexOf('/usr/bin/bwrap'));
    expect(cmd).not.toContain('/usr/bin/nice');
  });

  it('reached by a Worker bomb ends the run with its own message', () => {
    const tail = 'error: Uncaught (in worker "") Too many open files (os error 24)';
    expect(exitMessage({ code: 1, signal: null }, tail)).toBe('The strategy exceeded the sandbox limit on open files (threads and workers)');
  });
});

describe('a child loaded ahead of need', () => {
  it('starts under nice 19, with RLIMIT_NICE letting a server without CAP_SYS_NICE raise it back to 0', () => {
    const { cmd } = childCommand(PATHS, 'serve', DEFAULT_SANDBOX_LIMITS, ISO, { background: true });
    expect(cmd.slice(0, 4)).toEqual(['/usr/bin/nice', '-n', '19', '/usr/bin/prlimit']);
    expect(cmd.slice(cmd.indexOf('/usr/bin/prlimit'), cmd.indexOf('--'))).toContain('--nice=20');
    // With CAP_SYS_NICE the limit is not needed (and raising a hard limit needs CAP_SYS_RESOURCE).
    const cap = childCommand(PATHS, 'serve', DEFAULT_SANDBOX_LIMITS, { ...ISO, nice: { path: '/usr/bin/nice', rlimit: false } }, { background: true }).cmd;
    expect(cap.slice(0, 3)).toEqual(['/usr/bin/nice', '-n', '19']);
    expect(cap).not.toContain('--nice=20');
  });

  it('has V8 optimise the function it is given while it loads, and only then', () => {
    const flags = (o: Parameters<typeof childCommand>[4]) => childCommand(PATHS, 'serve', DEFAULT_SANDBOX_LIMITS, ISO, o).cmd.find((a) => a.startsWith('--v8-flags='));
    expect(flags({ background: true, eagerTierUp: 3792 })).toBe(`--v8-flags=--max-old-space-size=512,--max-semi-space-size=2,--wasm-max-mem-pages=16384,--wasm-eager-tier-up-function=3792`);
    expect(flags({ background: true, eagerTierUp: null })).toBe(`--v8-flags=--max-old-space-size=512,--max-semi-space-size=2,--wasm-max-mem-pages=16384`);
    expect(flags({})).toBe(`--v8-flags=--max-old-space-size=512,--max-semi-space-size=2,--wasm-max-mem-pages=16384`);
  });

  it('is told how many MB of memory to map while it loads (its last argument), and only when given', () => {
    const last = (o: Parameters<typeof childCommand>[4]) => childCommand(PATHS, 'serve', DEFAULT_SANDBOX_LIMITS, ISO, o).cmd.at(-1);
    expect(last({ background: true, eagerTierUp: 3792, prefaultMb: 64 })).toBe('64');
    expect(last({ background: true })).toBe('0');
    expect(last({})).toBe('0');
  });

  it('where the server could not raise it back, starts as any other', () => {
    expect(childCommand(PATHS, 'serve', DEFAULT_SANDBOX_LIMITS, { ...ISO, nice: null }, { background: true })).toEqual(childCommand(PATHS, 'serve', DEFAULT_SANDBOX_LIMITS, { ...ISO, nice: null }));
  });
});
