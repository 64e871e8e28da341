"""The run report's rows for /link_bounds: each judged point's measured time over the time its
links allow, and per curve that ratio at the smallest and the largest size and its median. Numbers
are formatted as `collbench report` prints them, so the page and the terminal agree."""
import numpy as np

from plots.figures.common import label
from plots.resultfile import curves, key_dict
from plots.sizes import format_size


def curve_label(key):
    """The summary's label ('allreduce · world · 2 ranks · float') and the mode: both modes of a
    curve are judged, and read differently."""
    k = key_dict(key)
    return f"{label(key)} · {k['datatype']} · {k['mode']}"


def _judged(result):
    """Curve key -> the /link_bounds rows of its points, smallest size first. Only rows whose
    point the loaded /points holds: a point left out of a killed run's table has no curve."""
    p, b = result.points, result.link_bounds.columns
    row_of_point = {int(pid): j for j, pid in enumerate(b.get("point_id", []))}
    out = {}
    for key, rows in curves(p).items():
        judged = sorted((int(p["size_bytes"][i]), row_of_point[i]) for i in rows
                        if i in row_of_point)
        if judged:
            out[key] = [j for _, j in judged]
    return out


def _at(b, p, j):
    return f"{b['ratio'][j]:.2f} at {format_size(p['size_bytes'][int(b['point_id'][j])])}"


def curve_rows(result):
    """[curve, points, ratio at the smallest size, at the largest, median ratio] per curve."""
    p, b = result.points, result.link_bounds.columns
    return [[curve_label(key), len(rows), _at(b, p, rows[0]), _at(b, p, rows[-1]),
             f"{np.median(b['ratio'][rows]):.2f}"] for key, rows in _judged(result).items()]


def point_rows(result):
    """[curve, size, kind, algorithm, alpha, bandwidth, predicted, measured, ratio] per point,
    curve by curve."""
    p, b = result.points, result.link_bounds.columns
    return [[curve_label(key), format_size(p["size_bytes"][int(b["point_id"][j])]), b["kind"][j],
             b["algorithm"][j], f"{b['alpha_us'][j]:.2f}", f"{b['bandwidth_GBps'][j]:.4g}",
             f"{b['predicted_us'][j]:.2f}", f"{b['measured_us'][j]:.2f}", f"{b['ratio'][j]:.2f}"]
            for key, rows in _judged(result).items() for j in rows]
