"""What a latency point's error bar can honestly show. The stored 95% interval of the median
where it is a precision: the point converged and the interval reaches no further from the median
than the median itself (the table's `ci` column at most 100%). A bar from a tenth of the point to
six times it says nothing about where the median is; such a point's bar spans instead the
medians of its rounds (from the samples the file keeps, split at `round_starts`), which say how
far apart the rounds measured, or p5–p95 of its samples where fewer than two rounds were kept."""
import numpy as np

# Per point, what its bar spans: the legend's words for each.
KINDS = {
    "ci": "95% CI of the median",
    "rounds": "no usable CI; bar: its rounds' medians",
    "spread": "no usable CI; bar: p5–p95 of its samples",
}
UNUSABLE = "no usable CI: the point did not converge, or its 95% CI reaches past ±100% of it"
# The stop reasons after which the interval met the target (SCHEMA.md, `time_median_ci_low_us`).
_CONVERGED = ("converged", "fixed_count")
_FEWEST_FOR_AN_INTERVAL = 6


def relative_ci(median, low, high):
    """As the table's `ci` column: the interval's farther end from the median, over the median."""
    return np.maximum(median - low, high - median) / median


def usable_ci(points, rows):
    """Per row: whether its stored interval is a precision worth drawing."""
    median = points["time_median_us"][rows]
    low, high = points["time_median_ci_low_us"][rows], points["time_median_ci_high_us"][rows]
    converged = (np.isin(points["stop_reason"][rows], _CONVERGED)
                 & (points["samples"][rows] >= _FEWEST_FOR_AN_INTERVAL))
    with np.errstate(invalid="ignore", divide="ignore"):
        return (np.isfinite(low) & (high > 0) & converged
                & (relative_ci(median, low, high) <= 1))


def round_medians(result, point_id):
    """The median of each round's kept samples (a sample's time its slowest column, as in
    /points), or None when fewer than two rounds kept any."""
    stored = result.samples(point_id)
    if stored is None:
        return None
    times, _, round_starts = stored
    rounds = [r for r in np.split(times.max(axis=1), round_starts[1:]) if len(r)]
    return np.array([np.median(r) for r in rounds]) if len(rounds) >= 2 else None


def bars(result, rows):
    """(low, high, kind) per row of /points: the ends of each point's bar, and which of KINDS."""
    points = result.points
    low = points["time_median_ci_low_us"][rows].astype(float)
    high = points["time_median_ci_high_us"][rows].astype(float)
    kind = np.full(len(rows), "ci", dtype=object)
    for i in np.flatnonzero(~usable_ci(points, rows)):
        medians = round_medians(result, points["point_id"][rows[i]])
        if medians is not None:
            low[i], high[i], kind[i] = medians.min(), medians.max(), "rounds"
        else:
            row = rows[i]
            low[i], high[i] = points["time_p5_us"][row], points["time_p95_us"][row]
            kind[i] = "spread"
    return low, high, kind
