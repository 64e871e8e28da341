"""ranks: time against rank count at chosen sizes, with the fitted algorithm family (/families)
and the ring crossover p* (/crossovers); the model past the largest measured p is dashed."""
import math

import matplotlib.ticker as ticker
import numpy as np

from plots.figures.common import (time_axis, FigureError, FigureSkipped, Options, Plot, new_figure,
                                  preferred_mode, require_fits)
from plots.resultfile import CURVE_KEY, curves, key_dict
from plots.sizes import format_size, same_size, size_bucket

_NRANKS = CURVE_KEY.index("nranks")
# The size docs/DESIGN.md names as the usual gradient bucket; drawn by default when measured.
GRADIENT_BUCKET = 25 * 1024 * 1024


def family_time_us(families, row, p, n):
    """The family of /families row `row` at p ranks and n bytes, from the coefficients the
    file stores with it (SCHEMA.md): α·latency_factor(p) + β·n·bandwidth_factor(p)."""
    p = np.asarray(p, dtype=float)
    latency = (families["latency_per_peer"][row] * (p - 1)
               + families["latency_per_doubling"][row] * np.log2(p))
    bandwidth = families["bandwidth_per_share"][row] * (p - 1) / p + families["bandwidth_whole"][row]
    return (families["alpha_us"][row] * latency
            + families["beta_ns_per_byte"][row] / 1000 * n * bandwidth)


def _families(points, mode):
    """Family key (curve key with nranks 0, as /families stores it) -> {nranks: rows}."""
    out = {}
    for key, rows in curves(points, mode).items():
        family_key = key[:_NRANKS] + (0,) + key[_NRANKS + 1:]
        out.setdefault(family_key, {})[key[_NRANKS]] = rows
    return {k: v for k, v in out.items() if len(v) >= 2}


def _default_sizes(points, by_ranks):
    """The largest size measured at every rank count, and 25 MiB when measured at every one."""
    common = set.intersection(*({size_bucket(points["size_bytes"][i]) for i in rows}
                                for rows in by_ranks.values()))
    if not common:
        return []
    picked = {max(common)}
    if size_bucket(GRADIENT_BUCKET) in common:
        picked.add(size_bucket(GRADIENT_BUCKET))
    return sorted(picked)


def draw(result, options: Options):
    points = result.points
    mode = preferred_mode(points, ("latency", "bandwidth"))
    groups = _families(points, mode)
    if not groups:
        raise FigureSkipped("figure 'ranks' needs one curve measured at 2 or more rank counts "
                            "(run with --ranks, e.g. --ranks 2,4 --placement world)")
    require_fits(result, "ranks")
    figure, axes = new_figure(result, f"Time vs rank count ({mode} mode) with the fitted "
                              "algorithm family", panels=len(groups), width=6.5, height=4.8)
    data = {}
    fam, cross = result.families, result.crossovers
    for axis, (family_key, by_ranks) in zip(axes, groups.items()):
        k = key_dict(family_key)
        buckets = ([size_bucket(options.size)] if options.size else
                   _default_sizes(points, by_ranks))
        measured_p = sorted(by_ranks)
        chosen = [i for i in range(len(fam.get("family", [])))
                  if fam["chosen"][i] and all(fam[c][i] == v for c, v in k.items())]
        entry = {}
        for color_index, bucket in enumerate(buckets):
            color = f"C{color_index}"
            p_values, times, ids = [], [], []
            for p in measured_p:
                for i in by_ranks[p]:
                    if size_bucket(points["size_bytes"][i]) == bucket:
                        p_values.append(p)
                        times.append(points["time_median_us"][i])
                        ids.append(points["point_id"][i])
            if not p_values:
                continue
            n = 2.0 ** bucket
            axis.plot(p_values, times, "o", color=color, markersize=6,
                      label=f"measured, {format_size(n)}")
            curve = {"nranks": np.array(p_values), "time_median_us": np.array(times),
                     "point_id": np.array(ids)}
            crossover = [i for i in range(len(cross.get("size_bytes", [])))
                         if same_size(cross["size_bytes"][i], n)
                         and all(cross[c][i] == v for c, v in k.items())]
            p_star = cross["crossover_ranks"][crossover[0]] if crossover else math.nan
            # Files fitted before schema 7 hold no coefficients (NaN): no model line then.
            if chosen and np.isfinite(fam["latency_per_peer"][chosen[0]]):
                i = chosen[0]
                top = max(measured_p[-1], p_star if np.isfinite(p_star) else 0) * 1.5
                p_in = np.geomspace(measured_p[0], measured_p[-1], 40)
                p_out = np.geomspace(measured_p[-1], top, 40)
                axis.plot(p_in, family_time_us(fam, i, p_in, n), color=color, linewidth=1.6,
                          label=f"{fam['family'][i]} family, {mode}-mode fit (dashed: "
                          "extrapolated)")
                axis.plot(p_out, family_time_us(fam, i, p_out, n), color=color, linewidth=1.2,
                          linestyle="--")
                curve["family"] = fam["family"][i]
            if np.isfinite(p_star):
                axis.axvline(p_star, color=color, linestyle=":", linewidth=1.2)
                axis.text(p_star, 0.03 + 0.08 * color_index, f" ring p* = {p_star:.0f}",
                          transform=axis.get_xaxis_transform(), color=color, fontsize=8)
                curve["p_star"] = p_star
            entry[format_size(n)] = curve
        axis.set_xscale("log", base=2)
        axis.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        time_axis(axis)
        axis.set_title(f"{k['collective']} · {k['placement']}", fontsize=10)
        axis.set_xlabel("ranks in the communicator (p)")
        axis.set_ylabel("time per operation (µs)")
        axis.grid(True, which="major", alpha=0.3)
        axis.legend(fontsize=7, loc="upper left", framealpha=0.9)
        data[f"{k['collective']} · {k['placement']}"] = entry
    if not any(data.values()):
        raise FigureError(f"figure 'ranks': no point of size {format_size(options.size)} at "
                          "every rank count" if options.size else
                          "figure 'ranks': no size measured at every rank count")
    return Plot(figure, data)
