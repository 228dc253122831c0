"""An independent computation of a playground run's statistics from its trade list (plain Python, no numpy).

Reads JSON on stdin: the run's trades (as the API serves them), its bar count, the starting balance, the
first bar's open time and price and the last bar's end and close (as the strategy printed them), the
point value of the instrument. Writes the statistics as JSON.

The formulas are the common ones, written here from their definitions, not from the server's code:
Sharpe, Sortino, Calmar and the annual return as empyrical (Quantopian) defines them for daily returns
(sharpe_ratio: mean / std(ddof=1) * sqrt(252); sortino_ratio: mean * 252 / (sqrt(mean(min(r, 0)^2)) *
sqrt(252)); calmar_ratio: annual_return / |max_drawdown| with annual_return = cum_return ^ (252 / n) - 1);
expectancy, exposure and the buy-and-hold return as the common Python backtesting libraries report
them (mean trade P&L; time in the market over the bars; the price from the first open to the last
close).

The strategy the test runs is flat at every trade date's close and trades between 14:30 and 19:05 UTC,
so each trade's trade date is its exit's UTC date and the equity at a trade date's close is the
starting balance plus the P&L of the trades closed so far.
"""

import json
import math
import sys
from datetime import datetime, timezone


def utc_s(iso):
    return datetime.fromisoformat(iso.replace('Z', '+00:00')).timestamp()


def main():
    x = json.load(sys.stdin)
    start = x['startingBalance']
    trades = x['trades']
    by_date = {}
    for t in trades:
        d = datetime.fromtimestamp(utc_s(t['exitTime']), timezone.utc).date()
        by_date[d] = by_date.get(d, 0.0) + t['pnl']
    dates = sorted(by_date)
    closes = []
    eq = start
    for d in dates:
        eq += by_date[d]
        closes.append((d, eq))
    returns = []
    prev = start
    for _, c in closes:
        returns.append(c / prev - 1)
        prev = c
    n = len(returns)
    mean = sum(returns) / n
    sd = math.sqrt(sum((r - mean) ** 2 for r in returns) / (n - 1))
    downside = math.sqrt(sum(min(r, 0.0) ** 2 for r in returns) / n)
    growth = 1.0
    peak = 1.0
    max_dd = 0.0
    for r in returns:
        growth *= 1 + r
        peak = max(peak, growth)
        max_dd = max(max_dd, (peak - growth) / peak)
    annual = growth ** (252 / n) - 1
    months = []
    prev_month_end = start
    for i, (d, c) in enumerate(closes):
        if i + 1 < len(closes) and (closes[i + 1][0].year, closes[i + 1][0].month) == (d.year, d.month):
            continue
        months.append({'month': f'{d.year:04d}-{d.month:02d}', 'returnPct': (c / prev_month_end - 1) * 100})
        prev_month_end = c
    durations = [utc_s(t['exitTime']) - utc_s(t['entryTime']) for t in trades]
    held_bars = sum(d / x['barSeconds'] for d in durations)
    final = start + sum(t['pnl'] for t in trades)
    years = (x['lastEnd'] - x['firstTime']) / (365.25 * 86400)
    bh_pnl = (x['lastClose'] - x['firstOpen']) * x['pointValue']
    json.dump({
        'tradeDates': len(dates),
        'returnPct': (final / start - 1) * 100,
        'cagrPct': ((final / start) ** (1 / years) - 1) * 100,
        'sharpeRatio': mean / sd * math.sqrt(252),
        'sortinoRatio': mean * 252 / (downside * math.sqrt(252)),
        'calmarRatio': annual / max_dd,
        'exposurePct': held_bars / x['bars'] * 100,
        'expectancy': sum(t['pnl'] for t in trades) / len(trades),
        'averageTradeDurationS': sum(durations) / len(durations),
        'buyAndHold': {
            'entryPrice': x['firstOpen'],
            'exitPrice': x['lastClose'],
            'pnl': bh_pnl,
            'returnPct': bh_pnl / start * 100,
            'priceChangePct': (x['lastClose'] / x['firstOpen'] - 1) * 100,
        },
        'monthlyReturns': months,
    }, sys.stdout)


main()
