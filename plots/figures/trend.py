"""trend: a point's median time over the nights of `collbench trend --format json`, with the
levels between its change points and the change points marked; one panel per point that has
one (the first twelve), so the figure shows what changed and when."""
import pathlib

import numpy as np

from plots.figures.common import FigureSkipped, FigureError, Options, Plot, new_figure
from plots.sizes import format_size

MAX_PANELS = 12


def _title(point):
    parts = [point["collective"], point["placement"], f"{point['nranks']} ranks", point["mode"],
             format_size(point["size_bytes"])]
    if point["in_place"]:
        parts.append("in place")
    return " · ".join(parts)


def _levels(point, count):
    """The geometric mean of each stretch between change points, per run index."""
    median = np.array(point["median_us"], dtype=float)
    where = {run: i for i, run in enumerate(point["runs"])}
    bounds = [0] + [where[c["run"]] for c in point["changes"]] + [count]
    level = np.empty(count)
    for begin, end in zip(bounds[:-1], bounds[1:]):
        level[begin:end] = np.exp(np.mean(np.log(median[begin:end])))
    return level


def draw(result, options: Options):
    trend = options.trend
    if trend is None:
        raise FigureError("figure 'trend' needs --trend TREND.json (collbench trend --format json)")
    changed = [p for p in trend["points"] if p["changes"]]
    if not changed:
        raise FigureSkipped(f"no point changed over the {len(trend['runs'])} runs of the trend")
    shown = changed[:MAX_PANELS]
    more = f" (the first {MAX_PANELS} of {len(changed)})" if len(changed) > MAX_PANELS else ""
    figure, axes = new_figure(result, f"median time over {len(trend['runs'])} runs, levels "
                              f"between change points{more}", panels=len(shown), width=5.6,
                              height=3.8)
    data = {}
    for axis, point in zip(axes, shown):
        runs = np.array(point["runs"]) + 1
        median = np.array(point["median_us"], dtype=float)
        level = _levels(point, len(runs))
        axis.plot(runs, median, "o", color="C0", markersize=4, label="median per run")
        axis.step(runs, level, where="mid", color="C1", label="level")
        for change in point["changes"]:
            axis.axvline(change["run"] + 0.5, color="C3", linestyle="--", linewidth=1)
            axis.annotate(f"{change['change']:+.1%}", (change["run"] + 0.55, change["after_us"]),
                          color="C3", fontsize=8)
        axis.set_title(f"{_title(point)}: {point['verdict']}", fontsize=9)
        axis.set_xlabel("run")
        axis.set_ylabel("median time (µs)")
        axis.set_xticks(runs)
        axis.legend(fontsize=7)
        data[_title(point)] = {"runs": runs, "median_us": median, "level_us": level,
                               "changes": [c["run"] + 1 for c in point["changes"]]}
    return Plot(figure, data)


def load(path):
    """The JSON of `collbench trend --format json`; a clear error for anything else."""
    import json
    try:
        trend = json.loads(pathlib.Path(path).read_text())
        if not isinstance(trend, dict) or not isinstance(trend.get("points"), list) or \
                "runs" not in trend:
            raise ValueError("not the JSON of collbench trend --format json")
        return trend
    except (OSError, ValueError) as error:
        raise FigureError(f"--trend {path}: {error}") from None
