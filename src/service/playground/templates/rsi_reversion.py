"""RSI reversion (mean reversion).

Buys when Wilder's RSI drops below `oversold` and sells short when it rises above `overbought`,
betting on a return to the middle. The trade is closed when the RSI crosses back over `exit_level`,
or by its protective stop-loss `stop_loss` ticks away.
"""
from indicators import RSI


def init(ctx):
    p = ctx.params
    if not p["oversold"] < p["exit_level"] < p["overbought"]:
        raise ValueError("need oversold < exit_level < overbought")
    ctx.rsi = RSI(p["period"])


def on_bar(ctx, bar):
    rsi = ctx.rsi.update(bar.close)
    if rsi is None:
        return
    p = ctx.params
    qty = ctx.position.qty
    if qty == 0:
        if rsi < p["oversold"]:
            ctx.buy(p["size"], stop_loss=p["stop_loss"])
        elif rsi > p["overbought"]:
            ctx.sell(p["size"], stop_loss=p["stop_loss"])
    elif (qty > 0 and rsi > p["exit_level"]) or (qty < 0 and rsi < p["exit_level"]):
        ctx.close()  # the engine cancels the stop-loss leg once the position is flat
