"""Tests of indicators.py: hand-computed values (chosen to be exact in binary floating point), and
the streaming classes checked against the sequence functions over every prefix."""

import os
import random
import sys
import unittest
from array import array

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import indicators as ind  # noqa: E402
from indicators import (  # noqa: E402
    ATR, EMA, RSI, SMA, Bollinger, Highest, Lowest, atr, bollinger, cross_above, cross_below, ema, highest, lowest,
    rsi, sma, stdev,
)

# (high, low, close) bars with true ranges 2, 2, 3, 2, 4 (the first is high - low).
HLC = [(10, 8, 9), (11, 9, 10), (12, 9, 11), (12, 10, 10), (13, 9, 12)]


def stream(indicator, values):
    return [indicator.update(x) for x in values]


def random_walk(n, seed=3, start=15_000.0):
    rnd = random.Random(seed)
    out, p = [], start
    for _ in range(n):
        p += rnd.choice((-0.25, 0.0, 0.25, 0.5, -0.5))
        out.append(p)
    return out


class Functions(unittest.TestCase):
    def test_sma(self):
        self.assertEqual(sma([1, 2, 3, 4, 5], 3), 4.0)  # (3 + 4 + 5) / 3
        self.assertEqual(sma([1, 2, 3], 3), 2.0)
        self.assertIsNone(sma([1, 2], 3))
        self.assertEqual(sma(array('d', [0.5, 1.5]), 2), 1.0)

    def test_ema_is_seeded_with_the_sma(self):
        # n = 3: alpha = 0.5; seed (1 + 2 + 3) / 3 = 2; then 0.5*4 + 0.5*2 = 3; then 0.5*5 + 0.5*3 = 4.
        self.assertEqual(ema([1, 2, 3], 3), 2.0)
        self.assertEqual(ema([1, 2, 3, 4], 3), 3.0)
        self.assertEqual(ema([1, 2, 3, 4, 5], 3), 4.0)
        self.assertIsNone(ema([1, 2], 3))

    def test_rsi_wilder(self):
        # n = 2, changes +2, -1, +2, 0. Seed: gain (2+0)/2 = 1, loss (0+1)/2 = 0.5 -> RS 2.
        self.assertEqual(rsi([10, 12, 11], 2), 100 - 100 / 3)
        # Then gain (1*1 + 2)/2 = 1.5, loss (0.5*1 + 0)/2 = 0.25 -> RS 6.
        self.assertEqual(rsi([10, 12, 11, 13], 2), 100 - 100 / 7)
        # Then gain 0.75, loss 0.125 -> RS 6 again.
        self.assertEqual(rsi([10, 12, 11, 13, 13], 2), 100 - 100 / 7)
        self.assertIsNone(rsi([10, 12], 2))

    def test_rsi_edges(self):
        self.assertEqual(rsi([1, 2, 3, 4], 3), 100.0)
        self.assertEqual(rsi([4, 3, 2, 1], 3), 0.0)
        self.assertEqual(rsi([5, 5, 5, 5], 3), 50.0)

    def test_atr_wilder(self):
        highs, lows, closes = (list(col) for col in zip(*HLC))
        # n = 2: first ATR = (2 + 2)/2 = 2; then (2 + 3)/2 = 2.5; (2.5 + 2)/2 = 2.25; (2.25 + 4)/2 = 3.125.
        self.assertIsNone(atr(highs[:1], lows[:1], closes[:1], 2))
        self.assertEqual(atr(highs[:2], lows[:2], closes[:2], 2), 2.0)
        self.assertEqual(atr(highs[:3], lows[:3], closes[:3], 2), 2.5)
        self.assertEqual(atr(highs, lows, closes, 2), 3.125)
        with self.assertRaises(ValueError):
            atr(highs, lows, closes[:-1], 2)

    def test_stdev_and_bollinger_use_the_population_deviation(self):
        values = [2, 4, 4, 4, 5, 5, 7, 9]  # mean 5, population variance 4
        self.assertEqual(stdev(values, 8), 2.0)
        self.assertEqual(bollinger(values, 8, 2.0), (5.0, 9.0, 1.0))
        self.assertEqual(bollinger([0] + values, 8, 1.5), (5.0, 8.0, 2.0))  # only the last 8 count
        self.assertIsNone(bollinger(values, 9))

    def test_highest_lowest_include_the_current_value(self):
        self.assertEqual(highest([5, 1, 4, 3], 3), 4)
        self.assertEqual(lowest([5, 1, 4, 3], 3), 1)
        self.assertEqual(highest([5, 1, 4, 3], 1), 3)
        self.assertIsNone(lowest([1], 2))

    def test_crosses(self):
        self.assertTrue(cross_above(1, 3, 2, 2))
        self.assertTrue(cross_above(2, 3, 2, 2))  # touching then above counts
        self.assertFalse(cross_above(3, 4, 2, 2))  # already above
        self.assertTrue(cross_below(3, 1, 2, 2))
        self.assertFalse(cross_below(None, 1, 2, 2))

    def test_periods_must_be_positive_integers(self):
        for bad in (0, -1, 2.0, '3', None):
            with self.assertRaises(ValueError):
                sma([1, 2, 3], bad)
            with self.assertRaises(ValueError):
                SMA(bad)


class Streaming(unittest.TestCase):
    def test_hand_values(self):
        self.assertEqual(stream(SMA(3), [1, 2, 3, 4, 5]), [None, None, 2.0, 3.0, 4.0])
        self.assertEqual(stream(EMA(3), [1, 2, 3, 4, 5]), [None, None, 2.0, 3.0, 4.0])
        self.assertEqual(stream(RSI(2), [10, 12, 11, 13, 13]),
                         [None, None, 100 - 100 / 3, 100 - 100 / 7, 100 - 100 / 7])
        a = ATR(2)
        self.assertEqual([a.update(*bar) for bar in HLC], [None, 2.0, 2.5, 2.25, 3.125])
        self.assertEqual(stream(Bollinger(8, 2.0), [2, 4, 4, 4, 5, 5, 7, 9])[-1], (5.0, 9.0, 1.0))
        self.assertEqual(stream(Highest(3), [5, 1, 4, 3, 2, 6]), [None, None, 5, 4, 4, 6])
        self.assertEqual(stream(Lowest(3), [5, 1, 4, 3, 2, 6]), [None, None, 1, 1, 2, 2])

    def test_value_and_ready(self):
        s = SMA(2)
        self.assertFalse(s.ready)
        s.update(1.0)
        self.assertIsNone(s.value)
        s.update(3.0)
        self.assertTrue(s.ready)
        self.assertEqual(s.value, 2.0)

    def test_streams_match_the_functions_on_every_prefix(self):
        values = random_walk(600)
        highs = [x + 0.5 for x in values]
        lows = [x - 0.75 for x in values]
        makers = {
            'sma': (lambda: SMA(7), lambda p: sma(p, 7)),
            'ema': (lambda: EMA(7), lambda p: ema(p, 7)),
            'rsi': (lambda: RSI(5), lambda p: rsi(p, 5)),
            'stdev-band': (lambda: Bollinger(9, 2.5), lambda p: bollinger(p, 9, 2.5)),
            'highest': (lambda: Highest(11), lambda p: highest(p, 11)),
            'lowest': (lambda: Lowest(11), lambda p: lowest(p, 11)),
        }
        for name, (make, fn) in makers.items():
            with self.subTest(name):
                s = make()
                for i, x in enumerate(values):
                    got, want = s.update(x), fn(values[:i + 1])
                    self.assertEqual(got is None, want is None, i)
                    if want is not None:
                        for g, w in zip(_tuple(got), _tuple(want)):
                            self.assertAlmostEqual(g, w, delta=1e-9 * max(1.0, abs(w)), msg=f'{name} at {i}')
        a = ATR(4)
        for i in range(len(values)):
            got = a.update(highs[i], lows[i], values[i])
            want = atr(highs[:i + 1], lows[:i + 1], values[:i + 1], 4)
            self.assertEqual(got is None, want is None)
            if want is not None:
                self.assertAlmostEqual(got, want, delta=1e-9)

    def test_long_runs_do_not_drift(self):
        values = [0.1 * (i % 7) + 15_000.3 for i in range(200_000)]
        s, b = SMA(30), Bollinger(20, 2.0)
        for x in values:
            s.update(x)
            b.update(x)
        self.assertAlmostEqual(s.value, sma(values, 30), delta=1e-9)
        for got, want in zip(b.value, bollinger(values, 20, 2.0)):
            self.assertAlmostEqual(got, want, delta=1e-8)

    def test_module_exports(self):
        for name in ind.__all__:
            self.assertTrue(hasattr(ind, name), name)


def _tuple(v):
    return v if isinstance(v, tuple) else (v,)


if __name__ == '__main__':
    unittest.main()
