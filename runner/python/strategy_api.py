"""What a playground strategy sees: bars, series, the position, order handles, fills and events,
and the `ctx` object with its order methods (docs/playground.md is the user's reference).

The runtime that drives a run through these values is harness.py; this module holds no state of
its own beyond the constants of the bridge's wire codes.
"""

import io
import math
import types
from array import array
from bisect import bisect_right
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
PRICE_TICKS_ABS_MAX = 1_000_000_000  # the engine refuses prices beyond this (coreLimits.priceTicksAbsMax)
BRACKET_TICKS_MAX = 1_000_000
TRAIL_TICKS_MAX = 1_000_000  # a trailing stop's distance (coreLimits.trailTicksMax)
ORDER_SIZE_MAX = 1000  # contracts an order (limits.orderSizeMax, the spec's): the server refuses more

# Wire codes of the bridge (src/engine/types.ts).
LIMIT, MARKET, STOP_LIMIT, STOP, TRAILING_STOP = 1, 2, 3, 4, 5
BUY, SELL = 0, 1
TYPE_NAMES = {LIMIT: 'limit', MARKET: 'market', STOP_LIMIT: 'stop_limit', STOP: 'stop', TRAILING_STOP: 'trailing_stop'}
SIDE_NAMES = ('buy', 'sell')

# Queued request kinds (_LEG: a request on another contract of the run, (leg, kind, arg)).
_PLACE, _CANCEL, _CANCEL_ALL, _CLOSE, _FLATTEN, _MODIFY, _LEG = range(7)
_MAIN_ONLY = 'main'  # cancel_all / flatten of the main contract only (None: every contract)

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


# Column order of a Series (and of the glue's batch buffers): four price columns ('d'), then three
# integer ones ('q').
_OPENS, _HIGHS, _LOWS, _CLOSES, _VOLUMES, _TIMES, _ENDS = range(7)
_TYPECODES = 'ddddqqq'

# ctx.history(n): the last n bars as one float list per field, in the column order above, for
# array-style work without numpy (the sandbox has none: docs/decisions.md).
History = namedtuple('History', ('open', 'high', 'low', 'close', 'volume', 'time', 'end'))


class Series:
    """Closed bars of one timeframe, oldest first: a sequence of Bar plus typed columns.

    Columns are arrays that grow by one element per bar, so ``closes[-20:]`` is a cheap copy.
    Bars are built from the columns on access; ``series[-1]`` is the latest bar.

    Lazy columns: the run's bars arrive a batch at a time (``_feed``), and the bar loop only moves
    the visible count ``_n``. A column array catches up with ``_n`` when the strategy reads it, and
    from then on the loop keeps it current bar by bar (``_eager``), so a reference the strategy
    holds on to grows exactly as before. Columns nobody reads cost nothing per bar, and nothing per
    batch either: the batches they would be built from are kept as they came (``_chunks``), not
    copied into growing arrays (in a fresh sandbox that copying cost more than half a second per
    million bars, most of it first touching the memory its reallocations moved through).

    Column i's array holds bars [0, len(cols[i])); the later ones, up to ``_n``, are in the kept
    batches and the current one.
    """

    __slots__ = ('timeframe', '_cols', '_src', '_base', '_n', '_read', '_eager', '_chunks', '_starts')

    def __init__(self, timeframe):
        self.timeframe = timeframe
        self._cols = tuple(array(tc) for tc in _TYPECODES)
        self._src = None  # the current batch's columns (same typecodes), bar _base first
        self._base = 0
        self._n = 0  # bars visible to the strategy
        self._read = [False] * 7  # columns the strategy has read (kept current by the loop)
        self._eager = []  # (append, source column) of read columns, for the bar loop
        self._chunks = []  # earlier batches' columns, oldest first, while some column is unread
        self._starts = []  # their first bar indices

    def _col(self, i):
        a = self._cols[i]
        n = self._n
        if len(a) != n:
            # Catch up from the kept batches, then the current one.
            k = max(bisect_right(self._starts, len(a)) - 1, 0)
            while k < len(self._chunks) and len(a) < n:
                b = self._starts[k]
                a.extend(self._chunks[k][i][len(a) - b:n - b])
                k += 1
            if len(a) < n:
                b = self._base
                a.extend(self._src[i][len(a) - b:n - b])
        if not self._read[i]:
            self._read[i] = True
            if self._src is not None:
                self._eager.append((a.append, self._src[i]))
            if all(self._read):
                self._chunks.clear()
                self._starts.clear()
        return a

    def _feed(self, base, src):
        """A new batch of bars from `base` on: the old one is kept while some column is unread."""
        old = self._src
        if old is not None and not all(self._read):
            self._chunks.append(old)
            self._starts.append(self._base)
        self._src = src
        self._base = base
        self._eager[:] = [(a.append, src[i]) for i, a in enumerate(self._cols) if self._read[i]]

    def _at(self, i, j):
        """Column i at bar j (0 <= j < _n)."""
        b = self._base
        if self._src is not None and j >= b:
            return self._src[i][j - b]
        a = self._cols[i]
        if j < len(a):
            return a[j]
        k = bisect_right(self._starts, j) - 1
        return self._chunks[k][i][j - self._starts[k]]

    def _last(self, i):
        """Column i's value at the latest bar (None before the first), without syncing the column."""
        n = self._n
        return self._at(i, n - 1) if n else None

    opens = property(lambda self: self._col(_OPENS))
    highs = property(lambda self: self._col(_HIGHS))
    lows = property(lambda self: self._col(_LOWS))
    closes = property(lambda self: self._col(_CLOSES))
    volumes = property(lambda self: self._col(_VOLUMES))
    times = property(lambda self: self._col(_TIMES))
    ends = property(lambda self: self._col(_ENDS))

    def history(self, n):
        """The last `n` bars (fewer at the start) as columns: a History of float lists, oldest first."""
        if type(n) is not int or n < 1:
            raise ValueError(f'history needs a whole number of bars >= 1, got {n!r}')
        k = min(n, self._n)
        if k == 0:
            return History(*([] for _ in _TYPECODES))
        return History(*(list(map(float, self._col(i)[-k:])) for i in range(len(_TYPECODES))))

    def __len__(self):
        return self._n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self._bar(j) for j in range(*i.indices(self._n))]
        n = self._n
        j = i + n if i < 0 else i
        if not 0 <= j < n:
            raise IndexError(f'bar index {i} out of range ({n} bars)')
        return self._bar(j)

    def __iter__(self):
        return (self._bar(j) for j in range(self._n))

    def __repr__(self):
        return f'<Series {self.timeframe}: {self._n} bars>'

    def _bar(self, j):
        src = self._src
        if src is not None and j >= self._base:
            i = j - self._base
            return Bar(src[0][i], src[1][i], src[2][i], src[3][i], src[4][i], src[5][i], src[6][i], j)
        at = self._at
        return Bar(at(0, j), at(1, j), at(2, j), at(3, j), at(4, j), at(5, j), at(6, j), j)

    def _append(self, t, e, o, h, l, c, v, k):
        """One bar, at once (context timeframes: they have no batch source)."""
        cols = self._cols
        cols[0].append(o / k)
        cols[1].append(h / k)
        cols[2].append(l / k)
        cols[3].append(c / k)
        cols[4].append(v)
        cols[5].append(t)
        cols[6].append(e)
        self._n += 1


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
        last = rt.series._last(_CLOSES)
        if not self.qty or last is None:
            return 0.0
        last_ticks = round(last * rt.k)  # exact: prices are ticks / k
        return (last_ticks * self.qty - self._cost_ticks) * rt.tick_value_cents / 100

    def __repr__(self):
        return f'Position(qty={self.qty}, avg_price={self.avg_price}, open_pnl={self.open_pnl})'


class Order:
    """Handle of an order the strategy requested; the runtime updates it as the order progresses.

    status: 'pending' (queued, not yet sent) -> 'working' -> 'filled' | 'canceled', or 'rejected'
    (with ``reason``). ``id`` is None until the order reaches the engine. ``trail`` is a trailing
    stop's distance in ticks, or an entry's trailing stop-loss's (then ``stop_loss`` is None).
    """

    __slots__ = ('id', 'type', 'side', 'size', 'limit_price', 'stop_price', 'stop_loss', 'take_profit', 'trail',
                 'status', 'reason', 'fill_price', 'fill_time', 'symbol', '_type', '_side', '_limit', '_stop')

    def __init__(self, type_code, side_code, size, limit_ticks, stop_ticks, sl, tp, k, trail=None, symbol=None):
        self.id = None
        self.symbol = symbol
        self.type = TYPE_NAMES[type_code]
        self.side = SIDE_NAMES[side_code]
        self.size = size
        self.limit_price = None if limit_ticks is None else limit_ticks / k
        self.stop_price = None if stop_ticks is None else stop_ticks / k
        self.stop_loss = sl
        self.take_profit = tp
        self.trail = trail
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
                                                              'take_profit', 'trail', 'reason', 'fill_price')
                        if getattr(self, f) is not None)
        return f'Order(id={self.id}, {self.side} {self.size} {self.type}, status={self.status}{extra})'


WorkingOrder = namedtuple('WorkingOrder', 'id type side size limit_price stop_price parent_id symbol', defaults=(None,))
WorkingOrder.__doc__ = ('A working order in the engine (parent_id is the entry order id for bracket legs; symbol is set on '
                        'the other contracts of a run over several instruments, None on the main one).')


class Fill:
    """An execution. fee and pnl (realized on the reduced part) are USD; order is the handle or None."""

    __slots__ = ('id', 'order_id', 'side', 'size', 'price', 'time', 'fee', 'pnl', 'order', 'symbol')
    kind = 'fill'

    def __init__(self, fid, order_id, side, size, price, time, fee, pnl, order, symbol=None):
        self.symbol = symbol
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

    __slots__ = ('order', 'reason', 'time', 'symbol')
    kind = 'rejected'

    def __init__(self, order, reason, time, symbol=None):
        self.symbol = symbol if order is None else order.symbol
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

    __slots__ = ('order_id', 'order', 'time', 'symbol')
    kind = 'canceled'

    def __init__(self, order_id, order, time, symbol=None):
        self.symbol = symbol
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
        self.bars = rt.series
        self.position = Position(0, 0, rt)
        self.balance = self.starting_balance
        self.orders = _EMPTY
        self.events = _EMPTY
        self.fills = []
        # Every instrument of the run by symbol, the main one first (one entry for a run of one instrument).
        self.data = _DataMap((d.symbol, d) for d in
                             [InstrumentData(self, None, self.symbol, self.tick_size, self.tick_value, rt.k)]
                             + [InstrumentData(self, leg, leg.symbol, leg.tick_size, leg.tick_value, leg.k) for leg in rt.legs])

    # History columns of the run's bars, read through the series (lazy: strategy_api.Series).
    opens = property(lambda self: self.bars._col(_OPENS))
    highs = property(lambda self: self.bars._col(_HIGHS))
    lows = property(lambda self: self.bars._col(_LOWS))
    closes = property(lambda self: self.bars._col(_CLOSES))
    volumes = property(lambda self: self.bars._col(_VOLUMES))
    times = property(lambda self: self.bars._col(_TIMES))

    @property
    def equity(self):
        """Balance plus the open P&L at the current bar's close (each contract's own last close), USD."""
        eq = self.balance + self.position.open_pnl
        for leg in self._rt.legs:
            eq += leg.position.open_pnl
        return eq

    @property
    def positions(self):
        """Every contract's position by symbol (the main one's is ctx.position)."""
        return {d.symbol: d.position for d in self.data.values()}

    def history(self, n, timeframe=None):
        """The last `n` bars of the run (or of a context timeframe) as columns of floats, oldest first."""
        return (self.bars if timeframe is None else self.context(timeframe)).history(n)

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
    # `trail` on an entry makes its stop-loss a trailing stop, `trail` ticks behind the best price
    # since the fill (instead of `stop_loss`); buy_trailing_stop / sell_trailing_stop place one.

    def buy(self, size=1, stop_loss=None, take_profit=None, trail=None, symbol=None):
        if stop_loss is None and take_profit is None and trail is None and symbol is None:
            return self._market(BUY, size)
        return self._place(MARKET, BUY, size, None, None, stop_loss, take_profit, trail, symbol)

    def sell(self, size=1, stop_loss=None, take_profit=None, trail=None, symbol=None):
        if stop_loss is None and take_profit is None and trail is None and symbol is None:
            return self._market(SELL, size)
        return self._place(MARKET, SELL, size, None, None, stop_loss, take_profit, trail, symbol)

    def buy_limit(self, price, size=1, stop_loss=None, take_profit=None, trail=None, symbol=None):
        return self._place(LIMIT, BUY, size, price, None, stop_loss, take_profit, trail, symbol)

    def sell_limit(self, price, size=1, stop_loss=None, take_profit=None, trail=None, symbol=None):
        return self._place(LIMIT, SELL, size, price, None, stop_loss, take_profit, trail, symbol)

    def buy_stop(self, price, size=1, stop_loss=None, take_profit=None, trail=None, symbol=None):
        return self._place(STOP, BUY, size, None, price, stop_loss, take_profit, trail, symbol)

    def sell_stop(self, price, size=1, stop_loss=None, take_profit=None, trail=None, symbol=None):
        return self._place(STOP, SELL, size, None, price, stop_loss, take_profit, trail, symbol)

    def buy_stop_limit(self, stop, limit, size=1, stop_loss=None, take_profit=None, trail=None, symbol=None):
        return self._place(STOP_LIMIT, BUY, size, limit, stop, stop_loss, take_profit, trail, symbol)

    def sell_stop_limit(self, stop, limit, size=1, stop_loss=None, take_profit=None, trail=None, symbol=None):
        return self._place(STOP_LIMIT, SELL, size, limit, stop, stop_loss, take_profit, trail, symbol)

    def buy_trailing_stop(self, trail, size=1, stop_loss=None, take_profit=None, symbol=None):
        """A buy stop `trail` ticks above the lowest price since it was placed (it follows it down)."""
        return self._place_trailing(BUY, trail, size, stop_loss, take_profit, symbol)

    def sell_trailing_stop(self, trail, size=1, stop_loss=None, take_profit=None, symbol=None):
        """A sell stop `trail` ticks below the highest price since it was placed (it follows it up)."""
        return self._place_trailing(SELL, trail, size, stop_loss, take_profit, symbol)

    def modify(self, order, size=None, limit=None, stop=None, trail=None, symbol=None):
        """Changes a working order (a handle, a WorkingOrder or an id): its size, limit or stop price,
        or a trailing stop's trail (ticks); None keeps a value. No effect if it is no longer working;
        a change the engine refuses comes back as a "rejected" event."""
        if not isinstance(order, (Order, WorkingOrder)) and type(order) is not int:
            raise TypeError(f'modify() takes an order or an order id, got {type(order).__name__}')
        leg = self._target(order, symbol)
        k = self._rt.k if leg is None else leg.k
        change = (order, None if size is None else _size(size),
                  None if limit is None else _ticks(limit, k, 'limit price'),
                  None if stop is None else _ticks(stop, k, 'stop price'),
                  _trail(trail, 'trail'))
        self._send(leg, _MODIFY, change)

    def cancel(self, order, symbol=None):
        """Cancels a working order (an Order handle, a WorkingOrder or an id). No effect if it is not working."""
        if not isinstance(order, (Order, WorkingOrder)) and type(order) is not int:
            raise TypeError(f'cancel() takes an order or an order id, got {type(order).__name__}')
        self._send(self._target(order, symbol), _CANCEL, order)

    def cancel_all(self, symbol=None):
        """Cancels every working order, bracket legs included (of `symbol` only, when given)."""
        self._whole(_CANCEL_ALL, symbol)

    def close(self, size=None, symbol=None):
        """Closes `size` contracts of the position at market (None = all). Returns the order handle."""
        rt = self._rt
        leg = rt.leg(symbol)
        if size is not None:
            size = _size(size)
        order = Order(MARKET, BUY, size or 0, None, None, None, None, rt.k if leg is None else leg.k,
                      symbol=self.symbol if leg is None else leg.symbol)
        order.side = None  # decided by the engine: the side that reduces the position
        self._send(leg, _CLOSE, order)
        return order

    def flatten(self, symbol=None):
        """Cancels every working order, then closes the whole position at market (of `symbol` only, when given)."""
        self._whole(_FLATTEN, symbol)

    def _place(self, type_code, side, size, limit, stop, stop_loss, take_profit, trail=None, symbol=None):
        rt = self._rt
        leg = rt.leg(symbol)
        k = rt.k if leg is None else leg.k
        if stop_loss is not None and trail is not None:
            raise ValueError('give stop_loss or trail (a trailing stop-loss), not both')
        order = Order(type_code, side, _size(size),
                      None if limit is None else _ticks(limit, k, 'limit price'),
                      None if stop is None else _ticks(stop, k, 'stop price'),
                      _bracket(stop_loss, 'stop_loss'), _bracket(take_profit, 'take_profit'), k, _trail(trail, 'trail'),
                      self.symbol if leg is None else leg.symbol)
        self._send(leg, _PLACE, order)
        return order

    def _market(self, side, size):
        # buy() / sell() of the main contract without brackets, the commonest request: _place's
        # checks, in its order, and the same handle, in fewer calls (docs/playground.md, "Where the time goes").
        if type(size) is not int or size < 1 or size > ORDER_SIZE_MAX:
            _size(size)  # raises
        rt = self._rt
        order = Order(MARKET, side, size, None, None, None, None, rt.k, None, self.symbol)
        rt.request(_PLACE, order)
        return order

    def _place_trailing(self, side, trail, size, stop_loss, take_profit, symbol=None):
        ticks = _trail(trail, 'trail')
        if ticks is None:
            raise ValueError('a trailing stop needs its trail, a distance in ticks (a number >= 1)')
        leg = self._rt.leg(symbol)
        order = Order(TRAILING_STOP, side, _size(size), None, None, _bracket(stop_loss, 'stop_loss'),
                      _bracket(take_profit, 'take_profit'), self._rt.k if leg is None else leg.k, ticks,
                      self.symbol if leg is None else leg.symbol)
        self._send(leg, _PLACE, order)
        return order

    # -- several instruments: which contract a request is for --

    def _target(self, order, symbol):
        """The contract of an order (its handle's or working row's symbol), else of `symbol` (None: the main one)."""
        own = getattr(order, 'symbol', None)
        return self._rt.leg(own if own is not None else symbol)

    def _send(self, leg, kind, arg):
        if leg is None:
            self._rt.request(kind, arg)
        else:
            self._rt.request_leg(leg, kind, arg)

    def _whole(self, kind, symbol):
        # None: every contract of the run; the main one's symbol: that one only.
        leg = self._rt.leg(symbol)
        if leg is not None:
            self._rt.request_leg(leg, kind, None)
        else:
            self._rt.request(kind, None if symbol is None else _MAIN_ONLY)

    # -- logs --

    def log(self, *args, sep=' '):
        """Writes one line to the run's logs, prefixed with the current bar's open time (UTC)."""
        t = self._rt.series._last(_TIMES)
        stamp = 'init' if t is None else datetime.fromtimestamp(t, _utc).strftime('%Y-%m-%d %H:%M:%S')
        self._rt.out.write(f'[{stamp}] {sep.join(map(str, args))}\n')


def _size(size):
    if type(size) is not int or size < 1:
        raise ValueError(f'order size must be an integer >= 1, got {size!r}')
    if size > ORDER_SIZE_MAX:
        raise ValueError(f'order size must be at most {ORDER_SIZE_MAX} contracts, got {size}')
    return size


def _ticks(price, k, what):
    if isinstance(price, bool) or not isinstance(price, (int, float)) or not math.isfinite(price):
        raise ValueError(f'{what} must be a finite number, got {price!r}')
    ticks = round(price * k)  # nearest tick; exact halves round to the even tick
    if abs(ticks) > PRICE_TICKS_ABS_MAX:
        raise ValueError(f'{what} {price!r} is out of range')
    return ticks


def _trail(ticks, what):
    if ticks is None:
        return None
    if isinstance(ticks, bool) or not isinstance(ticks, (int, float)) or not math.isfinite(ticks):
        raise ValueError(f'{what} must be a distance in ticks (a number >= 1), got {ticks!r}')
    n = round(ticks)  # whole ticks
    if n < 1 or n > TRAIL_TICKS_MAX:
        raise ValueError(f'{what} must be between 1 and {TRAIL_TICKS_MAX} ticks, got {ticks!r}')
    return n


def _bracket(ticks, what):
    if ticks is None:
        return None
    if isinstance(ticks, bool) or not isinstance(ticks, (int, float)) or not math.isfinite(ticks):
        raise ValueError(f'{what} must be a distance in ticks (a number >= 1), got {ticks!r}')
    n = round(ticks)  # whole ticks
    if n < 1 or n > BRACKET_TICKS_MAX:
        raise ValueError(f'{what} must be between 1 and {BRACKET_TICKS_MAX} ticks, got {ticks!r}')
    return n


# ---- Several instruments: ctx.data ----

class _DataMap(dict):
    """ctx.data: the run's instruments by symbol; an unknown symbol says which there are."""

    def __missing__(self, symbol):
        raise KeyError(f'{symbol!r} is not an instrument of this run (its instruments: {", ".join(self)}); '
                       'name them in the run\'s instrumentSymbols')


class InstrumentData:
    """One instrument of the run on the run's clock (ctx.data["ES"]): its closed bars, its contract's
    position, working orders and fills. A bar is visible once it has closed by the clock (the end of
    the main instrument's current bar); later bars never are."""

    def __init__(self, ctx, leg, symbol, tick_size, tick_value, k):
        self._ctx = ctx
        self._leg = leg  # None for the main instrument
        self.symbol = symbol
        self.tick_size = tick_size
        self.tick_value = tick_value
        self.ticks_per_unit = k

    @property
    def bars(self):
        """Its closed bars, oldest first (a Series: columns, slicing, len)."""
        return self._ctx.bars if self._leg is None else self._leg.series

    @property
    def bar(self):
        """Its latest visible bar, or None before its first."""
        s = self.bars
        return s[-1] if len(s) else None

    def history(self, n):
        """Its last `n` visible bars (fewer at the start), oldest first."""
        if type(n) is not int or n < 1:
            raise ValueError(f'history(n) takes a whole number of bars >= 1, got {n!r}')
        s = self.bars
        return s[max(0, len(s) - n):]

    open = property(lambda self: self._last(_OPENS))
    high = property(lambda self: self._last(_HIGHS))
    low = property(lambda self: self._last(_LOWS))
    close = property(lambda self: self._last(_CLOSES))
    volume = property(lambda self: self._last(_VOLUMES))
    time = property(lambda self: self._last(_TIMES))
    end = property(lambda self: self._last(_ENDS))
    opens = property(lambda self: self.bars._col(_OPENS))
    highs = property(lambda self: self.bars._col(_HIGHS))
    lows = property(lambda self: self.bars._col(_LOWS))
    closes = property(lambda self: self.bars._col(_CLOSES))
    volumes = property(lambda self: self.bars._col(_VOLUMES))
    times = property(lambda self: self.bars._col(_TIMES))

    def _last(self, i):
        return self.bars._last(i)

    @property
    def position(self):
        return self._ctx.position if self._leg is None else self._leg.position

    @property
    def orders(self):
        return self._ctx.orders if self._leg is None else self._leg.orders

    @property
    def fills(self):
        """This contract's fills so far, oldest first."""
        return [f for f in self._ctx.fills if f.symbol == self.symbol]

    def to_ticks(self, price):
        return _ticks(price, self.ticks_per_unit, 'price')

    def round_price(self, price):
        k = self.ticks_per_unit
        return _ticks(price, k, 'price') / k

    def __repr__(self):
        return f'<InstrumentData {self.symbol}: {len(self.bars)} bars, position {self.position.qty}>'
