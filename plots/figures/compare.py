"""compare: NEW against BASE median time per size, matched point by point, with the baseline's
95% interval of the median as a band; one panel per curve measured in both files."""
import numpy as np

from plots.figures.common import time_axis, FigureError, Options, Plot, label, new_figure
from plots.resultfile import curves
from plots.sizes import size_axis


def draw(result, options: Options):
    base = options.baseline
    if base is None:
        raise FigureError("figure 'compare' needs --baseline BASE.h5")
    new_curves, base_curves = curves(result.points), curves(base.points)
    shared = [k for k in new_curves if k in base_curves]
    if not shared:
        raise FigureError(f"figure 'compare': {result.path} and {base.path} share no curve")
    figure, axes = new_figure(result, f"{result.path.name} (new) vs {base.path.name} "
                              "(baseline): median time per operation", panels=len(shared),
                              width=6.2, height=4.4)
    data = {}
    for axis, key in zip(axes, shared):
        new_rows = {result.points["size_bytes"][i]: i for i in new_curves[key]}
        base_rows = {base.points["size_bytes"][i]: i for i in base_curves[key]}
        sizes = np.array(sorted(set(new_rows) & set(base_rows)), dtype=float)
        pick = lambda table, rows, column: np.array(  # noqa: E731
            [table[column][rows[s]] for s in sizes.astype(np.uint64)])
        new = pick(result.points, new_rows, "time_median_us")
        base_median = pick(base.points, base_rows, "time_median_us")
        low = pick(base.points, base_rows, "time_median_ci_low_us")
        high = pick(base.points, base_rows, "time_median_ci_high_us")
        axis.fill_between(sizes, low, high, color="gray", alpha=0.3,
                          label="baseline 95% CI of the median")
        axis.plot(sizes, base_median, "o-", color="gray", markersize=3, label="baseline")
        axis.plot(sizes, new, "o-", color="C1", markersize=3.5, label="new")
        size_axis(axis.xaxis, sizes, max_ticks=6)
        time_axis(axis)
        axis.set_title(label(key, with_mode=True), fontsize=10)
        axis.set_xlabel("message size")
        axis.set_ylabel("time per operation (µs)")
        axis.grid(True, which="major", alpha=0.3)
        axis.legend(fontsize=7, loc="upper left")
        data[label(key, with_mode=True)] = {"size_bytes": sizes, "new_us": new,
                                            "base_us": base_median, "base_ci_low_us": low,
                                            "base_ci_high_us": high}
    return Plot(figure, data)
