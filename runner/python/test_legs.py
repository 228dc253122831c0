"""Tests of a run over several instruments on the harness side (legs.py): which bars of another
instrument are visible on the main instrument's clock, where orders go, flatten's reach, the one
balance, and the errors a strategy gets. A fake stands for the child's engines of the other
contracts (runner/child/leg-bridge.ts); the real ones run in test/playground/multi-instrument.test.ts.

Run with: python3 -m unittest discover -s runner/python
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from test_harness import T0, FakeBridge, make_bars, meta  # noqa: E402

ES = {'symbol': 'ES', 'ticks_per_unit': 4, 'tick_size': 0.25, 'tick_value': 12.5}
MARKET, BUY = 2, 0


class FakeLegs:
    """The other contracts' engines: market orders fill at once at the leg's last visible close."""

    def __init__(self):
        self.calls = []
        self.balance = 5_000_000
        self.qty = 0
        self.cost = 0
        self.fills_ = []

    def _price(self, i):
        leg = harness._rt.legs[i - 1]
        return round(leg.series.closes[-1] * leg.k)

    def _fill(self, i, k, side, size):
        p = self._price(i)
        sign = 1 if side == BUY else -1
        if self.qty and (self.qty > 0) != (sign > 0):  # reduces: realize at the average price
            avg = self.cost / self.qty
            self.balance += round((p - avg) * min(size, abs(self.qty)) * (1 if self.qty > 0 else -1) * 1250)
            self.qty += sign * size
            self.cost = avg * self.qty
        else:
            self.qty += sign * size
            self.cost += sign * size * p
        self.fills_.append((len(self.fills_) + 1, 100 + len(self.fills_), side, size, p, T0 + 60 * (k + 1), 0, 0))
        return 100 + len(self.fills_) - 1

    def state(self, i):
        return (self.balance, self.qty, round(self.cost), 2147483647, -2147483648, len(self.fills_), 0)

    def advance(self, i, k):
        self.calls.append(('advance', i, k))
        return self.state(i)

    def place(self, i, k, ty, side, size, *rest):
        self.calls.append(('place', i, k, ty, side, size))
        return (self._fill(i, k, side, size), '')

    def close(self, i, k, size):
        self.calls.append(('close', i, k, size))
        return (self._fill(i, k, 1 if self.qty > 0 else 0, abs(self.qty)), '') if self.qty else (0, 'No open position')

    def cancel(self, i, k, oid):
        self.calls.append(('cancel', i, k, oid))
        return False

    def modify(self, i, k, oid, *rest):
        return 'order_not_found'

    def fills(self, i, frm):
        return self.fills_[frm:]

    def working(self, i):
        return []


def at(cols, times):
    cols['t'] = list(times)
    cols['e'] = [t + 60 for t in times]


def run(code, main_rows, es_rows, es_times=None, main_times=None):
    """Runs `code` over NQ and ES 1 m bars (at the given open times; default every minute from T0), one batch."""
    bars = make_bars(main_rows)
    es = make_bars(es_rows)
    if es_times is not None:
        at(es, es_times)
    if main_times is not None:
        at(bars, main_times)
    bridge = FakeBridge(bars)
    bridge.legs = FakeLegs()
    out = {'error': harness.start(code, {}, meta(legs=[ES]), bridge)}
    if out['error'] is None:
        rt = harness._rt
        b = dict(bars, base=0, ctx={})
        out['error'] = harness.run_columns(0, rt.columns_of(b), None, [es])
    if out['error'] is None:
        out['error'] = harness.finish()
    harness.take_logs()
    out.update(ctx=harness._rt.ctx, legs=bridge.legs, main=bridge, ns=sys.modules['strategy'].__dict__)
    return out


class Visibility(unittest.TestCase):
    def test_a_bar_of_another_instrument_shows_once_it_closed_by_the_clock(self):
        code = '''
seen = []
def on_bar(ctx, bar):
    es = ctx.data["ES"]
    seen.append((bar.time, len(es.bars), es.time, es.end <= bar.end, [b.time for b in es.history(2)]))
'''
        # NQ has no bar at minute 2 (a gap): ES's bar there shows at NQ's next bar, with minute 3's.
        rows = [(400, 402, 399, 401)] * 3
        r = run(code, rows, [(200, 201, 199, 200)] * 4, es_times=[T0 + 60 * m for m in range(4)], main_times=[T0, T0 + 60, T0 + 180])
        self.assertIsNone(r['error'])
        self.assertEqual([s[1] for s in r['ns']['seen']], [1, 2, 4])
        self.assertTrue(all(s[3] for s in r['ns']['seen']))
        self.assertEqual(r['ns']['seen'][2][4], [T0 + 120, T0 + 180])

    def test_a_bar_after_the_main_instruments_last_never_shows(self):
        code = '''
seen = []
def on_bar(ctx, bar):
    seen.append((bar.index, len(ctx.data["ES"].bars)))
'''
        r = run(code, [(400, 402, 399, 401)] * 2, [(200, 201, 199, 200)] * 3, es_times=[T0, T0 + 60, T0 + 120])
        self.assertIsNone(r['error'])
        self.assertEqual(r['ns']['seen'], [(0, 1), (1, 2)])


class Orders(unittest.TestCase):
    CODE = '''
seen = []
def on_bar(ctx, bar):
    es = ctx.data["ES"]
    seen.append((bar.index, ctx.position.qty, es.position.qty, ctx.balance, sorted(ctx.positions.items())[0][1].qty))
    if bar.index == 0:
        ctx.buy(2, symbol="ES")
        ctx.buy(1)
    elif bar.index == 1:
        ctx.flatten(symbol="NQ")
    elif bar.index == 2:
        ctx.flatten()
'''

    def test_symbol_routes_orders_flatten_reaches_every_contract_and_the_balance_is_one(self):
        es_rows = [(200, 201, 199, 200), (204, 205, 203, 204), (208, 209, 207, 208), (208, 209, 207, 208)]
        r = run(self.CODE, [(400, 402, 399, 401)] * 4, es_rows)
        self.assertIsNone(r['error'], r['error'])
        legs = r['legs']
        self.assertEqual([c[:6] for c in legs.calls if c[0] == 'place'], [('place', 1, 0, MARKET, BUY, 2)])
        # flatten(symbol="NQ") leaves ES alone; flatten() closes it.
        self.assertEqual([c[:3] for c in legs.calls if c[0] == 'close'], [('close', 1, 2)])
        seen = r['ns']['seen']
        self.assertEqual([(s[1], s[2]) for s in seen], [(0, 0), (1, 2), (0, 2), (0, 0)])
        # ES bought 2 at 200 ticks (50.00), sold at 208 ticks: 8 ticks × 2 × $12.50 = $200 on one balance.
        self.assertEqual(seen[3][3], 50_000 + 200)
        fills = r['ctx'].fills
        self.assertEqual(sorted({f.symbol for f in fills}), ['ES', 'NQ'])
        self.assertEqual([f.symbol for f in r['ctx'].data['ES'].fills], ['ES', 'ES'])

    def test_an_unknown_symbol_and_an_order_before_the_first_bar_are_the_strategy_errors(self):
        r = run('def on_bar(ctx, bar):\n    ctx.buy(1, symbol="CL")\n', [(400, 402, 399, 401)], [(200, 201, 199, 200)])
        self.assertIn("ValueError: 'CL' is not an instrument of this run (its instruments: NQ, ES)", r['error'])
        r = run('def on_bar(ctx, bar):\n    ctx.sell(1, symbol="ES")\n', [(400, 402, 399, 401)], [(200, 201, 199, 200)], es_times=[T0 + 60])
        self.assertIn('RuntimeError: no ES bar has closed yet', r['error'])
        r = run('def on_bar(ctx, bar):\n    ctx.data["CL"]\n', [(400, 402, 399, 401)], [(200, 201, 199, 200)])
        self.assertIn("KeyError", r['error'])


if __name__ == '__main__':
    unittest.main()
