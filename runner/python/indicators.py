"""Indicator helpers for playground strategies: pure Python, standard library only.

Two flavours of each indicator:

- Functions over a sequence (a list, an ``array`` such as ``ctx.closes``, a tuple) compute the value
  at the sequence's last element: ``sma(ctx.closes, 20)``. They return ``None`` until the sequence
  is long enough. ``sma``, ``highest``, ``lowest``, ``stdev`` and ``bollinger`` read only the last
  ``n`` values; ``ema``, ``rsi`` and ``atr`` are recursive, so they walk the whole sequence (O(len)
  per call): fine in ``on_end`` or on short lists, too slow to call on every bar of a long run.
- Streaming classes keep their own state and cost O(1) per bar: create them once in ``init(ctx)``,
  feed one value per bar with ``update(...)``, which returns the new value (``None`` until ready).
  The last value is also in ``.value``, and ``.ready`` tells whether it exists.

Definitions (each function and its class give the same numbers, up to float rounding):

- SMA: arithmetic mean of the last n values.
- EMA: seeded with the SMA of the first n values, then ``alpha * x + (1 - alpha) * prev`` with
  ``alpha = 2 / (n + 1)``. The first value appears at the n-th input.
- RSI (Wilder): changes d = x[i] - x[i-1]; the first average gain / loss is the simple mean of the
  first n gains / losses, then ``avg = (avg * (n - 1) + new) / n``. RSI = 100 - 100 / (1 + gain/loss);
  100 when the average loss is 0, 50 when both averages are 0 (a flat market). Needs n + 1 values.
- ATR (Wilder): true range = max(high - low, |high - prev close|, |low - prev close|), and
  high - low for the very first bar (no previous close, as TradingView does). The first ATR is the
  mean of the first n true ranges, then Wilder smoothing as for RSI. Needs n bars.
- Bollinger bands: mid = SMA(n), upper / lower = mid +/- k * population standard deviation of the
  same n values (divide by n, not n - 1: the usual charting convention).
- highest / lowest: max / min of the last n values, the current one included.
"""

import math
from collections import deque

__all__ = [
    'sma', 'ema', 'rsi', 'atr', 'stdev', 'bollinger', 'highest', 'lowest', 'cross_above', 'cross_below',
    'SMA', 'EMA', 'RSI', 'ATR', 'Bollinger', 'Highest', 'Lowest',
]


def _period(n):
    # Periods come from user params: reject floats like 14.0 early, with a clear message.
    if type(n) is not int or n < 1:
        raise ValueError(f'period must be an integer >= 1, got {n!r}')
    return n


# ---- Functions over sequences ----

def sma(values, n):
    """Mean of the last n values, or None with fewer than n."""
    _period(n)
    if len(values) < n:
        return None
    return sum(values[-n:]) / n


def ema(values, n):
    """Exponential moving average at the last value (SMA-seeded, alpha = 2/(n+1)); None with fewer than n."""
    _period(n)
    if len(values) < n:
        return None
    alpha = 2.0 / (n + 1)
    beta = 1.0 - alpha
    value = sum(values[:n]) / n
    for i in range(n, len(values)):
        value = alpha * values[i] + beta * value
    return value


def rsi(values, n=14):
    """Wilder's RSI (0..100) at the last value; None with fewer than n + 1 values."""
    _period(n)
    if len(values) < n + 1:
        return None
    gain = loss = 0.0
    for i in range(1, n + 1):
        d = values[i] - values[i - 1]
        if d > 0:
            gain += d
        else:
            loss -= d
    gain /= n
    loss /= n
    for i in range(n + 1, len(values)):
        d = values[i] - values[i - 1]
        gain = (gain * (n - 1) + (d if d > 0 else 0.0)) / n
        loss = (loss * (n - 1) + (-d if d < 0 else 0.0)) / n
    return _rsi_value(gain, loss)


def _rsi_value(gain, loss):
    if loss == 0:
        return 50.0 if gain == 0 else 100.0
    return 100.0 - 100.0 / (1.0 + gain / loss)


def atr(highs, lows, closes, n=14):
    """Wilder's average true range at the last bar; None with fewer than n bars."""
    _period(n)
    count = len(closes)
    if len(highs) != count or len(lows) != count:
        raise ValueError('highs, lows and closes must have the same length')
    if count < n:
        return None
    total = 0.0
    for i in range(n):
        total += _true_range(highs[i], lows[i], closes[i - 1] if i else None)
    value = total / n
    for i in range(n, count):
        value = (value * (n - 1) + _true_range(highs[i], lows[i], closes[i - 1])) / n
    return value


def _true_range(high, low, prev_close):
    if prev_close is None:
        return high - low
    return max(high - low, abs(high - prev_close), abs(low - prev_close))


def stdev(values, n):
    """Population standard deviation of the last n values; None with fewer than n."""
    _period(n)
    if len(values) < n:
        return None
    window = values[-n:]
    mean = sum(window) / n
    return math.sqrt(sum((x - mean) * (x - mean) for x in window) / n)


def bollinger(values, n=20, k=2.0):
    """(mid, upper, lower) Bollinger bands of the last n values; None with fewer than n."""
    _period(n)
    if len(values) < n:
        return None
    window = values[-n:]
    mid = sum(window) / n
    sd = math.sqrt(sum((x - mid) * (x - mid) for x in window) / n)
    return mid, mid + k * sd, mid - k * sd


def highest(values, n):
    """Largest of the last n values (the current one included); None with fewer than n."""
    _period(n)
    if len(values) < n:
        return None
    return max(values[-n:])


def lowest(values, n):
    """Smallest of the last n values (the current one included); None with fewer than n."""
    _period(n)
    if len(values) < n:
        return None
    return min(values[-n:])


def cross_above(a_prev, a, b_prev, b):
    """True when series a crosses above series b on this bar: a_prev <= b_prev and a > b. False if any is None."""
    if a_prev is None or a is None or b_prev is None or b is None:
        return False
    return a_prev <= b_prev and a > b


def cross_below(a_prev, a, b_prev, b):
    """True when series a crosses below series b on this bar: a_prev >= b_prev and a < b. False if any is None."""
    if a_prev is None or a is None or b_prev is None or b is None:
        return False
    return a_prev >= b_prev and a < b


# ---- Streaming indicators: O(1) per update ----

class SMA:
    """Simple moving average of the last n updates."""

    __slots__ = ('n', 'value', '_ring', '_at', '_sum', '_full')

    def __init__(self, n):
        self.n = _period(n)
        self.value = None
        # The window as a ring: _ring[_at] is the oldest value once n have come (zeros before, so the
        # running sum's arithmetic is the same from the first update on).
        self._ring = [0.0] * n
        self._at = 0
        self._sum = 0.0
        self._full = False

    @property
    def ready(self):
        return self.value is not None

    def update(self, x):
        ring = self._ring
        i = self._at
        s = self._sum + x - ring[i]
        ring[i] = x
        i += 1
        if i == self.n:
            i = 0
            if self._full:
                # A running sum drifts by a rounding error per update; summing the window afresh
                # (oldest first) every n updates bounds the drift at O(1) amortized cost.
                s = sum(ring)
            else:
                self._full = True
        self._at = i
        self._sum = s
        if self._full:
            value = self.value = s / self.n
            return value
        return None


class EMA:
    """Exponential moving average: SMA of the first n updates, then alpha = 2/(n+1) smoothing."""

    __slots__ = ('n', 'alpha', 'value', '_count', '_seed')

    def __init__(self, n):
        self.n = _period(n)
        self.alpha = 2.0 / (n + 1)
        self.value = None
        self._count = 0
        self._seed = 0.0

    @property
    def ready(self):
        return self.value is not None

    def update(self, x):
        value = self.value
        if value is not None:
            value = self.value = self.alpha * x + (1.0 - self.alpha) * value
            return value
        self._count += 1
        self._seed += x
        if self._count < self.n:
            return None
        value = self.value = self._seed / self.n
        return value


class RSI:
    """Wilder's RSI of the updates (0..100); ready after n + 1 updates."""

    __slots__ = ('n', 'value', '_prev', '_count', '_gain', '_loss')

    def __init__(self, n=14):
        self.n = _period(n)
        self.value = None
        self._prev = None
        self._count = 0
        self._gain = 0.0
        self._loss = 0.0

    @property
    def ready(self):
        return self.value is not None

    def update(self, x):
        prev = self._prev
        self._prev = x
        if prev is None:
            return None
        d = x - prev
        up = d if d > 0 else 0.0
        down = -d if d < 0 else 0.0
        n = self.n
        if self._count < n:
            # Seeding: plain sums of the first n changes.
            self._count += 1
            self._gain += up
            self._loss += down
            if self._count < n:
                return None
            self._gain /= n
            self._loss /= n
        else:
            self._gain = (self._gain * (n - 1) + up) / n
            self._loss = (self._loss * (n - 1) + down) / n
        value = self.value = _rsi_value(self._gain, self._loss)
        return value


class ATR:
    """Wilder's average true range; update(high, low, close) once per bar; ready after n bars."""

    __slots__ = ('n', 'value', '_prev_close', '_count', '_sum')

    def __init__(self, n=14):
        self.n = _period(n)
        self.value = None
        self._prev_close = None
        self._count = 0
        self._sum = 0.0

    @property
    def ready(self):
        return self.value is not None

    def update(self, high, low, close):
        tr = _true_range(high, low, self._prev_close)
        self._prev_close = close
        n = self.n
        value = self.value
        if value is not None:
            value = self.value = (value * (n - 1) + tr) / n
            return value
        self._count += 1
        self._sum += tr
        if self._count < n:
            return None
        value = self.value = self._sum / n
        return value


class Bollinger:
    """Bollinger bands of the last n updates; update(x) returns (mid, upper, lower) or None."""

    __slots__ = ('n', 'k', 'value', '_window', '_anchor', '_s1', '_s2', '_until_resum')

    def __init__(self, n=20, k=2.0):
        self.n = _period(n)
        self.k = k
        self.value = None
        self._window = deque()
        self._until_resum = n
        self._anchor = None
        self._s1 = 0.0
        self._s2 = 0.0

    @property
    def ready(self):
        return self.value is not None

    def update(self, x):
        w = self._window
        w.append(x)
        n = self.n
        if self._anchor is None:
            self._anchor = x
        # Sums of deviations from an anchor near the data avoid the cancellation of a raw sum of
        # squares (prices around 15000 with a spread of a few points would lose every digit).
        d = x - self._anchor
        self._s1 += d
        self._s2 += d * d
        if len(w) > n:
            old = w.popleft() - self._anchor
            self._s1 -= old
            self._s2 -= old * old
            self._until_resum -= 1
            if self._until_resum == 0:
                self._resum()
        elif len(w) < n:
            return None
        mean_d = self._s1 / n
        var = self._s2 / n - mean_d * mean_d
        sd = math.sqrt(var) if var > 0 else 0.0
        mid = self._anchor + mean_d
        value = self.value = (mid, mid + self.k * sd, mid - self.k * sd)
        return value

    def _resum(self):
        # Re-anchor on the current mean and sum afresh: bounds both drift and cancellation.
        w = self._window
        self._until_resum = self.n
        anchor = self._anchor = sum(w) / len(w)
        self._s1 = sum(x - anchor for x in w)
        self._s2 = sum((x - anchor) * (x - anchor) for x in w)


class Highest:
    """Largest of the last n updates (monotonic queue: O(1) amortized)."""

    __slots__ = ('n', 'value', '_queue', '_count')

    def __init__(self, n):
        self.n = _period(n)
        self.value = None
        self._queue = deque()  # (index, value), values strictly decreasing
        self._count = 0

    @property
    def ready(self):
        return self.value is not None

    def update(self, x):
        q = self._queue
        i = self._count
        self._count = i + 1
        while q and q[-1][1] <= x:
            q.pop()
        q.append((i, x))
        if q[0][0] <= i - self.n:
            q.popleft()
        if i + 1 < self.n:
            return None
        value = self.value = q[0][1]
        return value


class Lowest:
    """Smallest of the last n updates: the Highest of the negated values (O(1) amortized)."""

    __slots__ = ('n', 'value', '_highest')

    def __init__(self, n):
        self._highest = Highest(n)
        self.n = self._highest.n
        self.value = None

    @property
    def ready(self):
        return self.value is not None

    def update(self, x):
        v = self._highest.update(-x)
        if v is None:
            return None
        value = self.value = -v
        return value
