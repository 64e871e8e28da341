"""A result file's tables as pandas-ready columns, strings decoded: h5py returns the text of a
table as bytes (b"allreduce"), which compare equal to nothing a reader types.

    import pandas as pd
    from plots import frames                     # with the repository on sys.path
    points = pd.DataFrame(frames.table("results/run.h5", "points"))
    points[points.collective == "allreduce"]
"""
from plots import resultfile

TABLES = ("points", "topology", "fits", "headlines", "families", "crossovers")


def table(path, name="points"):
    """{column: numpy array} of /NAME, strings decoded; /points without a killed run's
    half-written row. Empty for a model table the file was never fitted into."""
    if name not in TABLES:
        raise ValueError(f"table {name!r}: expected one of {', '.join(TABLES)}")
    return getattr(resultfile.load(path), name)
