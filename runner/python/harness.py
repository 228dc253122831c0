"""The playground's strategy runtime: runs one user strategy over a backtest, inside Pyodide.

The child's JS glue drives it through four calls, in this order (docs/playground.md has the user's
side of the API; the bridge is runner/child/bridge.ts):

    start(code, params, meta, bridge) -> error text or None   compile, on_bar check, init(ctx)
    run_batch(b) -> error text or None                        repeatedly, consecutive bars
    finish() -> error text or None                            on_end(ctx)
    take_logs() -> list[str]                                  after every call above

Model:
- Bars arrive in batches of columns (prices in integer ticks). For each bar k, in order: (a) if the
  bar's range reaches a trigger of the last engine state (high >= up or low <= down), the bridge
  advances the engine through bar k and its fills become events; otherwise the bridge is not called
  (the hot path); (b) the bar, and every context bar that ended by this bar's end, join the history;
  (c) on_fill(ctx, fill) runs for each new fill, then on_bar(ctx, bar).
- Order requests made by the strategy are queued and applied after the callback returns, in request
  order, "right after bar k": the bridge brings the engine to bar k's close first, so a market order
  fills at that close plus the engine's slippage. Their results (ids, fills, rejections) are seen by
  the strategy from the next bar on, as events and in ctx.position / ctx.orders.
- Prices the strategy sees are floats, ticks / k (k = ticks per price unit; division by an integer
  is correctly rounded, so they print as exact decimals). Prices it gives are rounded to the nearest
  tick. Money from the bridge is integer cents.
- Output from print() and ctx.log() is kept up to LOG_LINES_MAX lines / LOG_BYTES_MAX bytes over the
  whole run; the rest is counted and reported by one final note.
- Errors in user code end the run: the text is the traceback restricted to strategy.py's frames.

Speed: per bar the hot path is two compares, seven appends to typed history columns, one Bar
object (built without __init__), and the callback. No dict, list or datetime is made per bar and the
bridge is called only on bars that can fill or after the strategy asked for something.
"""

import builtins
import io
import linecache
import math
import sys
import traceback
import types
from array import array
from collections import namedtuple
from datetime import datetime, timezone

import indicators

FILENAME = 'strategy.py'
NO_UP_TRIGGER = 2147483647
NO_DOWN_TRIGGER = -2147483648
NO_RELEASE = float('inf')

LOG_LINES_MAX = 2000
LOG_BYTES_MAX = 256 * 1024
ERROR_CHARS_MAX = 8000
REQUESTS_PER_CALL_MAX = 1000  # order requests one callback may queue
PRICE_TICKS_ABS_MAX = 1_000_000_000  # engine.ts refuses prices beyond this
BRACKET_TICKS_MAX = 1_000_000

# Wire codes of the bridge (src/engine/types.ts).
LIMIT, MARKET, STOP_LIMIT, STOP = 1, 2, 3, 4
BUY, SELL = 0, 1
TYPE_NAMES = {LIMIT: 'limit', MARKET: 'market', STOP_LIMIT: 'stop_limit', STOP: 'stop'}
SIDE_NAMES = ('buy', 'sell')

# Queued request kinds.
_PLACE, _CANCEL, _CANCEL_ALL, _CLOSE, _FLATTEN = range(5)

_EMPTY = ()
_utc = timezone.utc
_NO_INPUT = io.StringIO()


# ---- Values the strategy sees ----

class Bar:
    """One bar: prices as floats, times as epoch seconds (UTC)."""

    __slots__ = ('open', 'high', 'low', 'close', 'volume', 'time', 'end', 'index')

    def __init__(self, open, high, low, close, volume, time, end, index):
        self.open = open
        self.high = high
        self.low = low
        self.close = close
        self.volume = volume
        self.time = time
        self.end = end
        self.index = index

    @property
    def datetime(self):
        """Open time as an aware UTC datetime, built on demand."""
        return datetime.fromtimestamp(self.time, _utc)

    def __repr__(self):
        return (f'Bar(index={self.index}, time={self.time}, open={self.open}, high={self.high}, '
                f'low={self.low}, close={self.close}, volume={self.volume})')

    def __eq__(self, other):
        if not isinstance(other, Bar):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in Bar.__slots__)

    __hash__ = None


_new = object.__new__


class Series:
    """Closed bars of one timeframe, oldest first: a sequence of Bar plus typed columns.

    Columns are arrays that grow by one element per bar, so ``closes[-20:]`` is a cheap copy.
    Bars are built from the columns on access; ``series[-1]`` is the latest bar.
    """

    __slots__ = ('timeframe', 'opens', 'highs', 'lows', 'closes', 'volumes', 'times', 'ends')

    def __init__(self, timeframe):
        self.timeframe = timeframe
        self.opens = array('d')
        self.highs = array('d')
        self.lows = array('d')
        self.closes = array('d')
        self.volumes = array('q')
        self.times = array('q')
        self.ends = array('q')

    def __len__(self):
        return len(self.closes)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self._bar(j) for j in range(*i.indices(len(self.closes)))]
        n = len(self.closes)
        j = i + n if i < 0 else i
        if not 0 <= j < n:
            raise IndexError(f'bar index {i} out of range ({n} bars)')
        return self._bar(j)

    def __iter__(self):
        return (self._bar(j) for j in range(len(self.closes)))

    def __repr__(self):
        return f'<Series {self.timeframe}: {len(self.closes)} bars>'

    def _bar(self, j):
        return Bar(self.opens[j], self.highs[j], self.lows[j], self.closes[j], self.volumes[j],
                   self.times[j], self.ends[j], j)

    def _append(self, t, e, o, h, l, c, v, k):
        self.opens.append(o / k)
        self.highs.append(h / k)
        self.lows.append(l / k)
        self.closes.append(c / k)
        self.volumes.append(v)
        self.times.append(t)
        self.ends.append(e)


class Position:
    """The net position at the last engine state; open_pnl is valued at the current bar's close."""

    __slots__ = ('qty', 'size', 'side', 'avg_price', '_cost_ticks', '_rt')

    def __init__(self, qty, cost_ticks, rt):
        self.qty = qty
        self.size = abs(qty)
        self.side = 'long' if qty > 0 else 'short' if qty < 0 else None
        self.avg_price = cost_ticks / qty / rt.k if qty else None
        self._cost_ticks = cost_ticks
        self._rt = rt

    @property
    def open_pnl(self):
        """Unrealized P&L in USD at the current bar's close."""
        rt = self._rt
        closes = rt.series.closes
        if not self.qty or not closes:
            return 0.0
        last_ticks = round(closes[-1] * rt.k)  # exact: prices are ticks / k
        return (last_ticks * self.qty - self._cost_ticks) * rt.tick_value_cents / 100

    def __repr__(self):
        return f'Position(qty={self.qty}, avg_price={self.avg_price}, open_pnl={self.open_pnl})'


class Order:
    """Handle of an order the strategy requested; the runtime updates it as the order progresses.

    status: 'pending' (queued, not yet sent) -> 'working' -> 'filled' | 'canceled', or 'rejected'
    (with ``reason``). ``id`` is None until the order reaches the engine.
    """

    __slots__ = ('id', 'type', 'side', 'size', 'limit_price', 'stop_price', 'stop_loss', 'take_profit',
                 'status', 'reason', 'fill_price', 'fill_time', '_type', '_side', '_limit', '_stop')

    def __init__(self, type_code, side_code, size, limit_ticks, stop_ticks, sl, tp, k):
        self.id = None
        self.type = TYPE_NAMES[type_code]
        self.side = SIDE_NAMES[side_code]
        self.size = size
        self.limit_price = None if limit_ticks is None else limit_ticks / k
        self.stop_price = None if stop_ticks is None else stop_ticks / k
        self.stop_loss = sl
        self.take_profit = tp
        self.status = 'pending'
        self.reason = None
        self.fill_price = None
        self.fill_time = None
        self._type = type_code
        self._side = side_code
        self._limit = limit_ticks
        self._stop = stop_ticks

    @property
    def is_working(self):
        return self.status == 'working'

    @property
    def is_done(self):
        return self.status in ('filled', 'canceled', 'rejected')

    def __repr__(self):
        extra = ''.join(f', {f}={getattr(self, f)}' for f in ('limit_price', 'stop_price', 'stop_loss',
                                                              'take_profit', 'reason', 'fill_price')
                        if getattr(self, f) is not None)
        return f'Order(id={self.id}, {self.side} {self.size} {self.type}, status={self.status}{extra})'


WorkingOrder = namedtuple('WorkingOrder', 'id type side size limit_price stop_price parent_id')
WorkingOrder.__doc__ = 'A working order in the engine (parent_id is the entry order id for bracket legs).'


class Fill:
    """An execution. fee and pnl (realized on the reduced part) are USD; order is the handle or None."""

    __slots__ = ('id', 'order_id', 'side', 'size', 'price', 'time', 'fee', 'pnl', 'order')
    kind = 'fill'

    def __init__(self, fid, order_id, side, size, price, time, fee, pnl, order):
        self.id = fid
        self.order_id = order_id
        self.side = side
        self.size = size
        self.price = price
        self.time = time
        self.fee = fee
        self.pnl = pnl
        self.order = order

    def __repr__(self):
        return (f'Fill(id={self.id}, order_id={self.order_id}, {self.side} {self.size} @ {self.price}, '
                f'time={self.time}, fee={self.fee}, pnl={self.pnl})')


class Rejection:
    """An order request the engine refused (for example for insufficient margin)."""

    __slots__ = ('order', 'reason', 'time')
    kind = 'rejected'

    def __init__(self, order, reason, time):
        self.order = order
        self.reason = reason
        self.time = time

    @property
    def order_id(self):
        return None

    def __repr__(self):
        return f'Rejection({self.order!r}, reason={self.reason!r})'


class Cancellation:
    """A working order that went away without filling: canceled by the strategy, or a bracket leg
    canceled by the engine (its sibling filled, or the position was closed)."""

    __slots__ = ('order_id', 'order', 'time')
    kind = 'canceled'

    def __init__(self, order_id, order, time):
        self.order_id = order_id
        self.order = order
        self.time = time

    def __repr__(self):
        return f'Cancellation(order_id={self.order_id})'


# ---- The context object ----

class Context:
    """What a strategy sees and uses: history, account, orders, events, params, logging.

    Strategies may store their own attributes on it (``ctx.fast = SMA(10)``).
    """

    def __init__(self, rt, params, meta):
        self._rt = rt
        self.params = types.MappingProxyType(dict(params))
        self.symbol = meta['symbol']
        self.timeframe = meta['timeframe']
        self.tick_size = float(meta['tick_size'])
        self.tick_value = float(meta['tick_value'])
        self.ticks_per_unit = rt.k
        self.starting_balance = float(meta['starting_balance'])
        self.start = meta['start']
        self.end = meta['end']
        self.context_timeframes = tuple(meta.get('context_timeframes') or ())
        self.ind = indicators
        s = rt.series
        self.bars = s
        self.opens, self.highs, self.lows, self.closes = s.opens, s.highs, s.lows, s.closes
        self.volumes, self.times = s.volumes, s.times
        self.position = Position(0, 0, rt)
        self.balance = self.starting_balance
        self.orders = _EMPTY
        self.events = _EMPTY
        self.fills = []

    @property
    def equity(self):
        """Balance plus the open P&L at the current bar's close, USD."""
        return self.balance + self.position.open_pnl

    def context(self, timeframe):
        """Closed bars of a context timeframe requested for the run (a Series)."""
        s = self._rt.context_series.get(timeframe)
        if s is None:
            have = ', '.join(self.context_timeframes) or 'none'
            raise KeyError(f'context timeframe {timeframe!r} was not requested for this run (requested: {have})')
        return s

    # -- prices --

    def to_ticks(self, price):
        """Nearest whole number of ticks of a price (or of a price distance)."""
        return _ticks(price, self._rt.k, 'price')

    def round_price(self, price):
        """A price rounded to the nearest tick."""
        k = self._rt.k
        return _ticks(price, k, 'price') / k

    # -- orders: queued, applied after the callback returns --

    def buy(self, size=1, stop_loss=None, take_profit=None):
        return self._place(MARKET, BUY, size, None, None, stop_loss, take_profit)

    def sell(self, size=1, stop_loss=None, take_profit=None):
        return self._place(MARKET, SELL, size, None, None, stop_loss, take_profit)

    def buy_limit(self, price, size=1, stop_loss=None, take_profit=None):
        return self._place(LIMIT, BUY, size, price, None, stop_loss, take_profit)

    def sell_limit(self, price, size=1, stop_loss=None, take_profit=None):
        return self._place(LIMIT, SELL, size, price, None, stop_loss, take_profit)

    def buy_stop(self, price, size=1, stop_loss=None, take_profit=None):
        return self._place(STOP, BUY, size, None, price, stop_loss, take_profit)

    def sell_stop(self, price, size=1, stop_loss=None, take_profit=None):
        return self._place(STOP, SELL, size, None, price, stop_loss, take_profit)

    def buy_stop_limit(self, stop, limit, size=1, stop_loss=None, take_profit=None):
        return self._place(STOP_LIMIT, BUY, size, limit, stop, stop_loss, take_profit)

    def sell_stop_limit(self, stop, limit, size=1, stop_loss=None, take_profit=None):
        return self._place(STOP_LIMIT, SELL, size, limit, stop, stop_loss, take_profit)

    def cancel(self, order):
        """Cancels a working order (an Order handle, a WorkingOrder or an id). No effect if it is not working."""
        if not isinstance(order, (Order, WorkingOrder)) and type(order) is not int:
            raise TypeError(f'cancel() takes an order or an order id, got {type(order).__name__}')
        self._rt.request(_CANCEL, order)

    def cancel_all(self):
        """Cancels every working order, bracket legs included."""
        self._rt.request(_CANCEL_ALL, None)

    def close(self, size=None):
        """Closes `size` contracts of the position at market (None = all). Returns the order handle."""
        rt = self._rt
        if size is not None:
            size = _size(size)
        order = Order(MARKET, BUY, size or 0, None, None, None, None, rt.k)
        order.side = None  # decided by the engine: the side that reduces the position
        rt.request(_CLOSE, order)
        return order

    def flatten(self):
        """Cancels every working order, then closes the whole position at market."""
        self._rt.request(_FLATTEN, None)

    def _place(self, type_code, side, size, limit, stop, stop_loss, take_profit):
        rt = self._rt
        k = rt.k
        order = Order(type_code, side, _size(size),
                      None if limit is None else _ticks(limit, k, 'limit price'),
                      None if stop is None else _ticks(stop, k, 'stop price'),
                      _bracket(stop_loss, 'stop_loss'), _bracket(take_profit, 'take_profit'), k)
        rt.request(_PLACE, order)
        return order

    # -- logs --

    def log(self, *args, sep=' '):
        """Writes one line to the run's logs, prefixed with the current bar's open time (UTC)."""
        times = self._rt.series.times
        stamp = datetime.fromtimestamp(times[-1], _utc).strftime('%Y-%m-%d %H:%M:%S') if times else 'init'
        self._rt.out.write(f'[{stamp}] {sep.join(map(str, args))}\n')


def _size(size):
    if type(size) is not int or size < 1:
        raise ValueError(f'order size must be an integer >= 1, got {size!r}')
    return size


def _ticks(price, k, what):
    if isinstance(price, bool) or not isinstance(price, (int, float)) or not math.isfinite(price):
        raise ValueError(f'{what} must be a finite number, got {price!r}')
    ticks = round(price * k)  # nearest tick; exact halves round to the even tick
    if abs(ticks) > PRICE_TICKS_ABS_MAX:
        raise ValueError(f'{what} {price!r} is out of range')
    return ticks


def _bracket(ticks, what):
    if ticks is None:
        return None
    if isinstance(ticks, bool) or not isinstance(ticks, (int, float)) or not math.isfinite(ticks):
        raise ValueError(f'{what} must be a distance in ticks (a number >= 1), got {ticks!r}')
    n = round(ticks)  # whole ticks
    if n < 1 or n > BRACKET_TICKS_MAX:
        raise ValueError(f'{what} must be between 1 and {BRACKET_TICKS_MAX} ticks, got {ticks!r}')
    return n


# ---- Output capture ----

class _Output(io.TextIOBase):
    """sys.stdout / sys.stderr while user code runs: whole lines, bounded over the run."""

    def __init__(self):
        self._lines = []
        self._partial = []
        self._partial_len = 0
        self._kept_lines = 0
        self._kept_bytes = 0
        self._dropped = 0
        self._closed_note = False

    def writable(self):
        return True

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError(f'write() argument must be str, not {type(s).__name__}')
        if '\n' not in s:
            self._partial.append(s)
            self._partial_len += len(s)
            if self._partial_len > LOG_BYTES_MAX:  # a huge line without newline: cut it here
                self._line(''.join(self._partial))
                self._partial = []
                self._partial_len = 0
            return len(s)
        parts = s.split('\n')
        if self._partial:
            parts[0] = ''.join(self._partial) + parts[0]
            self._partial = []
            self._partial_len = 0
        for line in parts[:-1]:
            self._line(line)
        if parts[-1]:
            self._partial.append(parts[-1])
            self._partial_len = len(parts[-1])
        return len(s)

    def _line(self, line):
        size = (len(line) if line.isascii() else len(line.encode('utf-8', 'replace'))) + 1
        if self._kept_lines >= LOG_LINES_MAX or self._kept_bytes + size > LOG_BYTES_MAX:
            self._dropped += 1
            return
        self._kept_lines += 1
        self._kept_bytes += size
        self._lines.append(line)

    def close_run(self):
        """End of the run: flush a trailing partial line and add the truncation note once."""
        if self._partial:
            self._line(''.join(self._partial))
            self._partial = []
            self._partial_len = 0
        if self._dropped and not self._closed_note:
            self._closed_note = True
            self._lines.append(f'[output truncated: {self._dropped} more lines not shown]')

    def take(self):
        lines = self._lines
        self._lines = []
        return lines


# ---- The runtime ----

class _Runtime:
    def __init__(self, params, meta, bridge):
        self.bridge = bridge
        self.k = int(meta['ticks_per_unit'])
        assert self.k >= 1, 'ticks_per_unit must be >= 1'
        self.tick_value_cents = round(float(meta['tick_value']) * 100)
        self.series = Series(meta['timeframe'])
        tfs = tuple(meta.get('context_timeframes') or ())
        self.context_series = {tf: Series(tf) for tf in tfs}
        # Context bars received but not yet visible: per timeframe, columns and a read position.
        self.context_pending = {tf: [[], [], [], [], [], [], [], 0] for tf in tfs}
        self.next_release = NO_RELEASE
        self.out = _Output()
        self.queue = []
        self.pending = []  # events for the strategy's next callback
        self.handles = {}  # order id -> Order handle, while the order can still change
        self.working_ids = set()
        self.error = None
        self.finished = False
        self.on_bar = self.on_fill = self.on_end = None
        self.balance_cents = None
        self.qty = 0
        self.cost = 0
        self.up = NO_UP_TRIGGER
        self.down = NO_DOWN_TRIGGER
        self.fill_count = 0
        self.ctx = Context(self, params, meta)

    def request(self, kind, arg):
        if not self.series.closes:
            raise RuntimeError('orders can be placed from on_bar (or on_fill / on_end) only: there is no price yet')
        if self.finished:
            raise RuntimeError('the run has ended: no more orders')
        q = self.queue
        if len(q) >= REQUESTS_PER_CALL_MAX:
            raise RuntimeError(f'too many order requests in one bar (limit {REQUESTS_PER_CALL_MAX})')
        q.append((kind, arg))

    # -- engine state --

    def sync(self, st, refresh_working):
        """Takes in a state tuple: new fills become events, and the strategy's view is refreshed."""
        bal, qty, cost, up, down, fill_count, working_count = st
        self.up = up
        self.down = down
        filled = None
        if fill_count != self.fill_count:
            filled = self.take_fills(fill_count)
            refresh_working = True
        if bal != self.balance_cents:
            self.balance_cents = bal
            self.ctx.balance = bal / 100
        if qty != self.qty or cost != self.cost:
            self.qty = qty
            self.cost = cost
            self.ctx.position = Position(qty, cost, self)
        if refresh_working:
            self.refresh_orders(working_count, filled)

    def take_fills(self, fill_count):
        k = self.k
        handles = self.handles
        all_fills = self.ctx.fills
        pend = self.pending
        filled = set()
        for fid, oid, side, size, price, t, fee, pnl in self.bridge.fills(self.fill_count):
            order = handles.get(oid)
            f = Fill(fid, oid, SIDE_NAMES[side], size, price / k, t, fee / 100, pnl / 100, order)
            if order is not None:
                order.status = 'filled'
                order.fill_price = f.price
                order.fill_time = t
                if order.side is None:  # a close: now we know which way it went
                    order.side = f.side
                    order.size = size
                del handles[oid]
            filled.add(oid)
            all_fills.append(f)
            pend.append(f)
        self.fill_count = fill_count
        return filled

    def refresh_orders(self, working_count, filled):
        if not working_count and not self.working_ids and not self.handles:
            self.ctx.orders = _EMPTY  # the common case of market orders only: nothing to compare
            return
        if working_count:
            k = self.k
            rows = self.bridge.working()
            orders = tuple(WorkingOrder(oid, TYPE_NAMES[ty], SIDE_NAMES[side], size,
                                        None if lim is None else lim / k, None if stp is None else stp / k, parent)
                           for oid, ty, side, size, lim, stp, parent in rows)
        else:
            orders = _EMPTY
        ids = {o.id for o in orders}
        # Whatever was working (or just placed) and is gone without a fill was canceled.
        gone = (self.working_ids | self.handles.keys()) - ids
        if filled:
            gone -= filled
        if gone:
            t = self.series.ends[-1] if self.series.ends else None
            for oid in sorted(gone):
                order = self.handles.pop(oid, None)
                if order is not None:
                    order.status = 'canceled'
                self.pending.append(Cancellation(oid, order, t))
        self.working_ids = ids
        self.ctx.orders = orders

    def advance(self, k):
        self.sync(self.bridge.advance(k), False)

    def apply(self, k):
        """Sends the queued requests to the engine, in order, as acting right after bar k."""
        bridge = self.bridge
        q = self.queue[:]
        self.queue.clear()
        t = self.series.ends[-1]
        for kind, arg in q:
            if kind == _PLACE:
                o = arg
                oid, reason = bridge.place(k, o._type, o._side, o.size, o._limit, o._stop, o.stop_loss, o.take_profit)
                self.accepted(o, oid, reason, t)
            elif kind == _CANCEL:
                oid = arg if type(arg) is int else arg.id
                if oid:
                    bridge.cancel(k, oid)  # the outcome shows in the working orders
            elif kind == _CLOSE:
                oid, reason = bridge.close(k, arg.size or None)
                self.accepted(arg, oid, reason, t)
            else:  # _CANCEL_ALL, _FLATTEN
                for row in bridge.working():
                    bridge.cancel(k, row[0])
                if kind == _FLATTEN and bridge.state()[1]:
                    oid, reason = bridge.close(k, None)
                    if not oid:
                        self.pending.append(Rejection(None, reason, t))
        self.sync(bridge.state(), True)

    def accepted(self, order, oid, reason, t):
        if oid:
            order.id = oid
            order.status = 'working'
            self.handles[oid] = order
        else:
            order.status = 'rejected'
            order.reason = reason
            self.pending.append(Rejection(order, reason, t))

    # -- context timeframes --

    def stage_context(self, cx):
        for tf, cols in cx.items():
            p = self.context_pending.get(tf)
            if p is None:
                raise ValueError(f'batch has bars of context timeframe {tf!r}, which was not requested')
            at = p[7]
            for j, key in enumerate(('t', 'e', 'o', 'h', 'l', 'c', 'v')):
                col = p[j]
                del col[:at]  # drop what was already released
                col.extend(cols[key])
            p[7] = 0
        self.next_release = self.next_context_end()

    def next_context_end(self):
        ends = [p[1][p[7]] for p in self.context_pending.values() if p[7] < len(p[1])]
        return min(ends) if ends else NO_RELEASE

    def release_context(self, now):
        """Makes visible every context bar that ended by `now`; returns the next pending end."""
        k = self.k
        for tf, p in self.context_pending.items():
            s = self.context_series[tf]
            t, e, o, h, l, c, v, at = p
            n = len(e)
            while at < n and e[at] <= now:
                s._append(t[at], e[at], o[at], h[at], l[at], c[at], v[at], k)
                at += 1
            p[7] = at
        return self.next_context_end()

    # -- the bar loop --

    def check_batch(self, b):
        """Raises on a malformed batch: a bug in the glue, never reported as the strategy's error."""
        n = len(b['t'])
        if not all(len(b[key]) == n for key in ('e', 'o', 'h', 'l', 'c', 'v')):
            raise ValueError('batch columns differ in length')
        if b['base'] != len(self.series):
            raise ValueError(f'batch base {b["base"]} is not the next bar index {len(self.series)}')
        cx = b.get('ctx')
        if cx:
            self.stage_context(cx)

    def run_batch(self, b):
        ctx = self.ctx
        on_bar = self.on_bar
        on_fill = self.on_fill
        k = self.k
        s = self.series
        ao, ah, al, ac = s.opens.append, s.highs.append, s.lows.append, s.closes.append
        av, at, ae = s.volumes.append, s.times.append, s.ends.append
        B = Bar
        new = _new
        q = self.queue
        pend = self.pending  # the runtime appends events here; swapped for a new list once delivered
        had_events = bool(ctx.events)
        up = self.up
        down = self.down
        release = self.next_release
        idx = b['base']
        for ti, ei, oi, hi, li, ci, vi in zip(b['t'], b['e'], b['o'], b['h'], b['l'], b['c'], b['v']):
            if hi >= up or li <= down:
                self.advance(idx)
                up = self.up
                down = self.down
            of = oi / k
            hf = hi / k
            lf = li / k
            cf = ci / k
            ao(of)
            ah(hf)
            al(lf)
            ac(cf)
            av(vi)
            at(ti)
            ae(ei)
            if ei >= release:
                release = self.next_release = self.release_context(ei)
            bar = new(B)
            bar.open = of
            bar.high = hf
            bar.low = lf
            bar.close = cf
            bar.volume = vi
            bar.time = ti
            bar.end = ei
            bar.index = idx
            if pend:
                ctx.events = pend
                pend = self.pending = []
                had_events = True
                if on_fill is not None:
                    self.call_on_fill(ctx.events)
            elif had_events:
                ctx.events = _EMPTY
                had_events = False
            on_bar(ctx, bar)
            if q:
                self.apply(idx)
                up = self.up
                down = self.down
            idx += 1

    def call_on_fill(self, events):
        # Orders asked for here join the queue and go out after on_bar, in the order asked.
        on_fill = self.on_fill
        ctx = self.ctx
        for ev in events:
            if ev.kind == 'fill':
                on_fill(ctx, ev)


# ---- Error text ----

def _user_frames(tb):
    return [f for f in traceback.extract_tb(tb) if f.filename == FILENAME]


def _error_text(exc):
    try:
        if isinstance(exc, SyntaxError) and exc.filename == FILENAME:
            text = ''.join(traceback.format_exception_only(type(exc), exc))
        else:
            frames = _user_frames(exc.__traceback__)
            head = ''
            if frames:
                head = 'Traceback (most recent call last):\n' + ''.join(
                    traceback.StackSummary.from_list(frames).format())
            text = head + ''.join(traceback.format_exception_only(type(exc), exc))
    except MemoryError:
        text = f'{type(exc).__name__}\n'
    text = text.rstrip('\n')
    if len(text) > ERROR_CHARS_MAX:
        text = text[:ERROR_CHARS_MAX // 2] + '\n  ...\n' + text[-ERROR_CHARS_MAX // 2:]
    return text


# ---- The contract with the JS glue ----

_rt = None


def _fail(rt, exc):
    rt.error = _error_text(exc)
    rt.out.close_run()
    return rt.error


def start(code, params, meta, bridge):
    """Compiles and loads the strategy, then calls init(ctx). Returns None or an error text."""
    global _rt
    rt = _rt = _Runtime(params or {}, meta, bridge)
    rt.sync(bridge.state(), True)
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = _NO_INPUT, rt.out, rt.out
    try:
        # linecache lets tracebacks quote the user's source lines.
        linecache.cache[FILENAME] = (len(code), None, code.splitlines(True), FILENAME)
        compiled = compile(code, FILENAME, 'exec')
        module = types.ModuleType('strategy')
        module.__file__ = FILENAME
        module.__builtins__ = builtins
        sys.modules['strategy'] = module  # dataclasses and pickle look classes up here
        exec(compiled, module.__dict__)
        ns = module.__dict__
        on_bar = ns.get('on_bar')
        if on_bar is None:
            rt.error = 'strategy.py must define a function on_bar(ctx, bar)'
            rt.out.close_run()
            return rt.error
        for name in ('on_bar', 'init', 'on_fill', 'on_end'):
            fn = ns.get(name)
            if fn is not None and not callable(fn):
                rt.error = f'{name} must be a function, got {type(fn).__name__}'
                rt.out.close_run()
                return rt.error
        rt.on_bar = on_bar
        rt.on_fill = ns.get('on_fill')
        rt.on_end = ns.get('on_end')
        init = ns.get('init')
        if init is not None:
            init(rt.ctx)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # SystemExit included: exit() in user code ends the run as an error
        return _fail(rt, exc)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    return None


def run_batch(b):
    """Runs the strategy over one batch of consecutive bars. Returns None or an error text."""
    rt = _rt
    if rt.error is not None:
        return rt.error
    rt.check_batch(b)
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = _NO_INPUT, rt.out, rt.out
    try:
        rt.run_batch(b)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        return _fail(rt, exc)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    return None


def finish():
    """Calls on_end(ctx), applying its orders after the last bar. Returns None or an error text."""
    rt = _rt
    if rt.error is not None:
        return rt.error
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = _NO_INPUT, rt.out, rt.out
    try:
        ctx = rt.ctx
        if rt.pending:  # results of the last bar's orders
            ctx.events = rt.pending
            rt.pending = []
            if rt.on_fill is not None:
                rt.call_on_fill(ctx.events)
        else:
            ctx.events = _EMPTY
        if rt.on_end is not None:
            rt.on_end(ctx)
        if rt.queue:
            rt.apply(len(rt.series) - 1)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        return _fail(rt, exc)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        rt.finished = True
    rt.out.close_run()
    return None


def take_logs():
    """Drains the captured output lines (bounded over the run)."""
    return _rt.out.take() if _rt is not None else []
