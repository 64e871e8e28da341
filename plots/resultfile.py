"""Reads a collbench HDF5 result file into plain Python and NumPy structures (SCHEMA.md v1-20)."""
import dataclasses
import pathlib

import h5py
import numpy as np

SCHEMA = "collbench-results"
PREDICTIONS_SCHEMA = "collbench-predictions"
SCHEMA_VERSION = 23
# Schema 16 named the median's interval for what it covers, this launch's median.
_RENAMED_IN_16 = {"time_ci_low_us": "time_median_ci_low_us",
                  "time_ci_high_us": "time_median_ci_high_us"}

# The columns that name a curve: every size of one of these is one line in a figure and one fit
# (harness/store/curve_columns.h).
CURVE_KEY = ("backend", "collective", "datatype", "redop", "placement", "algorithm", "protocol",
             "nranks", "root", "mode", "sync", "in_place")


class ResultFileError(Exception):
    """The file cannot be used: missing, not HDF5, foreign, or from a newer collbench."""


@dataclasses.dataclass
class LinkTables:
    """What `collbench links` writes (schema 11); every table empty in a run's file."""
    points: dict = dataclasses.field(default_factory=dict)   # /links: a killed run's, finished
    fits: dict = dataclasses.field(default_factory=dict)     # /link_fits: written at the end
    slow_hosts: dict = dataclasses.field(default_factory=dict)
    shortfall: float | None = None   # the fraction below its peers that named a link or host


@dataclasses.dataclass
class PredictionTables:
    """What `collbench predict` writes (schema 12, 13), in a file of its own; empty in a run's."""
    predictions: dict = dataclasses.field(default_factory=dict)  # /predictions: nranks 0
    checks: dict = dataclasses.field(default_factory=dict)       # /prediction_checks
    measured: dict = dataclasses.field(default_factory=dict)     # /predicted_from


@dataclasses.dataclass
class LinkBounds:
    """/link_bounds, what `collbench fit RUN --links LINKS` writes: a row per judged point, its
    point_id a row of /points; empty when the run was never judged."""
    columns: dict = dataclasses.field(default_factory=dict)
    links_file: str = ""
    links_start_utc: str = ""


@dataclasses.dataclass
class ResultFile:
    path: pathlib.Path
    attrs: dict
    points: dict          # column -> array, strings decoded, a killed run's unfinished row dropped
    topology: dict        # column -> array, one row per world rank
    rank_median_us: np.ndarray   # [point row, world rank]
    fits: dict            # empty dict when the file has no fits
    headlines: dict       # one row per fitted curve (schema 5); empty before
    families: dict
    crossovers: dict
    environment: dict
    # /stragglers: the ranks and hosts named, no rows when nobody was; None before the run ended
    # (or in a file before schema 12)
    stragglers: dict | None = None
    is_links: bool = False   # a file of `collbench links`: its /points is empty
    links: LinkTables = dataclasses.field(default_factory=LinkTables)
    link_bounds: LinkBounds = dataclasses.field(default_factory=LinkBounds)
    is_predictions: bool = False   # a file of `collbench predict`: no points, no topology
    predictions: PredictionTables = dataclasses.field(default_factory=PredictionTables)

    def samples(self, point_id):
        """(times [sample, column] in us as float64, world ranks of the columns, the first kept
        sample of each round: [0] before schema 6, which measured in one round), or None when not
        stored. Schema 9 keeps float32: NumPy's median and percentiles of float32 are float32."""
        with h5py.File(self.path, "r") as f:
            name = f"samples/{int(point_id):06d}"
            if name not in f:
                return None
            dataset = f[name]
            return (dataset[()].astype(np.float64), np.asarray(dataset.attrs["world_ranks"]),
                    [int(s) for s in dataset.attrs.get("round_starts", [0])])

    def host_of(self, rank):
        ranks = list(self.topology.get("rank", []))
        return self.topology["host"][ranks.index(rank)] if rank in ranks else "?"

    def point_count(self):
        return len(self.points.get("point_id", []))


def _table(dataset, rows=None):
    """A compound dataset as column -> array, text as str. h5py returns a compound's text as
    bytes, whether the file keeps it fixed-length or variable-length (schema 8 to 20)."""
    data = dataset[()] if rows is None else dataset[:rows]
    columns = {}
    for name in data.dtype.names:
        column = data[name]
        text = h5py.check_string_dtype(dataset.dtype[name])
        if text:
            column = np.array([v.decode(text.encoding, "replace") for v in column], dtype=object)
        columns[name] = column
    # Version-2 files lack algorithm and protocol; SCHEMA.md says they read as empty.
    for name in ("algorithm", "protocol"):
        if name not in columns and "backend" in columns:
            columns[name] = np.array([""] * len(data), dtype=object)
    # Before version 17 no collective had a root; a curve's sync is _take_points_sync's.
    if "root" not in columns and "backend" in columns:
        columns["root"] = np.full(len(data), -1)
    # Files before version 5 lack p*'s interval, before 7 the families' coefficients: NaN.
    for name in ("crossover_ranks_ci_low", "crossover_ranks_ci_high"):
        if name not in columns and "crossover_ranks" in columns:
            columns[name] = np.full(len(data), np.nan)
    for name in ("latency_per_peer", "latency_per_doubling", "bandwidth_per_share",
                 "bandwidth_whole"):
        if name not in columns and "rank_counts" in columns:
            columns[name] = np.full(len(data), np.nan)
    return columns


def _measured_table(dataset, rows):
    """/points or /links: their columns under today's names, whichever schema wrote them."""
    columns = _table(dataset, rows)
    return {_RENAMED_IN_16.get(name, name): column for name, column in columns.items()}


def _finished_rows(f, name="points"):
    """How many rows of /points (or /links) belong to finished points. A killed run's last row
    may be unfinished, its text perhaps missing from the file: reading that text fails or crashes
    HDF5 1.10, and h5py reads a row's text whichever of its columns is asked for. Before schema 10
    the table did not count its finished rows, so a killed run's last row is left out."""
    table = f[name]
    if int(f.attrs.get("complete", 0)) == 1:
        return len(table)
    if "finished_rows" in table.attrs:
        return int(table.attrs["finished_rows"])
    return max(len(table) - 1, 0)


def _attr(value):
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.ndarray):
        return [_attr(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _links(f):
    if "links" not in f:
        return LinkTables()
    fits = f.get("link_fits")
    return LinkTables(
        points=_measured_table(f["links"], _finished_rows(f, "links")),
        fits=_table(fits) if fits is not None and len(fits) else {},
        slow_hosts=_table(f["slow_hosts"]) if "slow_hosts" in f and len(f["slow_hosts"]) else {},
        shortfall=float(fits.attrs["shortfall"]) if fits is not None else None)


def _link_bounds(f):
    if "link_bounds" not in f:
        return LinkBounds()
    table = f["link_bounds"]
    return LinkBounds(columns=_table(table) if len(table) else {},
                      links_file=_attr(table.attrs.get("links_file", "")),
                      links_start_utc=_attr(table.attrs.get("links_start_utc", "")))


def _nonempty_table(f, name):
    return _table(f[name]) if name in f and len(f[name]) else {}


def _predictions(path, attrs, f):
    """A file of `collbench predict` as a ResultFile whose run tables are empty."""
    return ResultFile(
        path=path, attrs=attrs, points={}, topology={}, rank_median_us=np.empty((0, 0)),
        fits={}, headlines={}, families={}, crossovers={}, environment={}, is_predictions=True,
        predictions=PredictionTables(predictions=_nonempty_table(f, "predictions"),
                                     checks=_nonempty_table(f, "prediction_checks"),
                                     measured=_nonempty_table(f, "predicted_from")))


def load(path):
    path = pathlib.Path(path)
    if not path.is_file():
        raise ResultFileError(f"{path}: no such file")
    try:
        f = h5py.File(path, "r")
    except OSError as error:
        raise ResultFileError(f"{path}: not a readable HDF5 file ({error})") from None
    with f:
        attrs = {k: _attr(v) for k, v in f.attrs.items()}
        if attrs.get("schema") not in (SCHEMA, PREDICTIONS_SCHEMA):
            raise ResultFileError(f"{path}: not a collbench result file "
                                  f"(schema attribute is {attrs.get('schema')!r}, "
                                  f"expected {SCHEMA!r})")
        if int(attrs.get("schema_version", 0)) > SCHEMA_VERSION:
            raise ResultFileError(f"{path}: schema_version {attrs['schema_version']} is newer "
                                  f"than this plotter knows ({SCHEMA_VERSION})")
        if attrs["schema"] == PREDICTIONS_SCHEMA:
            return _predictions(path, attrs, f)
        if "points" not in f:
            raise ResultFileError(f"{path}: holds no /points table")
        rows = _finished_rows(f)
        points = _measured_table(f["points"], rows)
        if "sync" not in points:  # before version 4 every sample started at a barrier
            points["sync"] = np.array(["barrier"] * len(points["mode"]), dtype=object)
        medians = f["rank_median_us"][:rows] if "rank_median_us" in f else np.empty((0, 0))
        models = {name: _take_points_sync(_table(f[name]), points)
                  if name in f and len(f[name]) else {}
                  for name in ("fits", "headlines", "families", "crossovers")}
        return ResultFile(
            path=path, attrs=attrs, points=points,
            topology=_table(f["topology"]) if "topology" in f else {},
            rank_median_us=medians, **models,
            environment=({k: _attr(v) for k, v in f["environment"].attrs.items()}
                         if "environment" in f else {}),
            stragglers=_table(f["stragglers"]) if "stragglers" in f else None,
            is_links="links" in f, links=_links(f), link_bounds=_link_bounds(f))


def _take_points_sync(table, points):
    """Before version 22 a curve was named without its sync: one run's latency points share
    one, and bandwidth loops start at a barrier (as the C++ reader takes it)."""
    if "sync" not in table and "mode" in table:
        latency = [s for m, s in zip(points["mode"], points["sync"]) if m == "latency"]
        table["sync"] = np.array([(latency[0] if latency else "window") if m == "latency"
                                  else "barrier" for m in table["mode"]], dtype=object)
    return table


def curves(columns, mode=None):
    """Curve key tuple -> row indices of `columns` (points or fits), in first-seen order."""
    out = {}
    for i in range(len(columns.get("collective", []))):
        if mode is not None and columns["mode"][i] != mode:
            continue
        key = tuple(columns[k][i].item() if hasattr(columns[k][i], "item") else columns[k][i]
                    for k in CURVE_KEY)
        out.setdefault(key, []).append(i)
    return out


def key_dict(key):
    return dict(zip(CURVE_KEY, key))
