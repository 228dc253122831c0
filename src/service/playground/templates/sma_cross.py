"""SMA crossover (trend following).

Goes long `size` contracts when the fast simple moving average of the closes crosses above the
slow one, and short when it crosses below. After the first cross the strategy is always in the
market: each signal reverses the position with a single market order.
"""
from indicators import SMA


def init(ctx):
    p = ctx.params
    if p["fast"] >= p["slow"]:
        raise ValueError("fast must be shorter than slow")
    # Streaming averages: O(1) per bar, however long the run.
    ctx.fast = SMA(p["fast"])
    ctx.slow = SMA(p["slow"])
    ctx.prev_diff = None


def on_bar(ctx, bar):
    fast = ctx.fast.update(bar.close)
    slow = ctx.slow.update(bar.close)
    if slow is None:  # not enough bars yet
        return
    diff = fast - slow
    prev = ctx.prev_diff
    ctx.prev_diff = diff
    if prev is None:
        return
    qty = ctx.position.qty  # signed: + long, - short
    size = ctx.params["size"]
    if prev <= 0 < diff and qty <= 0:
        ctx.buy(size - qty)  # from flat or short to long `size`
    elif prev >= 0 > diff and qty >= 0:
        ctx.sell(size + qty)  # from flat or long to short `size`
