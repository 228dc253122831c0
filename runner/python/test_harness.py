"""Tests of the strategy runtime (harness.py) against a pure-Python FakeBridge.

Run with: python3 -m unittest discover -s runner/python
The template tests read the catalog from src/service/playground/templates.ts through bun (BUN env
var, PATH, or node_modules/.bin/bun); they are skipped when no bun is found.
"""

import json
import math
import os
import random
import shutil
import subprocess
import sys
import unittest
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
TEMPLATES_DIR = REPO / 'src' / 'service' / 'playground' / 'templates'

LIMIT, MARKET, STOP_LIMIT, STOP = 1, 2, 3, 4
BUY, SELL = 0, 1
NO_UP, NO_DOWN = 2147483647, -2147483648
T0 = 1_704_067_200  # 2024-01-01 00:00 UTC, a Monday


# ---- A fake engine behind the bridge contract ----

class _Order:
    __slots__ = ('id', 'type', 'side', 'size', 'limit', 'stop', 'sl', 'tp', 'parent', 'armed')

    def __init__(self, oid, ty, side, size, limit, stop, sl, tp, parent=None):
        self.id, self.type, self.side, self.size = oid, ty, side, size
        self.limit, self.stop, self.sl, self.tp, self.parent = limit, stop, sl, tp, parent
        self.armed = False


class FakeBridge:
    """Mimics runner/child/bridge.ts closely enough to test the harness.

    Each run bar is its own single stored bar. Market orders (and closes) fill at the close of the
    bar they act after, plus `slippage` ticks against the trader; limits and stops fill on touch
    along open -> nearer extreme -> farther extreme -> close, at their price, or at the open (or the
    last price, at placement) when price already stands through them. Brackets spawn a stop-loss
    and a take-profit leg (one-cancels-other) for the contracts the entry opened; legs go away when
    the position is flat. Net position kept as FIFO lots, so cost = sum(signed size * price).
    """

    def __init__(self, bars, balance_cents=5_000_000, tick_value_cents=500, fee_cents=0, slippage=0,
                 max_qty=None):
        self.bars = bars
        self.balance = balance_cents
        self.tvc = tick_value_cents
        self.fee = fee_cents
        self.slippage = slippage
        self.max_qty = max_qty
        self.lots = []  # [signed size, price ticks], oldest first
        self.book = []
        self.log = []
        self.next_order_id = 1
        self.next_fill_id = 1
        self.calls = {'advance': 0, 'place': 0, 'cancel': 0, 'close': 0, 'state': 0, 'fills': 0, 'working': 0, 'modify': 0}
        self.advanced = []
        self.placed = []  # every place call's (type, side, size, limit, stop, sl, tp, trail, sl_type)
        self.modified = []  # every modify call's (id, size, limit, stop, trail)
        self.now = 0

    # -- the contract --

    def advance(self, k):
        self.calls['advance'] += 1
        self.advanced.append(k)
        b = self.bars
        o, h, l, c, t = b['o'][k], b['h'][k], b['l'][k], b['c'][k], b['e'][k]
        self.now = t
        path = [o, h, l, c] if h - o <= o - l else [o, l, h, c]
        self._settle(o, o, t)
        for a, z in zip(path, path[1:]):
            self._settle(a, z, t)
        return self._state()

    def place(self, k, ty, side, size, limit, stop, sl, tp, trail=None, sl_type=None):
        self.calls['place'] += 1
        self.placed.append((ty, side, size, limit, stop, sl, tp, trail, sl_type))
        last, t = self._at(k)
        if self.max_qty is not None and abs(self._qty() + (size if side == BUY else -size)) > self.max_qty:
            return 0, 'Maximum position size exceeded'
        if ty == 5:  # a trailing stop rests here as a plain stop at its first distance: the fake does not trail
            stop = last - trail if side == SELL else last + trail
        order = _Order(self.next_order_id, ty, side, size, limit, stop, sl, tp)
        self.next_order_id += 1
        if ty == MARKET:
            self._fill(order, last + (self.slippage if side == BUY else -self.slippage), t)
        else:
            self.book.append(order)
            self._settle(last, last, t)
        return order.id, ''

    def modify(self, k, oid, size, limit, stop, trail):
        """'' when changed, 'order_not_found' when not working, the reason of a refusal (size over max_qty)."""
        self.calls['modify'] += 1
        self.modified.append((oid, size, limit, stop, trail))
        self._at(k)
        for o in self.book:
            if o.id == oid:
                if size is not None and self.max_qty is not None and size > self.max_qty:
                    return 'Maximum position size exceeded'
                o.size = size if size is not None else o.size
                o.limit = limit if limit is not None else o.limit
                o.stop = stop if stop is not None else o.stop
                return ''
        return 'order_not_found'

    def cancel(self, k, oid):
        self.calls['cancel'] += 1
        self._at(k)
        for o in self.book:
            if o.id == oid:
                self.book.remove(o)
                return True
        return False

    def close(self, k, size):
        self.calls['close'] += 1
        last, t = self._at(k)
        qty = self._qty()
        if qty == 0:
            return 0, 'No open position'
        if size is not None and not 1 <= size <= abs(qty):
            return 0, 'Invalid close size'
        order = _Order(self.next_order_id, MARKET, SELL if qty > 0 else BUY, size or abs(qty), None, None, None, None)
        self.next_order_id += 1
        self._fill(order, last, t)
        return order.id, ''

    def state(self):
        self.calls['state'] += 1
        return self._state()

    def fills(self, i):
        self.calls['fills'] += 1
        return self.log[i:]

    def working(self):
        self.calls['working'] += 1
        return [(o.id, o.type, o.side, o.size, o.limit, o.stop, o.parent) for o in self.book]

    # -- the fake engine --

    def _at(self, k):
        self.now = self.bars['e'][k]
        return self.bars['c'][k], self.now

    def _qty(self):
        return sum(s for s, _ in self.lots)

    def _state(self):
        up, down = NO_UP, NO_DOWN
        for o in self.book:
            level = o.limit if o.type == LIMIT or (o.type == STOP_LIMIT and o.armed) else o.stop
            buy_down = o.type == LIMIT or (o.type == STOP_LIMIT and o.armed)
            if (o.side == BUY) == buy_down:
                down = max(down, level)
            else:
                up = min(up, level)
        cost = sum(s * p for s, p in self.lots)
        return self.balance, self._qty(), cost, up, down, len(self.log), len(self.book)

    def _settle(self, a, z, t):
        """Fires every order the move a -> z reaches, oldest first, until nothing more fires."""
        lo, hi = min(a, z), max(a, z)
        fired = True
        while fired:
            fired = False
            for o in list(self.book):
                if o not in self.book:
                    continue
                price = self._touch(o, a, lo, hi)
                if price is None:
                    continue
                if o.type == STOP_LIMIT and not o.armed:
                    o.armed = True
                    price = self._touch(o, price, min(price, z), max(price, z))
                    if price is None:
                        fired = True
                        continue
                self.book.remove(o)
                self._fill(o, price, t)
                fired = True

    @staticmethod
    def _touch(o, a, lo, hi):
        limit_like = o.type == LIMIT or (o.type == STOP_LIMIT and o.armed)
        level = o.limit if limit_like else o.stop
        if o.side == BUY:
            reached = lo <= level if limit_like else hi >= level
            through = a <= level if limit_like else a >= level
        else:
            reached = hi >= level if limit_like else lo <= level
            through = a >= level if limit_like else a <= level
        if not reached:
            return None
        return a if through else level

    def _fill(self, o, price, t):
        signed = o.size if o.side == BUY else -o.size
        before = self._qty()
        pnl = 0
        rest = signed
        while rest and self.lots and (self.lots[0][0] > 0) != (rest > 0):
            lot = self.lots[0]
            take = min(abs(rest), abs(lot[0]))
            direction = 1 if lot[0] > 0 else -1
            pnl += (price - lot[1]) * take * direction * self.tvc
            lot[0] -= take * direction
            rest += take * direction
            if lot[0] == 0:
                self.lots.pop(0)
        if rest:
            self.lots.append([rest, price])
        fee = self.fee * o.size
        self.balance += pnl - fee
        self.log.append((self.next_fill_id, o.id, o.side, o.size, price, t, fee, pnl))
        self.next_fill_id += 1
        after = self._qty()
        if o.parent is not None:  # a leg filled: its sibling goes (one-cancels-other)
            self.book = [x for x in self.book if x.parent != o.parent]
        if after == 0 or (before > 0) != (after > 0):
            self.book = [x for x in self.book if x.parent is None]
        opened = abs(rest)
        if opened and (o.sl or o.tp):
            exit_side = SELL if o.side == BUY else BUY
            entry = price if o.type == MARKET else o.limit if o.type in (LIMIT, STOP_LIMIT) else o.stop
            sign = 1 if o.side == BUY else -1
            if o.sl:
                self.book.append(_Order(self.next_order_id, STOP, exit_side, opened, None, entry - sign * o.sl,
                                        None, None, o.id))
                self.next_order_id += 1
            if o.tp:
                self.book.append(_Order(self.next_order_id, LIMIT, exit_side, opened, entry + sign * o.tp, None,
                                        None, None, o.id))
                self.next_order_id += 1


# ---- Helpers ----

def make_bars(rows, start=T0, step=60):
    """Columns from (open, high, low, close) rows in ticks; volume 10 + index."""
    cols = {key: [] for key in ('t', 'e', 'o', 'h', 'l', 'c', 'v')}
    for i, (o, h, l, c) in enumerate(rows):
        assert l <= min(o, c) and h >= max(o, c), rows[i]
        t = start + i * step
        for key, val in zip(('t', 'e', 'o', 'h', 'l', 'c', 'v'), (t, t + step, o, h, l, c, 10 + i)):
            cols[key].append(val)
    return cols


def flat_bars(n, price=40_000):
    return make_bars([(price, price + 2, price - 2, price)] * n)


def synthetic_bars(n, seed=7, start=T0, step=60, price=60_000):
    """A random walk with slow waves and volatility bursts: every template should find trades in it."""
    rnd = random.Random(seed)
    rows = []
    p = price
    for i in range(n):
        drift = 12 * math.sin(i / 700) + 5 * math.sin(i / 97)
        vol = 6 + 5 * (math.sin(i / 300) > 0.6)
        o = p
        c = max(1000, round(o + drift * 0.1 + rnd.gauss(0, vol)))
        h = max(o, c) + rnd.randint(0, vol)
        l = min(o, c) - rnd.randint(0, vol)
        rows.append((o, h, l, c))
        p = c
    return make_bars(rows, start, step)


def meta(**over):
    m = {'symbol': 'NQ', 'ticks_per_unit': 4, 'tick_size': 0.25, 'tick_value': 5.0, 'timeframe': '1m',
         'context_timeframes': [], 'starting_balance': 50_000.0, 'start': T0, 'end': T0 + 86_400}
    m.update(over)
    return m


def batches(bars, size):
    n = len(bars['t'])
    for a in range(0, n, size):
        b = {key: col[a:a + size] for key, col in bars.items()}
        b['base'] = a
        b['ctx'] = {}
        yield b


class Run:
    """One harness run: start, every batch, finish; keeps errors and logs."""

    def __init__(self, code, bars, params=None, batch=50, bridge=None, ctx_bars=None, **meta_over):
        self.bridge = bridge or FakeBridge(bars)
        self.logs = []
        self.error = harness.start(code, params or {}, meta(**meta_over), self.bridge)
        self.logs += harness.take_logs()
        if self.error is None:
            for b in batches(bars, batch):
                if ctx_bars:
                    b['ctx'] = {tf: _slice_ctx(cols, b) for tf, cols in ctx_bars.items()}
                self.error = harness.run_batch(b)
                self.logs += harness.take_logs()
                if self.error is not None:
                    break
        if self.error is None:
            self.error = harness.finish()
        self.logs += harness.take_logs()
        self.ctx = harness._rt.ctx
        self.ns = sys.modules['strategy'].__dict__


def _slice_ctx(cols, b):
    """Context bars that complete within this batch: end in (first bar's start, last bar's end]."""
    lo, hi = b['t'][0], b['e'][-1]
    keep = [i for i, e in enumerate(cols['e']) if lo < e <= hi]
    return {key: [cols[key][i] for i in keep] for key in cols}


# ---- Tests ----

class BarsAndHistory(unittest.TestCase):
    def test_bars_are_prices_in_units_and_history_has_no_look_ahead(self):
        code = '''
seen = []
def on_bar(ctx, bar):
    assert ctx.bars[-1] == bar
    assert ctx.closes[-1] == bar.close and len(ctx.closes) == bar.index + 1
    seen.append((bar.index, bar.open, bar.high, bar.low, bar.close, bar.volume, bar.time, bar.end, len(ctx.bars)))
'''
        bars = make_bars([(401, 403, 400, 402), (402, 405, 401, 405), (405, 406, 399, 400)])
        r = Run(code, bars, batch=2)
        self.assertIsNone(r.error)
        self.assertEqual(r.ns['seen'], [
            (0, 100.25, 100.75, 100.0, 100.5, 10, T0, T0 + 60, 1),
            (1, 100.5, 101.25, 100.25, 101.25, 11, T0 + 60, T0 + 120, 2),
            (2, 101.25, 101.5, 99.75, 100.0, 12, T0 + 120, T0 + 180, 3),
        ])
        self.assertEqual(list(r.ctx.highs), [100.75, 101.25, 101.5])
        self.assertEqual(list(r.ctx.times), [T0, T0 + 60, T0 + 120])
        self.assertEqual([b.close for b in r.ctx.bars[-2:]], [101.25, 100.0])
        self.assertEqual(r.ctx.bars[0].datetime.isoformat(), '2024-01-01T00:00:00+00:00')

    def test_forex_prices_print_as_exact_decimals(self):
        code = '''
out = []
def on_bar(ctx, bar):
    out.append(repr(bar.close))
'''
        bars = make_bars([(108_123, 108_130, 108_100, 108_127)])
        r = Run(code, bars, ticks_per_unit=100_000, tick_size=0.00001, tick_value=1.0)
        self.assertEqual(r.ns['out'], ['1.08127'])

    def test_quiet_bars_cost_no_bridge_call(self):
        r = Run('def on_bar(ctx, bar):\n    pass\n', flat_bars(500))
        self.assertIsNone(r.error)
        self.assertEqual(r.bridge.calls['advance'], 0)
        self.assertEqual(r.bridge.calls['place'] + r.bridge.calls['fills'], 0)

    def test_context_bars_appear_when_they_close(self):
        code = '''
seen = []
def on_bar(ctx, bar):
    h = ctx.context('5m')
    seen.append((bar.index, len(h), h[-1].end if len(h) else None, h.closes[-1] if len(h) else None))
'''
        bars = flat_bars(12)
        five = make_bars([(40_000, 40_010, 39_990, 40_004 + i) for i in range(3)], step=300)
        r = Run(code, bars, batch=4, ctx_bars={'5m': five}, context_timeframes=['5m'])
        self.assertIsNone(r.error)
        seen = r.ns['seen']
        self.assertEqual(seen[3], (3, 0, None, None))  # bar 3 ends 00:04: no 5m bar closed yet
        self.assertEqual(seen[4], (4, 1, T0 + 300, 10_001.0))  # bar 4 ends 00:05 with the first one
        self.assertEqual(seen[9], (9, 2, T0 + 600, 10_001.25))
        self.assertEqual(seen[11][1], 2)

    def test_history_columns_are_current_however_and_whenever_they_are_read(self):
        # Columns are built lazily (strategy_api.Series): a column held from init, one first read
        # mid-run, one read only through ctx.bars and one read only in on_end must all show every
        # bar so far, across batch edges, and nothing later.
        code = '''
seen = []
def init(ctx):
    ctx.held = ctx.closes
def on_bar(ctx, bar):
    row = [bar.index, len(ctx.held), ctx.held[-1], ctx.bars[-1].high, len(ctx.bars)]
    if bar.index >= 5:
        row.append(list(ctx.lows))
    if bar.index in (2, 3):
        row.append((list(ctx.times), list(ctx.volumes)))
    seen.append(row)
def on_end(ctx):
    seen.append((list(ctx.opens), list(ctx.highs), [b.close for b in ctx.bars], list(ctx.bars.ends)))
'''
        rows = [(400 + i, 404 + i, 396 + i, 401 + i) for i in range(8)]
        r = Run(code, make_bars(rows), batch=3)
        self.assertIsNone(r.error)
        seen = r.ns['seen']
        for i in range(8):
            self.assertEqual(seen[i][:5], [i, i + 1, (401 + i) / 4, (404 + i) / 4, i + 1])
        self.assertEqual(seen[2][5], ([T0, T0 + 60, T0 + 120], [10, 11, 12]))
        self.assertEqual(seen[3][5], ([T0, T0 + 60, T0 + 120, T0 + 180], [10, 11, 12, 13]))
        self.assertEqual(seen[5][5], [(396 + j) / 4 for j in range(6)])
        self.assertEqual(seen[7][5], [(396 + j) / 4 for j in range(8)])
        self.assertEqual(seen[8], ([(400 + j) / 4 for j in range(8)], [(404 + j) / 4 for j in range(8)],
                                   [(401 + j) / 4 for j in range(8)], [T0 + 60 * (j + 1) for j in range(8)]))
        self.assertIs(r.ns['seen'] and r.ctx.held, r.ctx.closes)  # the same array object throughout

    def test_old_bars_and_late_columns_come_from_the_kept_batches(self):
        # Columns nobody has read are not copied batch by batch: old bars are read from the batches
        # as they came (strategy_api.Series._chunks), and a column first read late is built from them.
        code = '''
seen = []
def on_bar(ctx, bar):
    if bar.index == 40:
        seen.append(('vol', list(ctx.volumes)))
        seen.append(('far', ctx.bars[3].close, ctx.bars[-17].high, ctx.bars[-17].index, ctx.bars[-1].time))
    if bar.index == 45:
        seen.append(('vol', list(ctx.volumes)[-6:], ctx.volumes is ctx.volumes))
def on_end(ctx):
    seen.append(('all', [(b.index, b.open, b.low) for b in ctx.bars][:3], [b.index for b in ctx.bars[20:24]], list(ctx.bars.ends)[-2:]))
'''
        rows = [(400 + i, 404 + i, 396 + i, 401 + i) for i in range(50)]
        r = Run(code, make_bars(rows), batch=4)
        self.assertIsNone(r.error)
        seen = r.ns['seen']
        self.assertEqual(seen[0], ('vol', [10 + j for j in range(41)]))
        self.assertEqual(seen[1], ('far', 404 / 4, (404 + 24) / 4, 24, T0 + 60 * 40))
        self.assertEqual(seen[2], ('vol', [10 + j for j in range(40, 46)], True))
        self.assertEqual(seen[3], ('all', [(0, 100.0, 99.0), (1, 401 / 4, 397 / 4), (2, 402 / 4, 398 / 4)], [20, 21, 22, 23],
                                   [T0 + 60 * 49, T0 + 60 * 50]))

    def test_glue_columns_form_gives_the_same_run_as_integer_batches(self):
        # run_columns is what the runner child calls (prices already in units, int64 columns).
        from array import array
        code = 'out = []\ndef on_bar(ctx, bar):\n    out.append((bar.index, bar.close, bar.volume, bar.end, len(ctx.closes)))\n'
        bars = synthetic_bars(40)
        a = Run(code, bars, batch=7).ns['out']
        harness.start(code, {}, meta(), FakeBridge(bars))
        for base in range(0, 40, 16):
            src = tuple(array('d', [x / 4 for x in bars[key][base:base + 16]]) for key in 'ohlc')
            src += tuple(array('q', bars[key][base:base + 16]) for key in 'vte')
            self.assertIsNone(harness.run_columns(base, src))
        self.assertIsNone(harness.finish())
        self.assertEqual(sys.modules['strategy'].__dict__['out'], a)
        with self.assertRaises(ValueError):  # a gap is a glue bug, never the strategy's error
            harness.run_columns(99, src)

    def test_history_gives_the_last_n_bars_as_float_columns(self):
        # ctx.history(n): one float list per field, oldest first, fewer at the start, across batch
        # edges; the same for a context timeframe; a bad n is a ValueError in the strategy's code.
        code = '''
seen = []
def on_bar(ctx, bar):
    h = ctx.history(3)
    seen.append((h.open, h.high, h.low, h.close, h.volume, h.time, h.end, type(h.volume[0]).__name__,
                 ctx.history(2, '5m').close))
def on_end(ctx):
    for bad in (0, 2.5, None):
        try:
            ctx.history(bad)
        except ValueError as e:
            seen.append(str(e))
'''
        rows = [(400 + i, 404 + i, 396 + i, 401 + i) for i in range(8)]
        five = make_bars([(40_000, 40_010, 39_990, 40_004 + i) for i in range(1)], step=300)
        r = Run(code, make_bars(rows), batch=3, ctx_bars={'5m': five}, context_timeframes=['5m'])
        self.assertIsNone(r.error)
        seen = r.ns['seen']
        self.assertEqual(seen[0][:8], ([100.0], [101.0], [99.0], [100.25], [10.0], [float(T0)], [float(T0 + 60)], 'float'))
        j = range(4, 7)  # bar 6 sees bars 4, 5, 6
        self.assertEqual(seen[6][:7], ([(400 + i) / 4 for i in j], [(404 + i) / 4 for i in j], [(396 + i) / 4 for i in j],
                                       [(401 + i) / 4 for i in j], [10.0 + i for i in j], [float(T0 + 60 * i) for i in j],
                                       [float(T0 + 60 * (i + 1)) for i in j]))
        self.assertEqual((seen[3][8], seen[4][8]), ([], [10_001.0]))  # the 5m bar closes with bar 4
        self.assertEqual(seen[8:], ['history needs a whole number of bars >= 1, got 0',
                                    'history needs a whole number of bars >= 1, got 2.5',
                                    'history needs a whole number of bars >= 1, got None'])

    def test_unrequested_context_timeframe_is_a_clear_error(self):
        r = Run("def on_bar(ctx, bar):\n    ctx.context('1h')\n", flat_bars(2))
        self.assertIn("KeyError: \"context timeframe '1h' was not requested for this run (requested: none)\"",
                      r.error)

    def test_params_and_meta(self):
        code = '''
got = {}
def init(ctx):
    got.update(fast=ctx.params['fast'], sym=ctx.symbol, tf=ctx.timeframe, tick=ctx.tick_size,
               tv=ctx.tick_value, bal=ctx.balance, eq=ctx.equity, pos=ctx.position.side)
    try:
        ctx.params['fast'] = 3
    except TypeError:
        got['read_only'] = True
def on_bar(ctx, bar):
    pass
'''
        r = Run(code, flat_bars(1), params={'fast': 10})
        self.assertEqual(r.ns['got'], {'fast': 10, 'sym': 'NQ', 'tf': '1m', 'tick': 0.25, 'tv': 5.0,
                                       'bal': 50_000.0, 'eq': 50_000.0, 'pos': None, 'read_only': True})


class Orders(unittest.TestCase):
    def test_market_order_fills_at_the_close_and_shows_on_the_next_bar(self):
        code = '''
log = []
def on_bar(ctx, bar):
    log.append((bar.index, ctx.position.qty, [(e.kind, e.price, e.size, e.side) for e in ctx.events]))
    if bar.index == 0:
        global order
        order = ctx.buy(2)
        log.append(('handle', order.id, order.status))
'''
        bars = make_bars([(400, 404, 398, 402), (402, 410, 402, 408), (408, 409, 405, 406)])
        r = Run(code, bars)
        self.assertIsNone(r.error)
        self.assertEqual(r.ns['log'], [
            (0, 0, []), ('handle', None, 'pending'),
            (1, 2, [('fill', 100.5, 2, 'buy')]),
            (2, 2, []),
        ])
        order = r.ns['order']
        self.assertEqual((order.id, order.status, order.fill_price, order.fill_time), (1, 'filled', 100.5, T0 + 60))
        pos = r.ctx.position
        self.assertEqual((pos.qty, pos.size, pos.side, pos.avg_price), (2, 2, 'long', 100.5))
        # Open P&L at the last close 406 ticks: (406 - 402) ticks * 2 contracts * $5.
        self.assertEqual(pos.open_pnl, 40.0)
        self.assertEqual(r.ctx.equity, 50_040.0)
        self.assertEqual(len(r.ctx.fills), 1)

    def test_limit_order_works_then_fills_on_touch_and_the_bridge_is_called_only_then(self):
        code = '''
log = []
def on_bar(ctx, bar):
    events = [(e.kind, e.price) for e in ctx.events]
    log.append((bar.index, events, [(o.type, o.side, o.limit_price) for o in ctx.orders]))
    if bar.index == 0:
        global order
        order = ctx.buy_limit(99.26)   # rounds to 99.25
'''
        rows = [(400, 401, 399, 400)] * 4 + [(400, 400, 396, 398)] + [(398, 399, 397, 398)] * 3
        r = Run(code, make_bars(rows))
        self.assertIsNone(r.error)
        log = r.ns['log']
        self.assertEqual(log[1], (1, [], [('limit', 'buy', 99.25)]))
        self.assertEqual(log[4], (4, [('fill', 99.25)], []))
        self.assertEqual(r.bridge.advanced, [4])  # bars 1..3 never reached 397
        self.assertEqual(r.ns['order'].status, 'filled')

    def test_bracket_legs_fill_one_cancels_other_and_report_the_cancellation(self):
        code = '''
log = []
def on_bar(ctx, bar):
    events = [(e.kind, e.order_id) for e in ctx.events]
    log.append((bar.index, events, sorted((o.type, o.parent_id) for o in ctx.orders)))
    if bar.index == 0:
        ctx.buy(1, stop_loss=8, take_profit=12)
'''
        rows = [(400, 401, 399, 400), (400, 405, 398, 404), (404, 413, 403, 412), (412, 412, 410, 411)]
        r = Run(code, make_bars(rows))
        self.assertIsNone(r.error)
        log = r.ns['log']
        self.assertEqual(log[1], (1, [('fill', 1)], [('limit', 1), ('stop', 1)]))  # legs 2 (stop) and 3 (limit)
        self.assertEqual(log[2], (2, [('fill', 3), ('canceled', 2)], []))  # take profit at 412, stop canceled
        self.assertEqual(r.ctx.position.qty, 0)
        self.assertEqual(r.ctx.fills[-1].pnl, 60.0)  # 12 ticks * $5
        self.assertEqual(r.ctx.balance, 50_060.0)

    def test_rejection_carries_the_reason(self):
        code = '''
log = []
def on_bar(ctx, bar):
    log.append([(e.kind, e.reason) for e in ctx.events if e.kind == 'rejected'])
    if bar.index == 0:
        global order
        order = ctx.buy(5)
'''
        bars = flat_bars(2)
        r = Run(code, bars, bridge=FakeBridge(bars, max_qty=3))
        self.assertEqual(r.ns['log'], [[], [('rejected', 'Maximum position size exceeded')]])
        self.assertEqual((r.ns['order'].status, r.ns['order'].reason, r.ns['order'].id),
                         ('rejected', 'Maximum position size exceeded', None))

    def test_cancel_cancel_all_close_and_flatten(self):
        code = '''
log = []
def on_bar(ctx, bar):
    i = bar.index
    log.append((i, ctx.position.qty, len(ctx.orders), sorted(e.kind for e in ctx.events)))
    if i == 0:
        global a
        a = ctx.buy_limit(90)
        ctx.sell_limit(110)
        ctx.buy(3)
    elif i == 1:
        ctx.cancel(a)
    elif i == 2:
        ctx.close(1)
    elif i == 3:
        ctx.cancel_all()
    elif i == 4:
        ctx.buy_stop(120)
        ctx.flatten()
'''
        r = Run(code, flat_bars(7, price=400))
        self.assertIsNone(r.error)
        self.assertEqual(r.ns['log'], [
            (0, 0, 0, []),
            (1, 3, 2, ['fill']),
            (2, 3, 1, ['canceled']),
            (3, 2, 1, ['fill']),
            (4, 2, 0, ['canceled']),
            (5, 0, 0, ['canceled', 'fill']),
            (6, 0, 0, []),
        ])
        self.assertEqual(r.ns['a'].status, 'canceled')

    def test_order_placed_and_canceled_in_one_bar_is_reported_canceled(self):
        code = '''
def on_bar(ctx, bar):
    if bar.index == 0:
        global o
        o = ctx.buy_stop(20_000)
        ctx.cancel(o)
'''
        r = Run(code, flat_bars(2))
        self.assertEqual(r.ns['o'].status, 'canceled')

    def test_on_fill_runs_before_on_bar_and_on_end_sees_last_events(self):
        code = '''
log = []
def on_fill(ctx, fill):
    log.append(('fill', fill.size, fill.side))
def on_bar(ctx, bar):
    log.append(('bar', bar.index))
    if bar.index in (0, 2):
        ctx.buy(1) if bar.index == 0 else ctx.close()
def on_end(ctx):
    log.append(('end', ctx.position.qty, len(ctx.fills)))
'''
        r = Run(code, flat_bars(3))
        self.assertIsNone(r.error)
        self.assertEqual(r.ns['log'], [('bar', 0), ('fill', 1, 'buy'), ('bar', 1), ('bar', 2),
                                       ('fill', 1, 'sell'), ('end', 0, 2)])

    def test_orders_from_on_end_are_applied(self):
        code = '''
def on_bar(ctx, bar):
    if bar.index == 0:
        ctx.sell(1)
def on_end(ctx):
    ctx.flatten()
'''
        r = Run(code, flat_bars(3))
        self.assertIsNone(r.error)
        self.assertEqual(r.bridge._qty(), 0)

    def test_prices_round_to_the_nearest_tick_and_bad_arguments_raise(self):
        code = '''
def on_bar(ctx, bar):
    global orders
    orders = [ctx.buy_limit(100.13), ctx.sell_stop_limit(99.9, 99.874)]
    assert ctx.round_price(100.13) == 100.25 and ctx.to_ticks(1.0) == 4
    for bad in (lambda: ctx.buy(0), lambda: ctx.buy(1.5), lambda: ctx.buy_limit(float('nan')),
                lambda: ctx.buy(1, stop_loss=0), lambda: ctx.cancel('x')):
        try:
            bad()
        except (ValueError, TypeError):
            pass
        else:
            raise AssertionError('accepted')
'''
        r = Run(code, flat_bars(1, price=400))
        self.assertIsNone(r.error)
        a, b = r.ns['orders']
        self.assertEqual((a.limit_price, b.stop_price, b.limit_price), (100.25, 100.0, 99.75))

    def test_orders_in_init_are_refused(self):
        r = Run('def init(ctx):\n    ctx.buy()\ndef on_bar(ctx, bar):\n    pass\n', flat_bars(1))
        self.assertIn('RuntimeError: orders can be placed from on_bar', r.error)


class TrailingStopsAndModify(unittest.TestCase):
    def test_trail_on_an_entry_is_a_trailing_stop_loss_and_trailing_stop_orders_send_their_trail(self):
        code = '''
def on_bar(ctx, bar):
    if bar.index == 0:
        global a, b, c
        a = ctx.buy(1, trail=12, take_profit=20)
        b = ctx.sell_trailing_stop(8, size=2)
        c = ctx.buy_limit(99, trail=6.4)
'''
        r = Run(code, flat_bars(2, price=400))
        self.assertIsNone(r.error)
        self.assertEqual(r.bridge.placed, [
            (MARKET, BUY, 1, None, None, 12, 20, None, 5),  # the trail is the stop-loss leg's, type 5
            (5, SELL, 2, None, None, None, None, 8, None),  # a trailing stop with its own trail
            (LIMIT, BUY, 1, 396, None, 6, None, None, 5),  # 6.4 ticks round to 6
        ])
        a, b = r.ns['a'], r.ns['b']
        self.assertEqual((a.trail, a.stop_loss, b.type, b.trail, b.stop_price), (12, None, 'trailing_stop', 8, None))

    def test_bad_trails_raise_in_the_strategy(self):
        code = '''
def on_bar(ctx, bar):
    for bad in (lambda: ctx.buy(1, trail=0), lambda: ctx.buy(1, stop_loss=8, trail=8), lambda: ctx.sell_trailing_stop(None),
                lambda: ctx.sell_trailing_stop(float('inf')), lambda: ctx.modify(1, trail=-1), lambda: ctx.modify('x', size=1),
                lambda: ctx.modify(1, size=0)):
        try:
            bad()
        except (ValueError, TypeError):
            pass
        else:
            raise AssertionError('accepted')
'''
        r = Run(code, flat_bars(1, price=400))
        self.assertIsNone(r.error)
        self.assertEqual(r.bridge.placed, [])

    def test_modify_changes_the_order_and_its_handle_a_refusal_is_an_event_a_finished_order_nothing(self):
        code = '''
log = []
def on_bar(ctx, bar):
    i = bar.index
    log.append((i, [(o.id, o.size, o.limit_price) for o in ctx.orders], [(e.kind, getattr(e, 'reason', None)) for e in ctx.events]))
    if i == 0:
        global o
        o = ctx.buy_limit(90)
    elif i == 1:
        ctx.modify(o, size=2, limit=95.3)
    elif i == 2:
        ctx.modify(o.id, size=9)
        ctx.modify(42, size=1)
'''
        bars = flat_bars(4, price=400)
        r = Run(code, bars, bridge=FakeBridge(bars, max_qty=3))
        self.assertIsNone(r.error)
        self.assertEqual(r.bridge.modified, [(1, 2, 381, None, None), (1, 9, None, None, None), (42, 1, None, None, None)])
        self.assertEqual(r.ns['log'], [
            (0, [], []),
            (1, [(1, 1, 90.0)], []),
            (2, [(1, 2, 95.25)], []),
            (3, [(1, 2, 95.25)], [('rejected', 'Maximum position size exceeded')]),
        ])
        o = r.ns['o']
        self.assertEqual((o.size, o.limit_price, o.status), (2, 95.25, 'working'))


class Errors(unittest.TestCase):
    def test_runtime_error_shows_only_user_frames(self):
        code = '''def helper(x):
    return 1 / x

def on_bar(ctx, bar):
    if bar.index == 2:
        helper(0)
'''
        r = Run(code, flat_bars(5))
        # Caret lines (~~^~~) differ between Python versions: compare without them.
        lines = [x for x in r.error.split('\n') if x.strip(' ~^')]
        self.assertEqual(lines, [
            'Traceback (most recent call last):',
            '  File "strategy.py", line 6, in on_bar',
            '    helper(0)',
            '  File "strategy.py", line 2, in helper',
            '    return 1 / x',
            'ZeroDivisionError: division by zero',
        ])
        self.assertNotIn('harness', r.error)
        self.assertEqual(len(r.ctx.bars), 3)  # the run stopped at the failing bar
        self.assertEqual(harness.run_batch(next(batches(flat_bars(1), 1))), r.error)

    def test_syntax_error_reports_line_and_message(self):
        r = Run('def on_bar(ctx, bar)\n    pass\n', flat_bars(1))
        self.assertTrue(r.error.startswith('  File "strategy.py", line 1'), r.error)
        self.assertIn('SyntaxError: expected \':\'', r.error)

    def test_missing_on_bar(self):
        r = Run('x = 1\n', flat_bars(1))
        self.assertEqual(r.error, 'strategy.py must define a function on_bar(ctx, bar)')

    def test_errors_in_module_code_init_and_on_end(self):
        r = Run('import nosuchmodule\ndef on_bar(ctx, bar): pass\n', flat_bars(1))
        self.assertIn('line 1, in <module>', r.error)
        self.assertIn("ModuleNotFoundError: No module named 'nosuchmodule'", r.error)
        r = Run('def init(ctx):\n    raise ValueError("bad params")\ndef on_bar(ctx, bar): pass\n', flat_bars(1))
        self.assertIn('line 2, in init', r.error)
        self.assertTrue(r.error.endswith('ValueError: bad params'))
        r = Run('def on_bar(ctx, bar): pass\ndef on_end(ctx):\n    {}["k"]\n', flat_bars(1))
        self.assertIn('line 3, in on_end', r.error)
        self.assertTrue(r.error.endswith("KeyError: 'k'"))

    def test_error_inside_an_indicator_points_at_the_user_line(self):
        r = Run('from indicators import sma\ndef on_bar(ctx, bar):\n    sma(ctx.closes, 0)\n', flat_bars(1))
        self.assertIn('  File "strategy.py", line 3, in on_bar', r.error)
        self.assertNotIn('indicators.py', r.error)
        self.assertTrue(r.error.endswith('ValueError: period must be an integer >= 1, got 0'))

    def test_recursion_and_memory_errors_are_reported(self):
        r = Run('def f(n):\n    return f(n + 1)\ndef on_bar(ctx, bar):\n    f(0)\n', flat_bars(1))
        self.assertIn('RecursionError: maximum recursion depth exceeded', r.error)
        self.assertIn('more times]', r.error)  # repeated frames are collapsed
        self.assertLess(len(r.error), harness.ERROR_CHARS_MAX + 100)
        r = Run('import sys\ndef on_bar(ctx, bar):\n    [0] * (sys.maxsize // 2)\n', flat_bars(1))
        self.assertTrue(r.error.endswith('MemoryError'), r.error)

    def test_exit_is_an_error_too(self):
        r = Run('import sys\ndef on_bar(ctx, bar):\n    sys.exit(3)\n', flat_bars(1))
        self.assertTrue(r.error.endswith('SystemExit: 3'), r.error)


class Logs(unittest.TestCase):
    def test_print_and_ctx_log_are_captured_and_stdout_restored(self):
        code = '''
import sys
def on_bar(ctx, bar):
    print('close', bar.close)
    print('partial', end='')
    print(' line', file=sys.stderr)
    ctx.log('at', bar.index)
'''
        stdout = sys.stdout
        r = Run(code, flat_bars(1))
        self.assertIs(sys.stdout, stdout)
        self.assertEqual(r.logs, ['close 10000.0', 'partial line', '[2024-01-01 00:00:00] at 0'])

    def test_output_is_bounded_with_one_final_note(self):
        r = Run('def on_bar(ctx, bar):\n    for i in range(30):\n        print(i)\n', flat_bars(100), batch=10)
        self.assertEqual(len(r.logs), harness.LOG_LINES_MAX + 1)
        self.assertEqual(r.logs[-1], '[output truncated: 1000 more lines not shown]')
        r = Run('def on_bar(ctx, bar):\n    print("x" * 100_000)\n', flat_bars(5))
        self.assertEqual(len(r.logs), 3)
        self.assertEqual(r.logs[-1], '[output truncated: 3 more lines not shown]')


class Templates(unittest.TestCase):
    """Every catalog template runs over synthetic bars with its default params and trades."""

    @classmethod
    def setUpClass(cls):
        bun = os.environ.get('BUN') or shutil.which('bun') or str(REPO / 'node_modules' / '.bin' / 'bun')
        if not os.path.exists(bun) and not shutil.which(bun):
            raise unittest.SkipTest('bun not found: cannot read the template catalog')
        script = ("import { TEMPLATES } from './src/service/playground/templates.ts';"
                  "console.log(JSON.stringify(TEMPLATES.map((t) => ({ id: t.id, "
                  "params: Object.fromEntries(t.params.map((p) => [p.name, p.default])) }))));")
        out = subprocess.run([bun, '-e', script], cwd=REPO, capture_output=True, text=True, timeout=60)
        if out.returncode != 0:
            raise AssertionError(f'bun failed to load templates.ts: {out.stderr}')
        cls.catalog = json.loads(out.stdout)
        cls.bars = synthetic_bars(6 * 1440)  # six days of 1-minute bars

    def test_catalog_matches_the_files(self):
        ids = sorted(t['id'] for t in self.catalog)
        self.assertEqual(ids, sorted(p.stem for p in TEMPLATES_DIR.glob('*.py')))
        self.assertGreaterEqual(len(ids), 6)

    def test_each_template_runs_and_trades(self):
        for t in self.catalog:
            with self.subTest(template=t['id']):
                code = (TEMPLATES_DIR / f"{t['id']}.py").read_text()
                r = Run(code, self.bars, params=t['params'], batch=1440)
                self.assertIsNone(r.error, r.error)
                self.assertGreater(len(r.ctx.fills), 0, f"{t['id']} never traded")
                # Quiet bars skip the bridge: advances stay well below one per bar.
                self.assertLess(r.bridge.calls['advance'], len(self.bars['t']) // 2)


if __name__ == '__main__':
    unittest.main()
