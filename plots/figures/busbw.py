"""busbw: bus bandwidth against size, one line per collective x placement x rank count."""
import numpy as np

from plots.figures.common import (Options, Plot, headline_row, label, new_figure,
                                  preferred_mode, tidy_legend)
from plots.resultfile import curves
from plots.sizes import format_size, size_axis


def bus_factor(points, rows):
    """busbw / algbw of a curve, as the file's points were counted (one rank count per curve)."""
    algbw, busbw = points["algbw_GBps"][rows], points["busbw_GBps"][rows]
    return float(np.median(busbw[algbw > 0] / algbw[algbw > 0]))


# The largest sizes, whose bus bandwidth the headline's large-message 1/β must allow.
LARGEST_SIZES = 3


def _asymptote(result, key, points, rows):
    """(the headline's large-message 1/β on this plot's axis, None) or (None, why it is not
    drawn). 1/β is size over time, algbw-like: the bus factor converts it. Not drawn: an
    untrusted headline, and one whose interval for 1/β lies wholly below what the largest sizes
    measured, so that it describes another regime than the one the plot ends in."""
    row = headline_row(result, key)
    if row is None:
        return None, None
    if not result.headlines["trusted"][row]:
        return None, "untrusted fit"
    factor = bus_factor(points, rows)
    beta_low = result.headlines["beta_ci_low_ns_per_byte"][row]
    largest = np.argsort(points["size_bytes"][rows])[-LARGEST_SIZES:]
    measured = points["busbw_GBps"][rows][largest].max()
    if beta_low > 0 and measured > factor / beta_low:  # 1 ns/B is 1 GB/s
        return None, "fit below the largest sizes' measured bandwidth"
    return result.headlines["bandwidth_GBps"][row] * factor, None


def draw(result, options: Options):
    points = result.points
    # Bandwidth mode is what nccl-tests' busbw means; latency mode only when that is all there is.
    mode = preferred_mode(points, ("bandwidth", "latency"))
    figure, (axis,) = new_figure(result, f"Bus bandwidth vs message size ({mode} mode)",
                                 width=10, height=5.8)
    data = {"mode": mode, "lines": {}, "asymptotes": {}, "withheld": {}, "floors": {}}
    colors = iter(f"C{i}" for i in range(100))
    for key, rows in curves(points, mode).items():
        color = next(colors)
        sizes = points["size_bytes"][rows].astype(float)
        busbw = points["busbw_GBps"][rows]
        name = label(key)
        axis.plot(sizes, busbw, marker="o", markersize=3.5, color=color, label=name)
        data["lines"][name] = {"point_id": points["point_id"][rows], "size_bytes": sizes,
                               "busbw_GBps": busbw}
        asymptote, withheld = _asymptote(result, key, points, rows)
        if asymptote is not None:
            axis.axhline(asymptote, color=color, linestyle="--", linewidth=1, alpha=0.8)
            data["asymptotes"][name] = asymptote
        if withheld:
            data["withheld"][name] = withheld
    measured = set(points["collective"])
    # A floor for a collective this file did not measure would only stretch the axis.
    for floor in (f for f in (options.spec or []) if f["collective"] in (None, *measured)):
        axis.axhline(floor["busbw_GBps"], color="red", linestyle=":", linewidth=1.5,
                     label=f"spec floor {floor['name']}: {floor['busbw_GBps']:.3g} GB/s")
        data["floors"][floor["name"]] = floor["busbw_GBps"]
    if data["asymptotes"]:
        axis.plot([], [], color="gray", linestyle="--",
                  label=f"{mode}-mode fit's asymptote (1/β × bus factor)")
    all_sizes = np.concatenate([v["size_bytes"] for v in data["lines"].values()])
    size_axis(axis.xaxis, all_sizes)
    axis.set_yscale(options.busbw_scale)
    if options.busbw_scale == "linear":
        axis.set_ylim(bottom=0)
    axis.set_xlabel("message size (nccl-tests convention)")
    axis.set_ylabel("bus bandwidth (GB/s, 1 GB = 10⁹ B)")
    axis.grid(True, which="major", alpha=0.3)
    axis.set_xlim(all_sizes.min() / 1.3, all_sizes.max() * 1.3)
    tidy_legend(axis, loc="upper left")
    if data["withheld"]:
        axis.annotate(f"no {mode}-mode asymptote for {len(data['withheld'])} curve(s): "
                      + ", ".join(sorted(set(data["withheld"].values()))),
                      xy=(0, 0), xycoords="axes fraction", ha="left", va="bottom", fontsize=7,
                      color="gray")
    axis.annotate(f"largest size {format_size(all_sizes.max())}", xy=(1, 0),
                  xycoords="axes fraction", ha="right", va="bottom", fontsize=7, color="gray")
    return Plot(figure, data)
