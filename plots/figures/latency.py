"""latency: latency-mode median time against size with the fitted piecewise alpha-beta model,
the curve's headline n½ marked with its interval and the latency- and bandwidth-dominated sizes
shaded; one panel per curve so the shading of one curve never lies over another's. The bars:
errorbars.py."""
import textwrap

import numpy as np

from plots.figures import errorbars
from plots.figures.common import (time_axis, FigureError, Options, Plot, fit_rows, headline_row,
                                  label, new_figure, require_fits)
from plots.resultfile import curves, key_dict
from plots.sizes import format_size, size_axis


def _model(result, key):
    """(the /fits rows to draw, what the panel says of them): line and words from one rule. The
    headline judges the piecewise model whole (its held-out misfit), each segment its own
    numbers: a segment is drawn only where both trust it, and each one not drawn is said. A file
    fitted before schema 5 has no headline: its segments judge alone."""
    mode = key_dict(key)["mode"]
    segments = fit_rows(result, key)
    row = headline_row(result, key)
    if row is not None and not result.headlines["trusted"][row]:
        return [], [f"{mode}-mode fit untrusted ({result.headlines['flags'][row]}): "
                    "no model drawn"]
    if not segments:
        return [], [f"no {mode}-mode fit of this curve: no model drawn"]
    drawn = [i for i in segments if result.fits["trusted"][i]]
    if not drawn:
        return [], [f"no {mode}-mode segment trusted: no model drawn"]
    return drawn, [f"{mode}-mode segment {result.fits['segment'][i] + 1} of {len(segments)} "
                   f"untrusted ({result.fits['flags'][i]}): not drawn"
                   for i in segments if i not in drawn]


def draw(result, options: Options):
    require_fits(result, "latency")
    points = result.points
    groups = curves(points, "latency")
    if not groups:
        raise FigureError("figure 'latency' needs latency-mode points; the file has none "
                          "(run with --mode latency or both)")
    figure, axes = new_figure(result, "Latency-mode median time vs size, with the latency-mode "
                              "alpha-beta fit where trusted", panels=len(groups), width=6.2,
                              height=4.6)
    data = {}
    for axis, (key, rows) in zip(axes, groups.items()):
        sizes = points["size_bytes"][rows].astype(float)
        median = points["time_median_us"][rows]
        low, high, kinds = errorbars.bars(result, rows)
        for kind, words in errorbars.KINDS.items():
            shown = kinds == kind
            if shown.any():
                # A point without a usable interval is hollow: its bar is no precision.
                axis.errorbar(sizes[shown], median[shown],
                              yerr=[np.maximum(median - low, 0)[shown],
                                    np.maximum(high - median, 0)[shown]],
                              fmt="o", markersize=4, capsize=2, color="C0",
                              markerfacecolor="C0" if kind == "ci" else "white",
                              label=f"median ({words})")
        entry = {"point_id": points["point_id"][rows], "size_bytes": sizes,
                 "time_median_us": median, "err_low_us": low, "err_high_us": high,
                 "error_kind": kinds, "segments": []}
        segments, notes = _model(result, key)
        for i in segments:
            fit = result.fits
            n = np.geomspace(max(fit["min_size_bytes"][i], 1), max(fit["max_size_bytes"][i], 1), 50)
            model = fit["alpha_us"][i] + fit["beta_ns_per_byte"][i] * n / 1000  # ns -> us
            axis.plot(n, model, color="C3", linewidth=1.8,
                      label=f"{key_dict(key)['mode']}-mode fit α + β·n" if i == segments[0]
                      else None)
            entry["segments"].append({"alpha_us": fit["alpha_us"][i],
                                      "beta_ns_per_byte": fit["beta_ns_per_byte"][i],
                                      "min_size_bytes": fit["min_size_bytes"][i],
                                      "max_size_bytes": fit["max_size_bytes"][i]})
        lo, hi = sizes.min() / 1.5, sizes.max() * 1.5
        row = headline_row(result, key)
        if row is not None:
            # The headline's n½: small-message alpha over large-message beta.
            h = result.headlines
            half = h["half_size_bytes"][row]
            span = (h["half_size_ci_low_bytes"][row], h["half_size_ci_high_bytes"][row])
            trusted = bool(h["trusted"][row])
            entry.update(half_size_bytes=half, half_size_ci_bytes=span, trusted=trusted)
            if trusted and np.isfinite(half) and half > 0:
                edge = min(max(half, lo), hi)
                axis.axvspan(lo, edge, color="orange", alpha=0.12, label="latency-dominated (n < n½)")
                axis.axvspan(edge, hi, color="steelblue", alpha=0.10,
                             label="bandwidth-dominated (n > n½)")
                if np.all(np.isfinite(span)) and span[1] > lo and span[0] < hi:
                    axis.axvspan(max(span[0], lo), min(span[1], hi), color="gray", alpha=0.15,
                                 label="n½ 95% interval")
                if lo < half < hi:
                    axis.axvline(half, color="k", linestyle="--", linewidth=1)
                    axis.text(half, 0.97, f" n½ = {format_size(half)}",
                              transform=axis.get_xaxis_transform(), va="top", fontsize=8)
                else:
                    notes.append(f"n½ = {format_size(half)} (off scale)")
        if (kinds != "ci").any():
            notes.append(f"hollow, {errorbars.UNUSABLE}")
        entry["notes"] = notes
        if notes:
            # Under the axis, where constrained layout makes room: inside, they cover points.
            # Wrapped to about the axis' width, which constrained layout would narrow to fit.
            text = "\n".join(textwrap.fill(note, 90, subsequent_indent="  ") for note in notes)
            axis.annotate(text, xy=(0, 0), xycoords="axes fraction",
                          xytext=(0, -42), textcoords="offset points", va="top", fontsize=7)
        axis.set_xlim(lo, hi)
        size_axis(axis.xaxis, sizes, max_ticks=6)
        time_axis(axis)
        axis.set_title(label(key), fontsize=10)
        axis.set_xlabel("message size")
        axis.set_ylabel("time per operation (µs)")
        axis.grid(True, which="major", alpha=0.3)
        axis.legend(fontsize=7, loc="best", framealpha=0.9)
        data[label(key)] = entry
    return Plot(figure, data)
