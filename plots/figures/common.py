"""What every figure shares: titles that say what and where, curve labels, bus factors."""
import dataclasses
import math
import textwrap

import matplotlib

matplotlib.use("Agg")  # files only: no display on cluster nodes or in CI
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
import numpy as np  # noqa: E402

from plots.resultfile import curves, key_dict  # noqa: E402


class FigureError(Exception):
    """This figure cannot be drawn from this file (the CLI exits 2 with the message)."""


class FigureSkipped(Exception):
    """Nothing to draw here; not an error unless the figure was asked for by name."""


@dataclasses.dataclass
class Options:
    size: int | None = None       # --size
    spec: dict | None = None      # parsed --spec
    baseline: object = None       # ResultFile of --baseline
    trend: dict | None = None     # --trend: collbench trend's JSON
    busbw_scale: str = "linear"   # --busbw-scale: a plateau reads as flat only on a linear axis


@dataclasses.dataclass
class Plot:
    figure: object
    data: dict   # what was drawn, as plain arrays, so tests compare it with the file
    warning: str = ""   # what the figure warns of under its panels, when anything


def where(result):
    """'mpi 4.1.4 · hosts vm · 3 ranks · 2026-11-30 06:25 UTC': the second line of every title."""
    a = result.attrs
    hosts = list(a.get("hosts") or [])
    host_text = ", ".join(hosts[:3]) + (f" +{len(hosts) - 3} more" if len(hosts) > 3 else "")
    version = str(a.get("backend_version", "")).split(",")[0]
    date = str(a.get("start_utc", "")).replace("T", " ").replace("Z", " UTC")
    parts = [f"{a.get('backend', '?')} ({version})" if version else str(a.get("backend", "?")),
             f"host{'s' if len(hosts) != 1 else ''} {host_text}" if hosts else None,
             f"{a.get('nranks', '?')} ranks", date or None,
             f"Slurm job {a['slurm_job_id']}" if a.get("slurm_job_id") else None]
    return " · ".join(p for p in parts if p)


def new_figure(result, what, panels=1, width=7.5, height=4.8, columns=None):
    columns = columns or min(panels, 3)
    rows = math.ceil(panels / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(width * columns, height * rows),
                                squeeze=False, layout="constrained")
    figure.suptitle(f"{what}\n{where(result)}", fontsize=12)
    for extra in axes.flat[panels:]:
        extra.set_visible(False)
    return figure, list(axes.flat[:panels])


def binding_warning(result):
    """The warning `collbench run` records when its ranks were not bound one per core and
    spinning, else "": per-rank times measured so are the scheduler's as much as the ranks'."""
    return str(result.attrs.get("binding_warning") or "").strip()


def warn_of_binding(figure, result):
    """A per-rank figure of a run with a binding warning says it under its panels, in red, and
    returns it (Plot.warning)."""
    warning = binding_warning(result)
    if warning:
        # About 12 characters an inch at 10 points: the warning wraps rather than run off.
        text = textwrap.fill(f"Measured with a warning: {warning}",
                             int(figure.get_figwidth() * 12))
        figure.supxlabel(text, color="firebrick", fontsize=10)
    return warning


def label(key, with_collective=True, with_mode=False):
    """'allreduce · world · 3 ranks', plus the root, pinned tuning, in-place and a latency
    started at a barrier when set."""
    k = key_dict(key)
    parts = [k["collective"]] if with_collective else []
    parts += [k["placement"], f"{k['nranks']} ranks"]
    if k["root"] >= 0:
        parts.append(f"root {k['root']}")
    if k["algorithm"] or k["protocol"]:
        parts.append("/".join(p for p in (k["algorithm"], k["protocol"]) if p))
    if k["in_place"]:
        parts.append("in place")
    if with_mode:
        parts.append(k["mode"])
    if k["mode"] == "latency" and k["sync"] == "barrier":
        parts.append("sync barrier")
    return " · ".join(parts)


def preferred_mode(points, order):
    """The first of `order` that the file measured."""
    modes = set(points["mode"])
    for mode in order:
        if mode in modes:
            return mode
    raise FigureError("the file holds no points")


def fit_rows(result, key):
    """Rows of /fits for one curve, by segment; empty when the file has no fits for it."""
    if not result.fits:
        return []
    rows = curves(result.fits).get(key, [])
    return sorted((i for i in rows if result.fits["segments"][i] > 0),
                  key=lambda i: result.fits["segment"][i])


def headline_row(result, key):
    """The /headlines row of one curve, or None (no fits, or fitted before schema 5)."""
    rows = curves(result.headlines).get(key, []) if result.headlines else []
    return rows[0] if rows else None


def require_fits(result, figure):
    if not result.fits:
        raise FigureError(f"figure '{figure}' needs fits and {result.path} has none; "
                          f"run `collbench fit {result.path}` first")


def tidy_legend(axis, **kwargs):
    """A legend outside nothing it covers: lower-right inside when small, else below the axes."""
    handles, labels = axis.get_legend_handles_labels()
    if not handles:
        return
    if len(handles) <= 6:
        axis.legend(fontsize=8, framealpha=0.9, **kwargs)
    else:
        axis.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16),
                    ncol=2, frameon=False)


def whole_job_rows(result):
    """Collective -> rows of its whole-job latency-mode points (world placement; else the
    largest communicator), where every rank's time is kept: what straggler figures read."""
    points = result.points
    mode = preferred_mode(points, ("latency", "bandwidth"))
    out = {}
    for key, rows in curves(points, mode).items():
        k = key_dict(key)
        rank = (k["placement"] == "world", k["nranks"], not k["in_place"])
        best = out.get(k["collective"])
        if best is None or rank > best[0]:
            out[k["collective"]] = (rank, rows)
    return {c: rows for c, (_, rows) in out.items()}


# Past this many ranks the per-rank figures show a row or a box per host: a rank each would
# overprint, and a slow rank's host is what an operator acts on.
RANKS_SHOWN_ONE_BY_ONE = 32


def rank_groups(result, world_ranks):
    """(label, column indexes) per row of a per-rank figure over `world_ranks`: a rank each up to
    RANKS_SHOWN_ONE_BY_ONE ranks, else a host each, hosts in the order of their first rank."""
    if len(world_ranks) <= RANKS_SHOWN_ONE_BY_ONE:
        return [(f"rank {r} ({result.host_of(int(r))})", [c]) for c, r in enumerate(world_ranks)]
    hosts = {}
    for column, rank in enumerate(world_ranks):
        hosts.setdefault(result.host_of(int(rank)), []).append(column)
    return [(f"{host} ({len(columns)} ranks)", columns) for host, columns in hosts.items()]


def slowest_of_groups(values, groups):
    """[row, group] from [row, column] `values`: each group's largest column, NaN skipped."""
    return np.stack([np.fmax.reduce(values[:, columns], axis=1) for _, columns in groups], axis=1)


_MOST_LABELS = 12


def every_nth(count):
    """Indexes of at most _MOST_LABELS axis labels out of `count`, evenly spaced, the first kept:
    past about 16 they overprint."""
    return list(range(0, count, -(-count // _MOST_LABELS)))


def time_axis(axis):
    """Log time axis labelled 20, 50, 100 µs rather than 2×10¹: plain numbers read faster, and
    labelling the 2 and 5 minor ticks keeps a short range from showing one label or none."""
    import matplotlib.ticker as ticker
    axis.set_yscale("log")
    # "{:g}" turns 1000000 into 1e+06 beside plain neighbours; group thousands instead.
    plain = ticker.FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}")
    axis.yaxis.set_major_formatter(plain)
    axis.yaxis.set_minor_locator(ticker.LogLocator(base=10, subs=(2, 5)))
    axis.yaxis.set_minor_formatter(plain)
