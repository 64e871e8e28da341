"""Byte sizes as people read them (8 B, 1 KiB, 1 MiB, 1 GiB), and log2 size axes labelled so."""
import math

import matplotlib.ticker as ticker

_UNITS = ["B", "KiB", "MiB", "GiB", "TiB"]


def format_size(n):
    """8 -> '8 B', 1048576 -> '1 MiB', 262140 -> '256 KiB' (three significant digits)."""
    n = float(n)
    unit = 0
    while abs(n) >= 1024 and unit < len(_UNITS) - 1:
        n /= 1024
        unit += 1
    return f"{n:.3g} {_UNITS[unit]}"


def parse_size(text):
    """'64K', '1G', '8' -> bytes; K, M, G, T are powers of 1024 as on collbench's command line."""
    text = str(text).strip().upper().rstrip("B").rstrip("I")
    scale = 1
    if text and text[-1] in "KMGT":
        scale = 1024 ** ("KMGT".index(text[-1]) + 1)
        text = text[:-1]
    return int(float(text) * scale)


def size_axis(axis, sizes, max_ticks=9):
    """A log2 axis with ticks at powers of two whose exponents are multiples of the smallest step
    (1, 2, 5 or 10) that keeps the tick count at max_ticks or fewer, so labels never collide;
    a step of 10 lands on 1 KiB, 1 MiB, 1 GiB."""
    low = math.floor(math.log2(max(min(sizes), 1)))
    high = math.ceil(math.log2(max(max(sizes), 1)))
    for step in (1, 2, 5, 10):
        exps = [e for e in range(low, high + 1) if e % step == 0]
        if len(exps) <= max_ticks:
            break
    getattr(axis.axes, f"set_{axis.axis_name}scale")("log", base=2)
    axis.set_major_locator(ticker.FixedLocator([2.0 ** e for e in exps]))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: format_size(v)))
    axis.set_minor_locator(ticker.FixedLocator([2.0 ** e for e in range(low, high + 1)]))
    axis.set_minor_formatter(ticker.NullFormatter())


def same_size(a, b):
    """True when two sizes are one sweep step: allgather and reduce-scatter round each share down
    to whole elements, so 2 ranks run 262144 B where 3 run 262140 B; the nearest power of two
    names the step they both stand for."""
    return size_bucket(a) == size_bucket(b)


def size_bucket(n):
    return round(math.log2(max(float(n), 1.0)))
