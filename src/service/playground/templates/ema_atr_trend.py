"""EMA trend with ATR brackets (trend following).

Enters in the direction of a fast/slow exponential moving average cross. Every entry carries a
bracket: a stop-loss `atr_stop` average true ranges away and a take-profit `reward_risk` times
farther. An opposite cross closes the trade and enters the other way.
"""
from indicators import ATR, EMA, cross_above, cross_below


def init(ctx):
    p = ctx.params
    if p["fast"] >= p["slow"]:
        raise ValueError("fast must be shorter than slow")
    ctx.fast = EMA(p["fast"])
    ctx.slow = EMA(p["slow"])
    ctx.atr = ATR(p["atr_period"])
    ctx.prev = None  # (fast, slow) of the previous bar


def on_bar(ctx, bar):
    fast = ctx.fast.update(bar.close)
    slow = ctx.slow.update(bar.close)
    atr = ctx.atr.update(bar.high, bar.low, bar.close)
    prev, ctx.prev = ctx.prev, (fast, slow)
    if prev is None or slow is None or atr is None:
        return
    if cross_above(prev[0], fast, prev[1], slow):
        enter(ctx, ctx.buy, atr)
    elif cross_below(prev[0], fast, prev[1], slow):
        enter(ctx, ctx.sell, atr)


def enter(ctx, order, atr):
    p = ctx.params
    # Bracket distances are whole ticks: convert the ATR distance (a price) with to_ticks.
    stop = max(1, ctx.to_ticks(p["atr_stop"] * atr))
    target = max(1, round(stop * p["reward_risk"]))
    if ctx.position.qty or ctx.orders:
        ctx.flatten()  # cancels the old bracket legs, then closes the old trade
    order(p["size"], stop_loss=stop, take_profit=target)
