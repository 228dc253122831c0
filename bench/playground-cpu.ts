// CPU time of the playground's processes, for the benches: the server's own (process.cpuUsage) and a
// runner child's, read from /proc (Linux) with its descendants (bubblewrap's pid namespace runs Deno
// one or two levels below the spawned process). Wall time on a shared machine says how busy the other
// agents were; CPU time says what the code cost.
//
// A child is killed at the end of its run, and its CPU then leaves /proc: `trackChild` reads it just
// before the kill, so both this checkout's code and an older one (AB_BASELINE) are measured the same
// way, without any help from the code under test.

import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // CLK_TCK 100 on Linux

function statFields(pid: number): string[] | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return s.slice(s.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** CPU milliseconds of a process and all its descendants (alive or not yet reaped), or 0 when it is gone. */
export function treeCpuMs(root: number): number {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === root) continue;
    const f = statFields(pid);
    if (f === null) continue;
    const ppid = Number(f[1]);
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  }
  let ms = 0;
  const walk = (pid: number) => {
    const f = statFields(pid);
    // utime, stime, and the reaped children's cutime, cstime (fields 14–17 of stat)
    if (f !== null) ms += (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * TICK_MS;
    for (const c of children.get(pid) ?? []) walk(c);
  };
  walk(root);
  return ms;
}

/** The server process's own CPU milliseconds (user + system) since it started. */
export function serverCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

interface ChildLike {
  readonly pid: number;
  kill(): void;
}

/**
 * Makes every child the pool hands out record its CPU from hand-out to kill (the run's share:
 * spawning and loading Pyodide happen before). `take()` returns and clears the children measured.
 */
export function trackChildren(pool: { acquire(): Promise<ChildLike> }): { take(): number[] } {
  const done: number[] = [];
  const acquire = pool.acquire.bind(pool);
  pool.acquire = async () => {
    const child = await acquire();
    const cpu0 = treeCpuMs(child.pid);
    const kill = child.kill.bind(child);
    let measured = false;
    child.kill = () => {
      if (!measured) {
        measured = true;
        done.push(treeCpuMs(child.pid) - cpu0);
      }
      kill();
    };
    return child;
  };
  return { take: () => done.splice(0) };
}
