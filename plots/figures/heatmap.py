"""heatmap: rank x size, each rank's median over the fastest rank's at that size, so a
straggler is a bright row; one panel per collective. Past a few dozen ranks a row is a host, the
slowest of its ranks."""
import numpy as np

from plots.figures.common import (Options, Plot, every_nth, new_figure, rank_groups,
                                  slowest_of_groups, warn_of_binding, whole_job_rows)
from plots.sizes import format_size


def draw(result, options: Options):
    groups = whole_job_rows(result)
    points = result.points
    figure, axes = new_figure(result, "Per-rank median / fastest rank's median, by size "
                              "(1 = as fast as the fastest)", panels=len(groups),
                              width=6.8, height=4.8)
    data = {}
    for axis, (collective, rows) in zip(axes, groups.items()):
        rows = sorted(rows, key=lambda r: points["size_bytes"][r])
        medians = result.rank_median_us[rows]                    # [size, world rank]
        ranks = np.flatnonzero(np.any(np.isfinite(medians), axis=0))
        medians = medians[:, ranks]
        by_rank = medians / np.nanmin(medians, axis=1, keepdims=True)   # [size, rank]
        groups = rank_groups(result, ranks)
        ratio = slowest_of_groups(by_rank, groups)                       # [size, row]
        image = axis.imshow(ratio.T, aspect="auto", cmap="viridis", origin="lower",
                            vmin=1, vmax=max(1.5, float(np.nanmax(ratio))))
        sizes = points["size_bytes"][rows]
        # At most a dozen labels a side, evenly spread: past about 16 they overprint.
        shown_sizes = every_nth(len(sizes))
        axis.set_xticks(shown_sizes, [format_size(sizes[i]) for i in shown_sizes], rotation=45,
                        ha="right", fontsize=8)
        shown_rows = every_nth(len(groups))
        axis.set_yticks(shown_rows, [groups[i][0] for i in shown_rows], fontsize=8)
        if ratio.size <= 300:   # numbers fit in the cells only while the grid is small
            for (s, r), value in np.ndenumerate(ratio):
                if np.isfinite(value):
                    axis.text(s, r, f"{value:.2f}", ha="center", va="center", fontsize=7,
                              color="white" if value < 1.25 else "black")
        axis.set_title(f"{collective} · {points['placement'][rows[0]]} · "
                       f"{points['nranks'][rows[0]]} ranks · {points['mode'][rows[0]]} mode",
                       fontsize=10)
        axis.set_xlabel("message size")
        if len(groups) < len(ranks):
            axis.set_ylabel("host: its slowest rank")
        figure.colorbar(image, ax=axis, label="median / fastest rank's median")
        data[collective] = {"point_id": points["point_id"][rows], "world_ranks": ranks,
                            "rows": [label for label, _ in groups],
                            "row_ranks": [ranks[columns] for _, columns in groups],
                            "ratio": ratio.T}
    return Plot(figure, data, warn_of_binding(figure, result))
