"""ranks-distribution: every rank's per-sample times at one size, a box per world rank, so a
slow rank (and the host it runs on) stands out. Past a few dozen ranks a box is a host: per
sample, the slowest of its ranks, as a sample's time is the slowest rank's."""
import numpy as np

from plots.figures.common import (FigureError, Options, Plot, new_figure, rank_groups,
                                  slowest_of_groups, warn_of_binding, whole_job_rows)
from plots.sizes import format_size, same_size


def draw(result, options: Options):
    groups = whole_job_rows(result)
    points = result.points
    figure, axes = new_figure(result, "Per-rank time distribution at one size",
                              panels=len(groups), width=6.5, height=4.6)
    data = {}
    for axis, (collective, rows) in zip(axes, groups.items()):
        sizes = points["size_bytes"][rows]
        if options.size:
            matching = [r for r in rows if same_size(points["size_bytes"][r], options.size)]
            if not matching:
                raise FigureError(f"figure 'ranks-distribution': {collective} has no point of "
                                  f"size {format_size(options.size)}")
            row = matching[0]
        else:
            row = rows[int(np.argmax(sizes))]
        stored = result.samples(points["point_id"][row])
        if stored is None:
            raise FigureError(f"figure 'ranks-distribution': point {points['point_id'][row]} "
                              "has no per-rank samples in /samples")
        times, world_ranks, _ = stored
        groups = rank_groups(result, world_ranks)
        boxes = slowest_of_groups(times, groups)
        axis.boxplot([boxes[:, b] for b in range(boxes.shape[1])], showfliers=True,
                     flierprops={"markersize": 3})
        axis.set_xticks(range(1, len(groups) + 1),
                        [label.replace(" (", "\n(") for label, _ in groups],
                        fontsize=8, rotation=0 if len(groups) <= 12 else 90)
        axis.set_title(f"{collective} · {points['placement'][row]} · "
                       f"{points['nranks'][row]} ranks · {format_size(points['size_bytes'][row])}"
                       f" · {points['mode'][row]} mode", fontsize=10)
        axis.set_ylabel("time per operation (µs)" if len(groups) == len(world_ranks) else
                        "per sample, the host's slowest rank (µs)")
        axis.grid(True, axis="y", alpha=0.3)
        data[collective] = {"point_id": points["point_id"][row], "world_ranks": world_ranks,
                            "boxes": [label for label, _ in groups],
                            "box_ranks": [world_ranks[columns] for _, columns in groups],
                            "samples_us": boxes}
    return Plot(figure, data, warn_of_binding(figure, result))
