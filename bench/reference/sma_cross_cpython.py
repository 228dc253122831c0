"""The playground's SMA crossover under plain CPython: the reference of bench/playground-cpython.bench.ts.

Same bars (read from the file the bench writes: float64 columns time, open, high, low, close, volume),
same rules (the template's own source, with the playground's own `indicators` module), and the least
a backtester needs around them: a bar object per bar with the attributes a strategy reads, `ctx` with
params and a signed position, market orders filled at the next bar's open with the playground's
one-tick slippage, and a trade list. What it leaves out is the playground's own work (the engine's
book, brackets, the frames to the server): the figure is a floor for what any Python loop over these
bars costs, which is what the issue compares the sandbox against.

Prints one JSON line: bars, trades, net points, and this process's CPU seconds (user + system, from
start to finish, interpreter start included) and the loop's alone (CPU and wall). The same file runs
unchanged in Pyodide (bench/reference/pyodide-run.mjs), which isolates what CPython compiled to
WebAssembly costs on this loop from what the playground's harness and bridge add.
"""
import json
import sys
import time
from array import array

ROOT = sys.argv[1]
BARS = sys.argv[2]
TICK = float(sys.argv[3])
FAST, SLOW, SIZE = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
sys.path.insert(0, ROOT + '/runner/python')


class Bar:
    __slots__ = ('time', 'open', 'high', 'low', 'close', 'volume')


class Position:
    __slots__ = ('qty', 'avg')

    def __init__(self):
        self.qty = 0
        self.avg = 0.0


class Ctx:
    def __init__(self, params):
        self.params = params
        self.position = Position()
        self.pending = 0  # signed contracts to fill at the next bar's open

    def buy(self, size=1):
        self.pending += size

    def sell(self, size=1):
        self.pending -= size


def main():
    t_start = time.process_time()
    cols = array('d')
    with open(BARS, 'rb') as f:
        cols.frombytes(f.read())
    n = len(cols) // 6
    t, o, h, l, c, v = (cols[i * n:(i + 1) * n] for i in range(6))
    code = open(ROOT + '/src/service/playground/templates/sma_cross.py').read()
    strategy = {}
    exec(compile(code, 'sma_cross.py', 'exec'), strategy)
    ctx = Ctx({'fast': FAST, 'slow': SLOW, 'size': SIZE})
    strategy['init'](ctx)
    on_bar = strategy['on_bar']
    pos = ctx.position
    trades = 0
    net = 0.0
    t_loop = time.process_time()
    w_loop = time.perf_counter()
    for i in range(n):
        if ctx.pending:
            q = ctx.pending
            ctx.pending = 0
            price = o[i] + (TICK if q > 0 else -TICK)
            if pos.qty and (pos.qty > 0) != (q > 0):
                closed = min(abs(q), abs(pos.qty))
                net += closed * (price - pos.avg) * (1 if pos.qty > 0 else -1)
                trades += 1
            new = pos.qty + q
            if new == 0:
                pos.avg = 0.0
            elif pos.qty == 0 or (pos.qty > 0) != (new > 0):
                pos.avg = price
            pos.qty = new
        bar = Bar()
        bar.time = t[i]
        bar.open = o[i]
        bar.high = h[i]
        bar.low = l[i]
        bar.close = c[i]
        bar.volume = v[i]
        on_bar(ctx, bar)
    loop_wall = time.perf_counter() - w_loop
    loop_cpu = time.process_time() - t_loop
    try:
        import resource
        ru = resource.getrusage(resource.RUSAGE_SELF)
        process_cpu = ru.ru_utime + ru.ru_stime
    except ImportError:  # Pyodide (bench/reference/pyodide-run.mjs): no rusage
        process_cpu = None
    print(json.dumps({'bars': n, 'trades': trades, 'netPoints': round(net, 6), 'processCpuS': process_cpu,
                      'loopCpuS': loop_cpu, 'loopWallS': loop_wall, 'readCpuS': t_loop - t_start}))


main()
