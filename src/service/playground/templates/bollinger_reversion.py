"""Bollinger band reversion (mean reversion).

Waits for a close outside a band, then enters when price closes back inside it: long after a dip
below the lower band, short after a spike above the upper band. Exits at the middle band (the
moving average), with a stop-loss `stop_loss` ticks away in case the move keeps going.
"""
from indicators import Bollinger


def init(ctx):
    p = ctx.params
    ctx.bands = Bollinger(p["period"], p["width"])
    ctx.prev = None  # (close, lower, upper) of the previous bar


def on_bar(ctx, bar):
    bands = ctx.bands.update(bar.close)
    if bands is None:
        return
    mid, upper, lower = bands
    prev, ctx.prev = ctx.prev, (bar.close, lower, upper)
    if prev is None:
        return
    p = ctx.params
    qty = ctx.position.qty
    if qty > 0 and bar.close >= mid or qty < 0 and bar.close <= mid:
        ctx.close()
    elif qty == 0:
        prev_close, prev_lower, prev_upper = prev
        if prev_close < prev_lower and bar.close > lower:
            ctx.buy(p["size"], stop_loss=p["stop_loss"])
        elif prev_close > prev_upper and bar.close < upper:
            ctx.sell(p["size"], stop_loss=p["stop_loss"])
