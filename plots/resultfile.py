"""Reads a collbench HDF5 result file into plain Python and NumPy structures (SCHEMA.md v1-10)."""
import dataclasses
import pathlib

import h5py
import numpy as np

SCHEMA = "collbench-results"
SCHEMA_VERSION = 10

# The columns that name a curve: every size of one of these is one line in a figure and one fit.
CURVE_KEY = ("backend", "collective", "datatype", "redop", "placement", "algorithm", "protocol",
             "nranks", "mode", "in_place")


class ResultFileError(Exception):
    """The file cannot be used: missing, not HDF5, foreign, or from a newer collbench."""


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

    def samples(self, point_id):
        """(times [sample, column] in us as float64, world ranks of the columns), or None when not
        stored. Schema 9 keeps float32: NumPy's median and percentiles of float32 are float32."""
        with h5py.File(self.path, "r") as f:
            name = f"samples/{int(point_id):06d}"
            if name not in f:
                return None
            dataset = f[name]
            return dataset[()].astype(np.float64), np.asarray(dataset.attrs["world_ranks"])

    def host_of(self, rank):
        ranks = list(self.topology.get("rank", []))
        return self.topology["host"][ranks.index(rank)] if rank in ranks else "?"

    def point_count(self):
        return len(self.points.get("point_id", []))


def _table(dataset, rows=None):
    """A compound dataset as column -> array, text as str. h5py returns a compound's text as
    bytes, whether the file keeps it variable-length (schema 8) or fixed-length (before)."""
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
    # Files before version 5 lack p*'s interval, before 7 the families' coefficients: NaN.
    for name in ("crossover_ranks_ci_low", "crossover_ranks_ci_high"):
        if name not in columns and "crossover_ranks" in columns:
            columns[name] = np.full(len(data), np.nan)
    for name in ("latency_per_peer", "latency_per_doubling", "bandwidth_per_share",
                 "bandwidth_whole"):
        if name not in columns and "rank_counts" in columns:
            columns[name] = np.full(len(data), np.nan)
    return columns


def _finished_rows(f):
    """How many rows of /points belong to finished points. A killed run's last row may be
    unfinished, its text perhaps missing from the file: reading that text fails or crashes HDF5
    1.10, and h5py reads a row's text whichever of its columns is asked for. Before schema 10 the
    table did not count its finished rows, so a killed run's last row is left out."""
    points = f["points"]
    if int(f.attrs.get("complete", 0)) == 1:
        return len(points)
    if "finished_rows" in points.attrs:
        return int(points.attrs["finished_rows"])
    return max(len(points) - 1, 0)


def _attr(value):
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.ndarray):
        return [_attr(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return value.item()
    return value


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
        if attrs.get("schema") != SCHEMA:
            raise ResultFileError(f"{path}: not a collbench result file "
                                  f"(schema attribute is {attrs.get('schema')!r}, "
                                  f"expected {SCHEMA!r})")
        if int(attrs.get("schema_version", 0)) > SCHEMA_VERSION:
            raise ResultFileError(f"{path}: schema_version {attrs['schema_version']} is newer "
                                  f"than this plotter knows ({SCHEMA_VERSION})")
        if "points" not in f:
            raise ResultFileError(f"{path}: holds no /points table")
        rows = _finished_rows(f)
        points = _table(f["points"], rows)
        medians = f["rank_median_us"][:rows] if "rank_median_us" in f else np.empty((0, 0))
        return ResultFile(
            path=path, attrs=attrs, points=points,
            topology=_table(f["topology"]) if "topology" in f else {},
            rank_median_us=medians,
            fits=_table(f["fits"]) if "fits" in f and len(f["fits"]) else {},
            headlines=(_table(f["headlines"])
                       if "headlines" in f and len(f["headlines"]) else {}),
            families=_table(f["families"]) if "families" in f and len(f["families"]) else {},
            crossovers=(_table(f["crossovers"])
                        if "crossovers" in f and len(f["crossovers"]) else {}),
            environment=({k: _attr(v) for k, v in f["environment"].attrs.items()}
                         if "environment" in f else {}))


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
