"""predict: a `collbench predict` file's time against rank count, a panel per curve and size
predicted. Each panel shows the predicted median and its 95% band, the measured medians it was
predicted from, the rank counts asked for with their intervals, and where measurement ends
(everything to its right is extrapolated). It also marks the ring's crossover p* and the
out-of-sample check: the largest rank count measured, predicted from the smaller ones alone. How
far to trust a number at 1,024 ranks reads off how far right of the measured points it lies and
how well that check did."""
import math

import matplotlib.ticker as ticker
import numpy as np

from plots.figures.common import (FigureError, FigureSkipped, Options, Plot, new_figure,
                                  tidy_legend, time_axis)
from plots.resultfile import CURVE_KEY, curves, key_dict
from plots.sizes import format_size, same_size

_NRANKS = CURVE_KEY.index("nranks")
# Four rows of three: more panels would be too small to read. --size picks one size.
_MOST_PANELS = 12
_PREDICTED, _ASKED, _MEASURED, _CHECK, _CROSSOVER = "C0", "C3", "black", "C2", "C4"


def readable_time(us, _position=None):
    """1500 -> '1.5 ms'. Predictions go from microseconds at a few ranks to seconds at
    thousands, and '2,841,492 µs' does not read as three seconds."""
    for scale, unit in ((1e6, "s"), (1e3, "ms")):
        if abs(us) >= scale:
            return f"{us / scale:.3g} {unit}"
    return f"{us:.3g} µs"


def curve_title(key, size):
    """'allreduce float sum · packed · latency · 25 MiB', the curve as `collbench predict` names
    it, plus any pinned tuning and in-place."""
    k = key_dict(key)
    parts = [" ".join(v for v in (k["collective"], k["datatype"], k["redop"]) if v != "none"),
             k["placement"], "/".join(v for v in (k["algorithm"], k["protocol"]) if v),
             "in place" if k["in_place"] else "", k["mode"], format_size(size)]
    return " · ".join(p for p in parts if p)


def _panels(predictions, size):
    """(curve key, size predicted, rows of /predictions) per panel, a curve's sizes side by
    side in the order they were asked for; only `size` when given."""
    panels = []
    for key, rows in curves(predictions).items():
        for n in dict.fromkeys(predictions["size_bytes"][rows]):
            if size is None or same_size(n, size):
                panels.append((key, n, [i for i in rows if predictions["size_bytes"][i] == n]))
    return panels


def _rows_of_curve(table, key):
    """Rows of /predicted_from or /prediction_checks for the curve `key`, at every rank count
    they hold: their nranks is the rank count measured, where /predictions' is 0."""
    def across_ranks(k):
        return k[:_NRANKS] + k[_NRANKS + 1:]
    return [i for k, rows in curves(table).items() if across_ranks(k) == across_ranks(key)
            for i in rows]


def _nearest_size(table, rows, size):
    """`rows` at the measured size nearest `size` on a log scale, as one sweep step: an
    allgather rounds a size to whole elements differently at each rank count."""
    if not rows:
        return []
    nearest = min(table["size_bytes"][rows],
                  key=lambda n: abs(math.log2(max(n, 1)) - math.log2(size)))
    return [i for i in rows if same_size(table["size_bytes"][i], nearest)]


def _draw_band(axis, p, band, largest):
    ranks, median = p["ranks"][band], p["time_us"][band]
    low, high = p["time_ci_low_us"][band], p["time_ci_high_us"][band]
    per_doubling = p["error_per_doubling"][band[0]]
    interval = (f"95% interval, widened {per_doubling:.0%} a doubling past {largest}"
                if np.isfinite(per_doubling) else
                "95% interval of the fit alone: not validated out of sample")
    axis.fill_between(ranks, low, high, color=_PREDICTED, alpha=0.2, linewidth=0, label=interval)
    axis.plot(ranks, median, color=_PREDICTED, linewidth=1.8,
              label=f"predicted median, {p['family'][band[0]]} family")
    return {"ranks": ranks, "time_us": median, "time_ci_low_us": low, "time_ci_high_us": high}


def _draw_asked(axis, p, asked):
    ranks, median = p["ranks"][asked], p["time_us"][asked]
    low, high = p["time_ci_low_us"][asked], p["time_ci_high_us"][asked]
    axis.errorbar(ranks, median, yerr=[median - low, high - median], fmt="s", markersize=5,
                  capsize=3, color=_ASKED, label="asked for, 95% interval")
    for r, t in zip(ranks, median):
        axis.annotate(readable_time(t), (r, t), xytext=(-6, 3), textcoords="offset points",
                      ha="right", va="bottom", fontsize=8, color=_ASKED)
    return {"asked_ranks": ranks, "asked_time_us": median}


def _draw_measured(axis, measured, rows):
    rows = sorted(rows, key=lambda i: measured["nranks"][i])
    ranks, median = measured["nranks"][rows], measured["time_median_us"][rows]
    size = measured["size_bytes"][rows[0]]
    axis.plot(ranks, median, "o", color=_MEASURED, markersize=5, zorder=3,
              label=f"measured median, {format_size(size)}")
    return {"measured_ranks": ranks, "measured_us": median, "measured_size_bytes": size}


def _draw_check(axis, checks, row):
    """The largest rank count measured, as predicted from the smaller ones: its miss is the
    evidence for (or against) every extrapolated number in the panel."""
    c = {name: column[row] for name, column in checks.items()}
    predicted = c["predicted_us"]
    axis.errorbar([c["nranks"]], [predicted], yerr=[[predicted - c["predicted_ci_low_us"]],
                                                    [c["predicted_ci_high_us"] - predicted]],
                  fmt="D", markersize=6, markerfacecolor="none", capsize=4, color=_CHECK, zorder=4,
                  label=f"out of sample at {c['nranks']}: {c['relative_error']:+.0%} error "
                        f"({format_size(c['size_bytes'])}, fitted up to {c['fitted_up_to']})")
    return {"check": c}


def _mark_measured_range(axis, largest, right):
    axis.axvspan(largest, right, color="0.5", alpha=0.08, linewidth=0)
    axis.axvline(largest, color="0.35", linewidth=1)
    axis.text(largest, 0.97, f" measured up to {largest} · extrapolated →",
              transform=axis.get_xaxis_transform(), va="top", fontsize=8, color="0.35")


def _mark_crossover(axis, p, row, left, right):
    """The ring's p* as a dashed line with its interval as a bar below, when inside the axis;
    else said in words, since 'below 2 ranks' is an answer too."""
    p_star = p["crossover_ranks"][row]
    low, high = p["crossover_ranks_ci_low"][row], p["crossover_ranks_ci_high"][row]
    if not np.isfinite(p_star):
        return {"crossover_ranks": None}
    bounded = np.isfinite(low) and np.isfinite(high)
    text = f"ring p* = {p_star:.0f}" + (f" [{low:.0f}, {high:.0f}]" if bounded else "")
    along = axis.get_xaxis_transform()
    if not left < p_star < right:
        # Bottom right: the measured points, the fastest, hold the bottom left.
        axis.text(0.98, 0.03, f"{text}: off scale", transform=axis.transAxes, ha="right",
                  fontsize=8, color=_CROSSOVER)
        return {"crossover_ranks": None}
    axis.axvline(p_star, color=_CROSSOVER, linestyle="--", linewidth=1.2)
    axis.text(p_star, 0.07, f" {text}", transform=along, fontsize=8, color=_CROSSOVER)
    if bounded:
        axis.plot([max(low, left), min(high, right)], [0.04, 0.04], transform=along,
                  color=_CROSSOVER, linewidth=3, alpha=0.5, solid_capstyle="butt")
    return {"crossover_ranks": p_star}


def _axes_style(axis, title):
    axis.set_xscale("log", base=2)
    axis.xaxis.set_major_locator(ticker.LogLocator(base=2, numticks=12))
    axis.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    axis.xaxis.set_minor_formatter(ticker.NullFormatter())
    time_axis(axis)
    # time_axis labels in µs and every 2 and 5; a prediction may span five decades, so name the
    # unit per tick, and label the 2s and 5s only where few decades leave room for them.
    axis.yaxis.set_major_formatter(ticker.FuncFormatter(readable_time))
    low, high = axis.get_ylim()
    few_decades = math.log10(high / low) < 2.5
    axis.yaxis.set_minor_formatter(ticker.FuncFormatter(readable_time) if few_decades
                                   else ticker.NullFormatter())
    axis.set_title(title, fontsize=10)
    axis.set_xlabel("ranks in the communicator (p)")
    axis.set_ylabel("time per operation")
    axis.grid(True, which="major", alpha=0.3)
    # Below the axes: inside, it would cover the band's start or the words along the top.
    # One column: two would be wider than the axes, and the layout would shrink the axes.
    tidy_legend(axis, loc="upper center", bbox_to_anchor=(0.5, -0.13), frameon=False)


def _panel(axis, tables, key, size, rows):
    p = tables.predictions
    band = sorted((i for i in rows if not p["asked"][i]), key=lambda i: p["ranks"][i])
    asked = [i for i in rows if p["asked"][i]]
    measured = _nearest_size(tables.measured, _rows_of_curve(tables.measured, key), size)
    checks = _nearest_size(tables.checks, _rows_of_curve(tables.checks, key), size)
    ranks = [*p["ranks"][rows], *(tables.measured["nranks"][i] for i in measured)]
    left, right = min(ranks) / 1.15, max(ranks) * 1.15
    largest = int(p["max_ranks_measured"][rows[0]])
    data = {"max_ranks_measured": largest, "check": None}
    _mark_measured_range(axis, largest, right)
    data.update(_draw_band(axis, p, band, largest))
    if asked:
        data.update(_draw_asked(axis, p, asked))
    if measured:
        data.update(_draw_measured(axis, tables.measured, measured))
    if checks:
        data.update(_draw_check(axis, tables.checks, checks[0]))
    data.update(_mark_crossover(axis, p, rows[0], left, right))
    axis.set_xlim(left, right)
    _axes_style(axis, curve_title(key, size))
    return data


def _subtitle(result, shown, panels):
    a = result.attrs
    inputs = list(a.get("inputs") or [])
    named = ", ".join(inputs[:3]) + (f" +{len(inputs) - 3} more" if len(inputs) > 3 else "")
    date = str(a.get("start_utc", "")).replace("T", " ").replace("Z", " UTC")
    parts = [f"predicted from {named}" if named else None,
             f"collbench {a.get('collbench_version', '?')}", date or None,
             f"the first {shown} of {panels} panels (--size picks one size)"
             if shown < panels else None]
    return " · ".join(p for p in parts if p)


def draw(result, options: Options):
    if not result.is_predictions:
        raise FigureSkipped(f"{result.path} holds no predictions (`collbench predict RUN.h5 "
                            "--out PRED.h5` writes them)")
    tables = result.predictions
    if not tables.predictions:
        raise FigureSkipped(f"{result.path} holds no predictions: no curve was measured at two "
                            "or more rank counts")
    panels = _panels(tables.predictions, options.size)
    if not panels:
        predicted = dict.fromkeys(format_size(n) for n in tables.predictions["size_bytes"])
        raise FigureError(f"figure 'predict': {result.path} predicts no size "
                          f"{format_size(options.size)}; it predicts {', '.join(predicted)}")
    shown = panels[:_MOST_PANELS]
    sizes_per_curve = max(sum(1 for k, _, _ in shown if k == key) for key, _, _ in shown)
    columns = min(3, sizes_per_curve if sizes_per_curve > 1 else len(shown))
    figure, axes = new_figure(result, "", panels=len(shown), width=6.4, height=5.4,
                              columns=columns)
    # new_figure's second line says where a run ran; a predictions file says what it read.
    figure.suptitle("Predicted time per operation vs rank count (collbench predict)\n"
                    f"{_subtitle(result, len(shown), len(panels))}", fontsize=12)
    data = {curve_title(key, size): _panel(axis, tables, key, size, rows)
            for axis, (key, size, rows) in zip(axes, shown)}
    return Plot(figure, data)
