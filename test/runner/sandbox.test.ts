// The open-files cap on a runner child, the defence against a Worker bomb besides the run's deadline:
// the command line carries it, and the child's dying words become the strategy's error. The escape
// suite (test/playground/escape.test.ts) sets the bomb off in a real sandbox with a short deadline,
// which usually ends it first; these checks keep the cap from going unseen.

import { describe, expect, it } from 'bun:test';
import { childCommand, DEFAULT_SANDBOX_LIMITS } from '../../runner/host/sandbox.ts';
import { exitMessage } from '../../src/service/playground/messages.ts';

const PATHS = { deno: '/d/deno', pyodideDir: '/p', bundleDir: '/b', bundleFile: '/b/child.js', snapshot: '/s.bin', denoDir: '/c/deno' };

describe('the open-files cap', () => {
  it('is 256 descriptors, set by prlimit around the whole child', () => {
    expect(DEFAULT_SANDBOX_LIMITS.openFiles).toBe(256);
    const { cmd } = childCommand(PATHS, 'serve', DEFAULT_SANDBOX_LIMITS, { prlimit: '/usr/bin/prlimit', bwrap: '/usr/bin/bwrap' });
    expect(cmd.slice(0, 2)).toEqual(['/usr/bin/prlimit', `--cpu=${DEFAULT_SANDBOX_LIMITS.cpuSeconds}`]);
    expect(cmd[2]).toBe('--nofile=256');
    expect(cmd.indexOf('--')).toBeLessThan(cmd.indexOf('/usr/bin/bwrap'));
  });

  it('reached by a Worker bomb ends the run with its own message', () => {
    const tail = 'error: Uncaught (in worker "") Too many open files (os error 24)';
    expect(exitMessage({ code: 1, signal: null }, tail)).toBe('The strategy exceeded the sandbox limit on open files (threads and workers)');
  });
});
