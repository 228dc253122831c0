"""Opening range breakout (breakout, intraday).

Records the high and low of the first `range_minutes` after the New York cash open (`open_time`,
09:30 for US stock index futures), then places a buy stop one tick above the range and a sell stop
one tick below it. The first to fill cancels the other (in on_fill). Each entry carries a bracket:
the stop-loss sits one tick beyond the far side of the range and the take-profit `reward_risk`
times farther. Whatever is still open at `exit_time` is flattened. At most one trade per day.

Times are New York wall-clock times. Bar times are UTC and the sandbox has no time-zone database,
so the US daylight-saving rule is computed below: New York is UTC-4 from the second Sunday of
March to the first Sunday of November, UTC-5 otherwise (so 09:30 is 13:30 or 14:30 UTC). CME
equity index futures trade nearly around the clock (Sunday-Friday 17:00-16:00 Chicago time); the
09:30 cash open is when the day's main volume arrives.
"""
import datetime as dt

DAY_S = 86_400


def init(ctx):
    p = ctx.params
    ctx.open_min = parse_minutes(p["open_time"], "open_time")
    ctx.exit_min = parse_minutes(p["exit_time"], "exit_time")
    if ctx.exit_min <= ctx.open_min + p["range_minutes"]:
        raise ValueError("exit_time must come after the end of the opening range")
    ctx.day = None


def parse_minutes(text, name):
    """'HH:MM' -> minutes after midnight; New York times before 19:00 stay on the same UTC day."""
    try:
        hours, minutes = (int(x) for x in text.split(":"))
    except ValueError:
        raise ValueError(f"{name} must look like 09:30, got {text!r}") from None
    if not (0 <= hours < 19 and 0 <= minutes < 60):
        raise ValueError(f"{name} must be between 00:00 and 18:59 New York time, got {text!r}")
    return hours * 60 + minutes


def new_york_offset_s(day):
    """UTC offset of New York in seconds on a UTC day number (the date's DST state)."""
    date = dt.date(1970, 1, 1) + dt.timedelta(days=day)
    march = dt.date(date.year, 3, 8)  # the second Sunday of March is in 8..14
    dst_start = march + dt.timedelta(days=(6 - march.weekday()) % 7)
    november = dt.date(date.year, 11, 1)  # the first Sunday of November is in 1..7
    dst_end = november + dt.timedelta(days=(6 - november.weekday()) % 7)
    return -4 * 3600 if dst_start <= date < dst_end else -5 * 3600


def start_day(ctx, day):
    # Session times of this date in UTC, computed once per day rather than per bar.
    midnight = day * DAY_S - new_york_offset_s(day)
    ctx.day = day
    ctx.range_start = midnight + ctx.open_min * 60
    ctx.range_end = ctx.range_start + ctx.params["range_minutes"] * 60
    ctx.exit_at = midnight + ctx.exit_min * 60
    ctx.high = ctx.low = None
    ctx.entries = None  # (buy stop, sell stop) handles once placed
    ctx.done = False


def on_bar(ctx, bar):
    day = bar.time // DAY_S
    if day != ctx.day:
        start_day(ctx, day)
    if ctx.done:
        return
    t = bar.time
    if t < ctx.range_start:
        return
    if t < ctx.range_end:  # inside the opening range: widen it
        ctx.high = bar.high if ctx.high is None else max(ctx.high, bar.high)
        ctx.low = bar.low if ctx.low is None else min(ctx.low, bar.low)
        return
    if bar.end >= ctx.exit_at:
        if ctx.position.qty or ctx.orders:
            ctx.flatten()
        ctx.done = True
    elif ctx.entries is None and ctx.high is not None:
        place_entries(ctx)


def place_entries(ctx):
    p = ctx.params
    tick = ctx.tick_size
    # Entry one tick beyond the range; stop-loss one tick beyond its other side.
    stop = ctx.to_ticks(ctx.high - ctx.low) + 2
    target = max(1, round(stop * p["reward_risk"]))
    ctx.entries = (
        ctx.buy_stop(ctx.high + tick, p["size"], stop_loss=stop, take_profit=target),
        ctx.sell_stop(ctx.low - tick, p["size"], stop_loss=stop, take_profit=target),
    )


def on_fill(ctx, fill):
    # One-cancels-other between the two entries: the first fill cancels its twin.
    if ctx.entries is None:
        return
    long_entry, short_entry = ctx.entries
    if fill.order is long_entry and short_entry.is_working:
        ctx.cancel(short_entry)
    elif fill.order is short_entry and long_entry.is_working:
        ctx.cancel(long_entry)
