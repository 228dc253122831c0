"""The other contracts of a run over several instruments (docs/playground.md, "Several instruments").

The main instrument's bars drive the run (harness.py); each other instrument (a leg) has its own
engine in the child (runner/child/leg-bridge.ts) and its state here, kept as the runtime keeps the
main contract's: balance, position, triggers, fills, working orders and order handles.

Model, per main bar k (after the main contract's own fills, before the strategy's callbacks):
- The leg's bars that closed by the clock (k's end) join its series, in order. A leg bar opening in
  the main instrument's bar, or in a gap before it, is visible at k; a later one never is.
- If one of them reaches the leg's triggers (high >= up or low <= down, in ticks), the bridge walks
  the leg's stored bars from the clock before k to k's end through its engine, and new fills become
  events. Otherwise nothing is called: a quiet leg costs a compare a bar.
- Orders on the leg asked for in the callbacks go to its engine after them, in the order asked, as
  acting right after bar k: a market order fills at the leg's last visible close.
The account is one: the strategy sees one balance (the starting balance plus every contract's
realized P&L less fees); each contract's engine checks its orders' margin against its own balance.
"""

from strategy_api import (
    Cancellation,
    Fill,
    NO_DOWN_TRIGGER,
    NO_UP_TRIGGER,
    Position,
    Rejection,
    SIDE_NAMES,
    Series,
    TRAILING_STOP,
    TYPE_NAMES,
    WorkingOrder,
    _CANCEL,
    _CLOSE,
    _EMPTY,
    _ENDS,
    _FLATTEN,
    _MODIFY,
    _PLACE,
)


class JsLegs:
    """The child's engines of the other contracts (runner/child/leg-bridge.ts) as Python calls: answers
    cross as JS arrays, made Python values here (`to_py`). Tests give the runtime any object with these
    methods."""

    __slots__ = ('_js',)

    def __init__(self, js):
        self._js = js

    def advance(self, i, k):
        return tuple(self._js.legAdvance(i, k).to_py())

    def state(self, i):
        return tuple(self._js.legState(i).to_py())

    def place(self, i, k, ty, side, size, lim, stp, sl, tp, trail, sl_type):
        r = self._js.legPlace(i, k, ty, side, size, lim, stp, sl, tp, trail, sl_type).to_py()
        return (r[0], r[1])

    def modify(self, i, k, oid, size, lim, stp, trail):
        return self._js.legModify(i, k, oid, size, lim, stp, trail)

    def cancel(self, i, k, oid):
        return bool(self._js.legCancel(i, k, oid))

    def close(self, i, k, size):
        r = self._js.legClose(i, k, size).to_py()
        return (r[0], r[1])

    def fills(self, i, frm):
        return [tuple(f) for f in self._js.legFills(i, frm).to_py()]

    def working(self, i):
        return [tuple(o) for o in self._js.legWorking(i).to_py()]


def order_args(o):
    """(trail, stop-loss, stop-loss type) of an order handle: a trailing stop sends its own trail; an
    entry's trail makes its stop-loss leg a trailing stop."""
    if o._type == TRAILING_STOP:
        return o.trail, o.stop_loss, None
    if o.trail is not None:
        return None, o.trail, TRAILING_STOP
    return None, o.stop_loss, None


class Leg:
    def __init__(self, rt, index, meta, timeframe, starting_cents):
        self.rt = rt
        self.js = rt.bridge.legs  # the child's engines of the other contracts (JsLegs)
        self.index = index  # the instrument's place in the run's list (1 for the first after the main one)
        self.symbol = meta['symbol']
        self.k = int(meta['ticks_per_unit'])
        assert self.k >= 1, 'ticks_per_unit must be >= 1'
        self.tick_size = float(meta['tick_size'])
        self.tick_value = float(meta['tick_value'])
        self.tick_value_cents = round(self.tick_value * 100)
        self.series = Series(timeframe)
        self.pending = [[], [], [], [], [], [], []]  # t, e, o, h, l, c, v of bars not yet visible
        self.at = 0
        self.up = NO_UP_TRIGGER
        self.down = NO_DOWN_TRIGGER
        self.qty = 0
        self.cost = 0
        self.fill_count = 0
        self.balance_cents = starting_cents
        self.handles = {}
        self.working_ids = set()
        self.position = Position(0, 0, self)
        self.orders = _EMPTY

    # -- bars --

    def stage(self, cols):
        """A batch's bars of this contract (dicts of int columns, prices in ticks), after what is pending."""
        at = self.at
        for j, key in enumerate(('t', 'e', 'o', 'h', 'l', 'c', 'v')):
            col = self.pending[j]
            del col[:at]
            col.extend(cols[key])
        self.at = 0

    def release(self, idx, now):
        """Makes the bars that closed by `now` visible; walks them through the engine if one reaches a trigger."""
        p = self.pending
        e = p[1]
        at = self.at
        n = len(e)
        if at >= n or e[at] > now:
            return
        t, _, o, h, l, c, v = p
        s = self.series
        k = self.k
        up = self.up
        down = self.down
        hit = False
        while at < n and e[at] <= now:
            s._append(t[at], e[at], o[at], h[at], l[at], c[at], v[at], k)
            if h[at] >= up or l[at] <= down:
                hit = True
            at += 1
        self.at = at
        if hit:
            self.sync(self.js.advance(self.index, idx), False)

    # -- engine state --

    def state(self):
        return self.js.state(self.index)

    def sync(self, st, refresh_working):
        bal, qty, cost, up, down, fill_count, working_count = st
        self.up = up
        self.down = down
        filled = None
        if fill_count != self.fill_count:
            filled = self.take_fills(fill_count)
            refresh_working = True
        if bal != self.balance_cents:
            self.balance_cents = bal
            self.rt.ctx.balance = self.rt.account_balance()
        if qty != self.qty or cost != self.cost:
            self.qty = qty
            self.cost = cost
            self.position = Position(qty, cost, self)
        if refresh_working:
            self.refresh_orders(working_count, filled)

    def take_fills(self, fill_count):
        k = self.k
        rt = self.rt
        filled = set()
        for fid, oid, side, size, price, t, fee, pnl in self.js.fills(self.index, self.fill_count):
            order = self.handles.pop(oid, None)
            f = Fill(fid, oid, SIDE_NAMES[side], size, price / k, t, fee / 100, pnl / 100, order, self.symbol)
            if order is not None:
                order.status = 'filled'
                order.fill_price = f.price
                order.fill_time = t
                if order.side is None:  # a close: now we know which way it went
                    order.side = f.side
                    order.size = size
            filled.add(oid)
            rt.ctx.fills.append(f)
            rt.pending.append(f)
        self.fill_count = fill_count
        return filled

    def refresh_orders(self, working_count, filled):
        k = self.k
        rows = self.js.working(self.index) if working_count else ()
        orders = tuple(WorkingOrder(oid, TYPE_NAMES[ty], SIDE_NAMES[side], size, None if lim is None else lim / k,
                                    None if stp is None else stp / k, parent, self.symbol)
                       for oid, ty, side, size, lim, stp, parent in rows)
        ids = {o.id for o in orders}
        gone = (self.working_ids | self.handles.keys()) - ids
        if filled:
            gone -= filled
        t = self.rt.series._last(_ENDS)
        for oid in sorted(gone):
            order = self.handles.pop(oid, None)
            if order is not None:
                order.status = 'canceled'
            self.rt.pending.append(Cancellation(oid, order, t, self.symbol))
        self.working_ids = ids
        self.orders = orders

    # -- requests, applied right after bar k --

    def apply(self, k, kind, arg):
        b = self.js
        i = self.index
        if kind == _PLACE:
            trail, sl, sl_type = order_args(arg)
            self.accepted(arg, *b.place(i, k, arg._type, arg._side, arg.size, arg._limit, arg._stop, sl, arg.take_profit, trail, sl_type))
        elif kind == _MODIFY:
            self.modify(k, arg)
        elif kind == _CANCEL:
            oid = arg if type(arg) is int else arg.id
            if oid:
                b.cancel(i, k, oid)
        elif kind == _CLOSE:
            self.accepted(arg, *b.close(i, k, arg.size or None))
        else:  # _CANCEL_ALL, _FLATTEN
            for row in b.working(i):
                b.cancel(i, k, row[0])
            if kind == _FLATTEN and b.state(i)[1]:
                oid, reason = b.close(i, k, None)
                if not oid:
                    self.rt.pending.append(Rejection(None, reason, self.rt.series._last(_ENDS), self.symbol))

    def modify(self, k, change):
        target, size, limit, stop, trail = change
        oid = target if type(target) is int else target.id
        if not oid:
            return
        reason = self.js.modify(self.index, k, oid, size, limit, stop, trail)
        handle = self.handles.get(oid)
        if reason == '':
            if handle is not None:
                if size is not None:
                    handle.size = size
                if limit is not None:
                    handle.limit_price = limit / self.k
                if stop is not None:
                    handle.stop_price = stop / self.k
                if trail is not None:
                    handle.trail = trail
        elif reason != 'order_not_found':
            self.rt.pending.append(Rejection(handle, reason, self.rt.series._last(_ENDS), self.symbol))

    def accepted(self, order, oid, reason):
        if oid:
            order.id = oid
            order.status = 'working'
            self.handles[oid] = order
        else:
            order.status = 'rejected'
            order.reason = reason
            self.rt.pending.append(Rejection(order, reason, self.rt.series._last(_ENDS)))
