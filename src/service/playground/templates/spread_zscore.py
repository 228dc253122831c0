"""NQ/ES spread: trades the ratio of two index futures back to its mean.

Run it over two instruments: "instrumentSymbols": ["NQ", "ES"] (the main one first; the `hedge`
param names the second). On each bar of the main instrument:

- ratio = main close / hedge close (the hedge's last bar closed by now: ctx.data[hedge]);
- mean and population standard deviation of the last `lookback` ratios; z = (ratio - mean) / sd;
- flat and z above entry_z (the main leg is rich): sell `size` of the main, buy `size` of the hedge;
- flat and z below -entry_z: buy the main, sell the hedge;
- in a spread and z back past -exit_z (long spread) or exit_z (short spread): flatten both legs.

Market orders only: both legs fill at their closes right after the signal bar. Contracts are not
weighted by their values (one NQ against one ES): a plain example of the API, not a hedge ratio.
"""

import math


def init(ctx):
    ctx.hedge = ctx.params['hedge']
    if ctx.hedge not in ctx.data:
        raise ValueError(f'run this template over two instruments: "instrumentSymbols": ["{ctx.symbol}", "{ctx.hedge}"]')
    ctx.ratios = []
    ctx.side = 0  # +1: long the main, short the hedge; -1: the other way; 0: flat


def zscore(values):
    # Sums in order, by hand: the same arithmetic as any plain reference (sum() compensates).
    n = len(values)
    total = 0.0
    for x in values:
        total += x
    mean = total / n
    square = 0.0
    for x in values:
        square += (x - mean) * (x - mean)
    sd = math.sqrt(square / n)
    return None if sd == 0 else (values[-1] - mean) / sd


def on_bar(ctx, bar):
    hedge = ctx.data[ctx.hedge]
    if hedge.bar is None:
        return  # no hedge bar has closed yet
    p = ctx.params
    ratios = ctx.ratios
    ratios.append(bar.close / hedge.close)
    if len(ratios) > p['lookback']:
        del ratios[0]
    if len(ratios) < p['lookback']:
        return
    z = zscore(ratios)
    if z is None:
        return
    size = p['size']
    if ctx.side == 0 and z > p['entry_z']:
        ctx.sell(size)
        ctx.buy(size, symbol=ctx.hedge)
        ctx.side = -1
    elif ctx.side == 0 and z < -p['entry_z']:
        ctx.buy(size)
        ctx.sell(size, symbol=ctx.hedge)
        ctx.side = 1
    elif (ctx.side == 1 and z > -p['exit_z']) or (ctx.side == -1 and z < p['exit_z']):
        ctx.flatten()  # every contract of the run
        ctx.side = 0
