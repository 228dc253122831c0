"""The playground's strategy runtime: runs one user strategy over a backtest, inside Pyodide.

The child's JS glue drives it through four calls, in this order (docs/playground.md has the user's
side of the API; the bridge is runner/child/bridge.ts):

    start(code, params, meta, bridge) -> error text or None   compile, on_bar check, init(ctx)
    run_columns(base, src, ctx) -> error text or None         repeatedly, consecutive bars
                                                              (run_batch(b): the same from int columns)
    finish() -> error text or None                            on_end(ctx)
    take_logs() -> list[str]                                  after every call above

Model:
- Bars arrive in batches of columns (prices in units, ticks / k). For each bar k, in order: (a) if
  the bar's range reaches a trigger of the last engine state (high >= up or low <= down, compared as
  ticks / k: exact and order-keeping for any price the engine accepts), the bridge
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

Speed: a batch arrives as seven typed columns (prices already in units), taken from the JS glue
with one copy per buffer. Per bar the hot path is two float compares, one count, one Bar object
(built without __init__) and the callback. History columns are lazy (strategy_api.Series): only the
columns the strategy has read are appended to per bar. No dict, list or datetime is made per bar and
the bridge is called only on bars that can fill or after the strategy asked for something.
"""

import builtins
import io
import linecache
import sys
import traceback
import types
from array import array

from strategy_api import (  # noqa: F401 (re-exported for the glue and the tests)
    Bar,
    Cancellation,
    Context,
    ERROR_CHARS_MAX,
    FILENAME,
    Fill,
    LOG_BYTES_MAX,
    LOG_LINES_MAX,
    MARKET,
    NO_DOWN_TRIGGER,
    NO_RELEASE,
    NO_UP_TRIGGER,
    Order,
    Position,
    REQUESTS_PER_CALL_MAX,
    Rejection,
    SIDE_NAMES,
    Series,
    TRAILING_STOP,
    TYPE_NAMES,
    WorkingOrder,
    _CANCEL,
    _CANCEL_ALL,
    _CLOSE,
    _ENDS,
    _EMPTY,
    _FLATTEN,
    _LEG,
    _MAIN_ONLY,
    _MODIFY,
    _NO_INPUT,
    _PLACE,
    _TIMES,
    _TYPECODES,
    _new,
)
from legs import Leg, order_args


# ---- Output capture ----

# Where kept lines go at once when set (the runner child sends each as its own frame), so the output
# printed before a sandbox dies (a refused permission, out of memory, a broken protocol) is already
# with the server. Called as fn(line, bar_time): the open time (epoch s) of the bar the strategy was
# on when the line ended, None before the first bar (init). Unset (tests, snapshot build): lines wait
# for take_logs().
_emit = None


def set_emit(fn):
    global _emit
    _emit = fn


class _Output(io.TextIOBase):
    """sys.stdout / sys.stderr while user code runs: whole lines, bounded over the run."""

    def __init__(self, series=None):
        self._series = series  # the run's bars: the latest one's open time stamps each line
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
        if _emit is not None:
            _emit(line, None if self._series is None else self._series._last(_TIMES))
        else:
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
        self.out = _Output(self.series)
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
        # The run's other instruments (several instruments; legs.py), in its order after the main one.
        self.starting_cents = round(float(meta['starting_balance']) * 100)
        self.legs = tuple(Leg(self, i + 1, m, meta['timeframe'], self.starting_cents) for i, m in enumerate(meta.get('legs') or ()))
        self.leg_of = {leg.symbol: leg for leg in self.legs}
        self.ctx = Context(self, params, meta)

    def request(self, kind, arg):
        if not self.series._n:
            raise RuntimeError('orders can be placed from on_bar (or on_fill / on_end) only: there is no price yet')
        if self.finished:
            raise RuntimeError('the run has ended: no more orders')
        q = self.queue
        if len(q) >= REQUESTS_PER_CALL_MAX:
            raise RuntimeError(f'too many order requests in one bar (limit {REQUESTS_PER_CALL_MAX})')
        q.append((kind, arg))

    # -- several instruments --

    def leg(self, symbol):
        """The other contract named `symbol`, or None for the main one (None or its own symbol)."""
        if symbol is None or symbol == self.ctx.symbol:
            return None
        leg = self.leg_of.get(symbol)
        if leg is None:
            have = ', '.join([self.ctx.symbol, *self.leg_of])
            raise ValueError(f'{symbol!r} is not an instrument of this run (its instruments: {have}); name it in instrumentSymbols')
        return leg

    def request_leg(self, leg, kind, arg):
        if (kind == _PLACE or kind == _CLOSE) and not len(leg.series):
            raise RuntimeError(f'no {leg.symbol} bar has closed yet: its orders can be placed from its first bar on')
        self.request(_LEG, (leg, kind, arg))

    def account_balance(self):
        """USD: the starting balance plus every contract's realized P&L less fees."""
        start = self.starting_cents
        return (self.balance_cents + sum(leg.balance_cents - start for leg in self.legs)) / 100

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
            self.ctx.balance = bal / 100 if not self.legs else self.account_balance()
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
            f = Fill(fid, oid, SIDE_NAMES[side], size, price / k, t, fee / 100, pnl / 100, order, self.ctx.symbol)
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
            t = self.series._last(_ENDS)
            for oid in sorted(gone):
                order = self.handles.pop(oid, None)
                if order is not None:
                    order.status = 'canceled'
                self.pending.append(Cancellation(oid, order, t, self.ctx.symbol))
        self.working_ids = ids
        self.ctx.orders = orders

    def advance(self, k):
        self.sync(self.bridge.advance(k), False)

    def apply(self, k):
        """Sends the queued requests to the engine, in order, as acting right after bar k."""
        bridge = self.bridge
        q = self.queue
        if len(q) == 1 and not self.legs:
            kind, o = q[0]
            if kind == _PLACE and o._type == MARKET and o.stop_loss is None and o.take_profit is None and o.trail is None:
                # The commonest request, one plain market order of the main contract: what the loop
                # below does for it, with fewer calls.
                q.clear()
                oid, reason = bridge.place(k, MARKET, o._side, o.size, None, None, None, None, None, None)
                self.accepted(o, oid, reason)
                self.sync(bridge.state(), True)
                return
        q = self.queue[:]
        self.queue.clear()
        for kind, arg in q:
            if kind == _PLACE:
                self.place(k, arg)
            elif kind == _MODIFY:
                self.modify(k, arg)
            elif kind == _CANCEL:
                oid = arg if type(arg) is int else arg.id
                if oid:
                    bridge.cancel(k, oid)  # the outcome shows in the working orders
            elif kind == _CLOSE:
                oid, reason = bridge.close(k, arg.size or None)
                self.accepted(arg, oid, reason)
            elif kind == _LEG:
                leg, leg_kind, leg_arg = arg
                leg.apply(k, leg_kind, leg_arg)
            else:  # _CANCEL_ALL, _FLATTEN: every contract's (arg None), or the main one's (_MAIN_ONLY)
                for row in bridge.working():
                    bridge.cancel(k, row[0])
                if kind == _FLATTEN and bridge.state()[1]:
                    oid, reason = bridge.close(k, None)
                    if not oid:
                        self.pending.append(Rejection(None, reason, self.series._last(_ENDS), self.ctx.symbol))
                if arg is not _MAIN_ONLY:
                    for leg in self.legs:
                        leg.apply(k, kind, None)
        self.sync(bridge.state(), True)
        for leg in self.legs:
            leg.sync(leg.state(), True)

    def place(self, k, o):
        trail, sl, sl_type = order_args(o)
        oid, reason = self.bridge.place(k, o._type, o._side, o.size, o._limit, o._stop, sl, o.take_profit, trail, sl_type)
        self.accepted(o, oid, reason)

    def modify(self, k, change):
        target, size, limit, stop, trail = change
        oid = target if type(target) is int else target.id
        if not oid:
            return
        reason = self.bridge.modify(k, oid, size, limit, stop, trail)
        handle = self.handles.get(oid)
        if reason == '':
            if handle is not None:  # the handle shows what the order now is
                rk = self.k
                if size is not None:
                    handle.size = size
                if limit is not None:
                    handle.limit_price = limit / rk
                if stop is not None:
                    handle.stop_price = stop / rk
                if trail is not None:
                    handle.trail = trail
        elif reason != 'order_not_found':
            self.pending.append(Rejection(handle, reason, self.series._last(_ENDS)))

    def accepted(self, order, oid, reason):
        if oid:
            order.id = oid
            order.status = 'working'
            self.handles[oid] = order
        else:
            order.status = 'rejected'
            order.reason = reason
            self.pending.append(Rejection(order, reason, self.series._last(_ENDS)))

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
        cx = b.get('ctx')
        if cx:
            self.stage_context(cx)

    def columns_of(self, b):
        """A batch's integer columns (prices in ticks: the tests' form) as Series columns."""
        k = self.k
        src = tuple(array('d', [x / k for x in b[key]]) for key in 'ohlc')
        return src + tuple(array('q', b[key]) for key in 'vte')

    def check_columns(self, base, src):
        """Raises on malformed columns or a gap: a bug in the glue, never the strategy's error."""
        n = len(src[0])
        if len(src) != 7 or not all(len(c) == n and c.typecode == tc for c, tc in zip(src, _TYPECODES)):
            raise ValueError('batch columns differ in length or type')
        if base != len(self.series):
            raise ValueError(f'batch base {base} is not the next bar index {len(self.series)}')

    def stage_legs(self, legs):
        if len(legs) != len(self.legs):
            raise ValueError(f'batch has bars of {len(legs)} other instruments, the run has {len(self.legs)}')
        for leg, cols in zip(self.legs, legs):
            leg.stage(cols)

    def run_columns(self, base, src):
        self.series._feed(base, src)
        self.bar_loop(base, src)

    def bar_loop(self, base, src):
        # Per bar, on the hot path: two float compares (ticks / k is exact and keeps the order),
        # the visible count, one Bar built without __init__, the callback. History columns the
        # strategy reads are kept current through `eager` (strategy_api.Series).
        ctx = self.ctx
        on_bar = self.on_bar
        on_fill = self.on_fill
        k = self.k
        s = self.series
        eager = s._eager
        B = Bar
        new = _new
        q = self.queue
        pend = self.pending  # the runtime appends events here; swapped for a new list once delivered
        had_events = bool(ctx.events)
        up = self.up / k
        down = self.down / k
        release = self.next_release
        # Without context timeframes there is nothing to release: skip the compare of an int end
        # time with the float infinity, which takes CPython's slow mixed-type path (~7% of an empty
        # run's loop in Pyodide).
        timed = bool(self.context_pending)
        legs = self.legs  # several instruments: the other contracts' bars that closed by this bar's end
        idx = base
        for of, hf, lf, cf, vi, ti, ei in zip(*src):
            # The bar walker's quiet-bar rule (src/engine/walker.ts), kept here because it must run
            # inside the sandbox: the strategy acts between bars, so the walk cannot run ahead of it in
            # JS, and a call across Pyodide's bridge per bar would cost more than the bar's callback.
            if hf >= up or lf <= down:
                self.advance(idx)
                up = self.up / k
                down = self.down / k
            if legs:
                for leg in legs:
                    leg.release(idx, ei)
            n = idx + 1  # one new int a bar: it becomes the next bar's idx
            s._n = n
            if eager:
                j = idx - base
                for append, col in eager:
                    append(col[j])
            if timed and ei >= release:
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
                up = self.up / k
                down = self.down / k
            idx = n

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


def _guarded(run, *args):
    rt = _rt
    if rt.error is not None:
        return rt.error
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = _NO_INPUT, rt.out, rt.out
    try:
        run(*args)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        return _fail(rt, exc)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    return None


def run_batch(b):
    """Runs the strategy over one batch of consecutive bars (a dict of integer columns, prices in
    ticks, and `ctx`: context bars by timeframe). Returns None or an error text."""
    rt = _rt
    if rt.error is not None:
        return rt.error
    rt.check_batch(b)
    src = rt.columns_of(b)
    rt.check_columns(b['base'], src)
    return _guarded(rt.run_columns, b['base'], src)


def run_columns(base, src, ctx=None, legs=None):
    """The glue's run_batch: bars from `base` on as Series columns (four 'd' price columns in
    units, then volume, time and end as 'q'), `ctx` as in run_batch, `legs` the other instruments'
    bars of the batch (a run over several instruments: a dict of int columns each, in the run's
    order). Returns None or an error text."""
    rt = _rt
    if rt.error is not None:
        return rt.error
    if ctx:
        rt.stage_context(ctx)
    if legs is not None:
        rt.stage_legs(legs)
    rt.check_columns(base, src)
    return _guarded(rt.run_columns, base, src)


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
