"""What an older collbench wrote still reads. fixtures/schema7-mpi.h5.gz was written at schema 7,
text in tables fixed-length, which HDF5 does not convert to the variable-length text of schema 8:
report, fit and compare read it, and compare matches it point for point with a run of today."""
import gzip
import json
import re
import shutil

import h5py
import pytest

from conftest import ROOT, run_mpi, run_plain, schema_version, table_rows

FIXTURE = ROOT / "tests" / "integration" / "fixtures" / "schema7-mpi.h5.gz"
# The sweep that wrote the fixture (fixtures/README.md): 30 points.
SHAPE = ["-b", "8", "-e", "4K", "-f", "8", "--ops", "allreduce,allgather", "--ranks", "pow2",
         "-n", "10", "-w", "1"]
POINTS = 30


@pytest.fixture
def schema7(tmp_path):
    path = tmp_path / "schema7.h5"
    with gzip.open(FIXTURE) as packed, open(path, "wb") as unpacked:
        shutil.copyfileobj(packed, unpacked)
    with h5py.File(path, "r") as f:
        assert f.attrs["schema_version"] == 7
        text = h5py.check_string_dtype(f["points"].dtype["collective"])
        assert text.length == 16, "the fixture's text is not fixed-length"
    return path


def test_report_and_fit_read_a_schema_7_file(schema7):
    report = run_plain(["report", str(schema7)])
    assert report.returncode == 0, report.stderr
    rows = table_rows(report.stdout)
    assert len(rows) == POINTS // 2  # a row holds a size's latency and bandwidth points
    assert {row[2] for row in rows} == {"float"} and {row[3] for row in rows} == {"sum", "none"}

    fit = run_plain(["fit", str(schema7), "--format", "json"])
    assert fit.returncode == 0, fit.stderr
    curves = json.loads(fit.stdout)["curves"]
    assert {(c["collective"], c["nranks"], c["mode"]) for c in curves} == {
        (op, p, mode) for op in ("allreduce", "allgather") for p in (2, 4)
        for mode in ("latency", "bandwidth")}
    # fit stored its models as schema 8 does, beside the older points: both still read.
    again = run_plain(["report", str(schema7)])
    assert again.returncode == 0, again.stderr
    assert table_rows(again.stdout) == rows


def test_compare_matches_a_schema_7_baseline_point_for_point(schema7, tmp_path):
    today = tmp_path / "today.h5"
    done = run_mpi(4, ["run", *SHAPE, "--quiet", "--out", str(today)])
    assert done.returncode == 0, done.stderr
    with h5py.File(today, "r") as f:
        assert f.attrs["schema_version"] == schema_version()

    compare = run_plain(["compare", str(schema7), str(today)])
    assert compare.returncode in (0, 1), compare.stderr  # a verdict either way, not an error
    verdict = re.search(r"# verdict: \w+ \((\d+) same, (\d+) faster, (\d+) slower, (\d+) unsure, "
                        r"(\d+) noisy\)", compare.stdout)
    assert verdict, compare.stdout
    assert sum(int(n) for n in verdict.groups()) == POINTS
    assert f"# compare: {POINTS} points:" in compare.stdout
    assert "; 0 unmatched\n" in compare.stdout
