"""A sweep of the library collectives (`run --list-ops`) under real mpirun with 2, 3 and 4
ranks: validation clean, the file read back with h5py agrees with itself, with numpy's
statistics and with the printed table; a fabric that damages one element is caught at every
point of each."""
import json
import subprocess

import h5py
import numpy as np
import pytest

from conftest import ROOT as CHECKOUT
from conftest import (FIXED_COUNT, QUICK, library_collectives, run_mpi, run_plain, run_preloaded,
                      schema_version, table_rows, text)

# nccl-tests' bus-bandwidth factors (its PERFORMANCE.md), written out here, not read from
# collbench, so that a wrong descriptor fails.
BUS_FACTOR = {"allreduce": lambda p: 2 * (p - 1) / p,
              "allgather": lambda p: (p - 1) / p,
              "reduce_scatter": lambda p: (p - 1) / p,
              "alltoall": lambda p: (p - 1) / p,
              "broadcast": lambda p: 1.0,
              "reduce": lambda p: 1.0,
              "gather": lambda p: (p - 1) / p,
              "scatter": lambda p: (p - 1) / p,
              "sendrecv": lambda p: 1.0}
LIBRARY_COLLECTIVES = ",".join(library_collectives())
ROOTED = {"broadcast", "reduce", "gather", "scatter"}
ROOT = 1  # not rank 0, so that a backend that ignores the root shows


@pytest.fixture(scope="module", params=[2, 3, 4])
def sweep(request, tmp_path_factory):
    nranks = request.param
    out = tmp_path_factory.mktemp(f"np{nranks}") / "sweep.h5"
    # At 2 ranks the stopping rule decides, so that the table's marks of points it stopped short
    # meet real ones; as each point may take all of --max-time, on two types only (every type of
    # allreduce and reduce_scatter on 2 ranks: test_nccl_backend's `-d all`). At 3 and 4 the
    # sweep is about validation: a fixed count, five types.
    if nranks == 2:
        sampling, datatypes = QUICK, "int8,float"
    else:
        sampling, datatypes = FIXED_COUNT, "int8,uint32,int64,float,double"
    # Every sample kept, so that the statistics can be checked against them.
    result = run_mpi(nranks, ["run", "-b", "8", "-e", "64K", "-f", "16", "--inplace",
                              "--ops", LIBRARY_COLLECTIVES, "-r", str(ROOT),
                              "-d", datatypes, "-o", "all",
                              "--keep-samples", "all", "--out", str(out), *sampling])
    assert result.returncode == 0, result.stderr
    return nranks, out, result


def test_damaged_results_are_counted_at_every_point(tmp_path, interposer):
    """The last rank's result loses one byte in every measured collective: validation, reading
    the result where the collective left it, finds it at every point, and the run says so."""
    out = tmp_path / "damaged.h5"
    result = run_preloaded(2, ["run", "-b", "8", "-e", "1M", "-f", "64", "--inplace",
                               "--ops", LIBRARY_COLLECTIVES, "-r", "0", "--out", str(out),
                               *FIXED_COUNT],
                           interposer("corrupt_collectives"), CORRUPT_WHAT="float")
    assert result.returncode == 1, result.stderr
    with h5py.File(out, "r") as f:
        points = f["points"][()]
    # collectives x sizes x in place x modes
    assert len(points) == len(LIBRARY_COLLECTIVES.split(",")) * 3 * 2 * 2
    assert (points["wrong"] >= 1).all(), points["wrong"]
    assert "# Out of bounds values : 0 OK" not in result.stdout


def test_every_point_validates_clean(sweep):
    nranks, out, result = sweep
    with h5py.File(out, "r") as f:
        points = f["points"][()]
        assert f.attrs["complete"] == 1
        assert f.attrs["nranks"] == nranks
    collectives = {text(c) for c in points["collective"]}
    assert collectives == set(LIBRARY_COLLECTIVES.split(","))
    for point in points:
        assert point["root"] == (ROOT if text(point["collective"]) in ROOTED else -1)
    assert {text(o) for o in points["redop"]} >= {"sum", "prod", "min", "max"}
    assert set(points["in_place"]) == {0, 1}
    assert (points["wrong"] == 0).all()
    assert (points["wrong_after_timing"] == 0).all()  # the last round checked after timing
    assert "# Out of bounds values : 0 OK" in result.stdout


def test_statistics_match_numpy_on_the_raw_samples(sweep):
    nranks, out, _ = sweep
    with h5py.File(out, "r") as f:
        points = f["points"][()]
        medians = f["rank_median_us"][()]
        for index, point in enumerate(points):
            stored = f["samples"][f"{point['point_id']:06d}"]
            assert stored.dtype == np.float32
            # The statistics are of the stored values exactly, in double precision.
            raw = stored[()].astype(np.float64)
            assert raw.shape == (point["samples"], nranks)
            slowest = raw.max(axis=1)  # a sample is the slowest rank's time
            assert point["time_median_us"] == pytest.approx(np.median(slowest), rel=1e-9)
            assert point["time_p99_us"] == pytest.approx(np.percentile(slowest, 99), rel=1e-9)
            assert point["time_min_us"] == pytest.approx(slowest.min(), rel=1e-9)
            assert point["time_median_ci_low_us"] <= point["time_median_us"] <= point["time_median_ci_high_us"]
            assert medians[index] == pytest.approx(np.median(raw, axis=0), rel=1e-9)


def test_bandwidths_follow_nccl_tests_definitions(sweep):
    nranks, out, _ = sweep
    for point in h5py.File(out, "r")["points"][()]:
        algbw = point["size_bytes"] / (point["time_median_us"] * 1e-6) / 1e9
        assert point["algbw_GBps"] == pytest.approx(algbw, rel=1e-6)
        factor = BUS_FACTOR[text(point["collective"])](nranks)
        assert point["busbw_GBps"] == pytest.approx(algbw * factor, rel=1e-6)


def test_table_agrees_with_the_file(sweep):
    nranks, out, result = sweep
    points = h5py.File(out, "r")["points"][()]
    rows = table_rows(result.stdout)
    reported = json.loads(run_plain(["report", str(out), "--format", "json"]).stdout)["points"]
    headline = points[(points["mode"] == b"bandwidth") & (points["in_place"] == 0)]
    assert len(rows) == len(headline)
    for row, point in zip(rows, headline):
        size, count, dtype, redop, root, time_us, algbw, busbw, wrong = row[:9]
        assert int(size) == point["size_bytes"] and int(count) == point["count"]
        assert dtype == text(point["datatype"]) and redop == text(point["redop"])
        assert int(root) == point["root"] and wrong == "0"
        assert float(time_us) == pytest.approx(point["time_median_us"], abs=0.006)
        assert float(busbw) == pytest.approx(point["busbw_GBps"], abs=0.006)
        # The last field marks a row whose points did not all reach their interval, but for a
        # point whose rounds disagree and whose own token (+-x%) says that is why.
        same_row = [p for p in reported if
                    (p["size_bytes"], p["collective"], p["datatype"], p["redop"]) ==
                    (point["size_bytes"], text(point["collective"]), dtype, redop)]
        stopped_short = any((p["stop_reason"] not in ("converged", "fixed_count") or
                             p["samples"] < 6) and
                            not (p["stop_reason"] == "round_noise" and
                                 p["ci_mark"].startswith("+-")) for p in same_row)
        assert row[-1].endswith("!") == stopped_short, (row, same_row)


def test_footer_counts_how_each_point_stopped(sweep):
    """The last line says how many points reached the precision target and what stopped the
    others, as the file's stop_reason column has it."""
    _, out, result = sweep
    with h5py.File(out, "r") as f:
        reasons = [text(r) for r in f["points"]["stop_reason"]]
    words = {"converged": "reached the 1% target", "max_time": "stopped at --max-time",
             "time_limit": "stopped by --time-limit", "fixed_count": "fixed by -n",
                 "round_noise": "held back by the spread between rounds"}
    expected = ", ".join(f"{reasons.count(reason)} {words[reason]}" for reason in words
                         if reasons.count(reason))
    (footer,) = [l for l in result.stdout.splitlines() if l.startswith(f"# {len(reasons)} points in")]
    assert f"({expected}); results in" in footer, (footer, expected)


def test_footer_says_how_far_apart_the_held_back_points_rounds_lay(sweep):
    """A line before the last gives the spread of the rounds (the table's +-x%) of the points
    their rounds held back: its median over them, and their least and most."""
    _, out, result = sweep
    reported = json.loads(run_plain(["report", str(out), "--format", "json"]).stdout)["points"]
    spreads = sorted(p["round_spread_rel"] for p in reported
                     if p["stop_reason"] == "round_noise" and p["round_spread_rel"] is not None)
    lines = [l for l in result.stdout.splitlines() if l.startswith("# held back: ")]
    if not spreads:
        assert lines == []
        return
    percent = lambda f: f"{100 * f:.1f}%" if 100 * f < 10 else f"{100 * f:.0f}%"
    (line,) = lines
    assert f"the rounds of {len(spreads)} points disagreed" in line, line
    assert f"±{percent(float(np.median(spreads)))} of their middle at the median point" in line
    assert f"(±{percent(spreads[0])} to ±{percent(spreads[-1])})" in line, line


def test_report_prints_the_same_table(sweep):
    _, out, result = sweep
    report = run_plain(["report", str(out)])
    assert report.returncode == 0, report.stderr
    assert table_rows(report.stdout) == table_rows(result.stdout)
    fit_lines = lambda text: [l for l in text.splitlines() if l.startswith("# fit ")]
    assert fit_lines(result.stdout) and fit_lines(report.stdout) == fit_lines(result.stdout)


@pytest.mark.parametrize("fmt", ["csv", "json", "jsonl", "markdown"])
def test_report_formats_carry_every_point(sweep, fmt):
    _, out, _ = sweep
    points = h5py.File(out, "r")["points"][()]
    report = run_plain(["report", str(out), "--format", fmt])
    assert report.returncode == 0, report.stderr
    lines = report.stdout.strip().splitlines()
    if fmt == "csv":
        header = lines[0].split(",")
        assert len(lines) == len(points) + 1
        medians = [float(line.split(",")[header.index("time_median_us")]) for line in lines[1:]]
        assert medians == pytest.approx(list(points["time_median_us"]))
    elif fmt == "json":
        document = json.loads(report.stdout)
        assert len(document["points"]) == len(points)
        assert document["points"][0]["collective"] == text(points[0]["collective"])
    elif fmt == "jsonl":
        records = [json.loads(line) for line in lines]
        assert [r["size_bytes"] for r in records] == list(points["size_bytes"])
    else:
        assert len([l for l in lines if l.startswith("| ") and "---" not in l]) == len(points) + 1


def checkout_revision():
    """This checkout's commit as the build records it: 12 digits, -dirty for a changed tree."""
    git = lambda *args: subprocess.run(["git", *args], cwd=CHECKOUT, capture_output=True,  # noqa: E731
                                       text=True)
    dirty = git("diff", "--quiet", "HEAD", "--").returncode != 0
    return git("rev-parse", "--short=12", "HEAD").stdout.strip() + ("-dirty" if dirty else "")


def test_provenance_and_topology(sweep):
    nranks, out, _ = sweep
    with h5py.File(out, "r") as f:
        assert text(f.attrs["schema"]) == "collbench-results"
        assert f.attrs["schema_version"] == schema_version()
        assert text(f.attrs["backend"]) == "mpi"
        assert "Open MPI" in text(f.attrs["backend_version"])
        assert "--out" in text(f.attrs["command_line"])
        assert text(f.attrs["git_revision"]) == checkout_revision()
        assert text(f.attrs["start_utc"]) <= text(f.attrs["end_utc"])
        topology = f["topology"][()]
        assert list(topology["rank"]) == list(range(nranks))
        assert sorted(topology["local_rank"]) == list(range(nranks))
        assert all(text(h) for h in topology["host"])
        env = {key: text(value) for key, value in f["environment"].attrs.items()}
        assert env["OMPI_COMM_WORLD_SIZE"] == str(nranks)
        # Open MPI does not say which algorithm it chose: the columns are there, and empty.
        points = f["points"][()]
        assert set(points["chosen_algorithm"]) == {b""}
        assert set(points["chosen_protocol"]) == {b""}
        assert set(points["chosen_channels"]) == {0}
        # The timer's step, measured before the sweep, is each point's over its loop.
        step_us = f.attrs["timer_step_ps"] * 1e-6
        assert f.attrs["timer_step_ps"] == 0 or 5000 <= f.attrs["timer_step_ps"] <= 100000
        assert points["sample_step_us"] == pytest.approx(step_us / points["ops_per_sample"])
        # The plausibility bound, measured before the sweep: a copy of each size from 4 KiB to
        # the largest buffer by 4, and an empty call; no real point lies past it.
        copies = sorted(int(k.rsplit("_", 1)[1]) for k in f.attrs
                        if k.startswith("plausibility_copy_MBps_at_"))
        assert copies[0] == 4096 and all(b == 4 * a for a, b in zip(copies, copies[1:-1]))
        assert all(f.attrs[f"plausibility_copy_MBps_at_{b}"] > 0 for b in copies)
        assert f.attrs["plausibility_empty_call_ps"] > 0 and f.attrs["plausibility_margin"] == 4
        assert set(points["implausible"]) == {b""}
        # The host-state probe: the same sizes, at the start, after half the sweep's curves
        # and at the end.
        probe = f["host_probe"][()]
        assert [text(m) for m in dict.fromkeys(probe["moment"])] == ["start", "middle", "end"]
        for moment in (b"start", b"middle", b"end"):
            assert sorted(probe["size_bytes"][probe["moment"] == moment]) == copies
        assert (probe["copy_GBps"] > 0).all()
        assert text(f["host_probe"].attrs["units"]) == "per field name: _GBps 10^9 bytes/s, _bytes bytes"


def test_done_when_command():
    """`mpirun -np 3 collbench run -b 8 -e 1M -f 4`, exactly, with the default stopping rule."""
    result = run_mpi(3, ["run", "-b", "8", "-e", "1M", "-f", "4", "--out", "/dev/shm/collbench-done-when.h5", "--force"])
    try:
        assert result.returncode == 0, result.stderr
        sizes = {int(row[0]) for row in table_rows(result.stdout)}
        assert 8 in sizes and 524288 in sizes
        assert "# Avg bus bandwidth" in result.stdout
    finally:
        import os
        os.remove("/dev/shm/collbench-done-when.h5")
