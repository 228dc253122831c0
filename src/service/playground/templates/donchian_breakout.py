"""Donchian channel breakout (breakout, after the Turtle traders' rules).

Buys when the close breaks above the highest high of the previous `entry_period` bars and, if
`allow_short`, sells short below the lowest low. A long is closed when the close falls below the
lowest low of the previous `exit_period` bars (mirrored for shorts): a trailing exit that lets
winners run.
"""
from indicators import Highest, Lowest


def init(ctx):
    p = ctx.params
    if p["exit_period"] > p["entry_period"]:
        raise ValueError("exit_period must not exceed entry_period")
    ctx.entry_high = Highest(p["entry_period"])
    ctx.entry_low = Lowest(p["entry_period"])
    ctx.exit_high = Highest(p["exit_period"])
    ctx.exit_low = Lowest(p["exit_period"])


def on_bar(ctx, bar):
    # Channels of the previous bars: read the values before feeding this bar in.
    upper, lower = ctx.entry_high.value, ctx.entry_low.value
    exit_upper, exit_lower = ctx.exit_high.value, ctx.exit_low.value
    ctx.entry_high.update(bar.high)
    ctx.entry_low.update(bar.low)
    ctx.exit_high.update(bar.high)
    ctx.exit_low.update(bar.low)
    if upper is None:
        return
    p = ctx.params
    qty = ctx.position.qty
    if qty > 0 and bar.close < exit_lower or qty < 0 and bar.close > exit_upper:
        ctx.close()
    elif qty == 0:
        if bar.close > upper:
            ctx.buy(p["size"])
        elif bar.close < lower and p["allow_short"]:
            ctx.sell(p["size"])
