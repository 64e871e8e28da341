"""Stragglers named (docs/reading-results.md, "Stragglers"): a rank slowed by a test-only interposer is named,
alone, in the run's footer, in /stragglers and by report and fit; unloaded runs name nobody.
Real mpirun, oversubscribed as CI runs it; host naming across hosts is test_vcluster.py's."""
import json
import re

import h5py
import pytest

from conftest import QUICK, run_mpi, run_plain, run_preloaded, text

# 9 latency points at 3 and 4 ranks, 10 at 2: enough for a rank latest in every point to be
# named (at 2 ranks, p = 2 x 2^-10 = 0.002 after Holm's correction; alpha is 0.01).
SWEEP = ["run", "--mode", "latency", "-b", "8", "-e", "64K", "-f", "8", "--ops",
         "allreduce,allgather", *QUICK]
ALPHA = 0.01


def footer(stdout):
    return [line for line in stdout.splitlines() if line.startswith("# Straggler:")]


def caveats(stdout):
    return [line for line in stdout.splitlines() if line.startswith("# Stragglers named under")]


def stored(path):
    """(rows of /stragglers as dicts, its attributes, rank -> host)."""
    with h5py.File(path, "r") as f:
        table = f["stragglers"]
        rows = [{name: text(row[name]) if isinstance(row[name], bytes) else row[name].item()
                 for name in table.dtype.names} for row in table[()]]
        host_of = {int(r["rank"]): text(r["host"]) for r in f["topology"][()]}
        return rows, dict(table.attrs), host_of


def same(rows, others):
    """The same stragglers, their lags equal but for the last bits of a trip through seconds."""
    def exact(row):
        return {k: v for k, v in row.items() if k != "median_lag_us"}
    return [exact(r) for r in rows] == [exact(r) for r in others] and all(
        r["median_lag_us"] == pytest.approx(o["median_lag_us"]) for r, o in zip(rows, others))


def test_a_delayed_rank_is_named_alone_in_the_footer_the_file_report_and_fit(out, interposer):
    slow = 2
    result = run_preloaded(3, [*SWEEP, "--out", str(out)], interposer("delay_collectives"),
                           DELAY_RANK=slow, DELAY_US=200, DELAY_WHAT="data")
    assert result.returncode == 0, result.stderr
    rows, attrs, host_of = stored(out)

    lines = footer(result.stdout)
    assert len(lines) == 1, result.stdout
    assert re.match(rf"# Straggler: rank {slow} on host {re.escape(host_of[slow])} finished last "
                    r"in \d+ of 9 points \(chance 33% each, p = \S+\) and in \d+% of [\d,]+ "
                    r"samples, [\d.]+ [um]s behind the others at the median$", lines[0]), lines

    # Every rank shares one host, which therefore has nobody to be compared with.
    assert len(rows) == 1, rows
    row = rows[0]
    assert (row["rank"], row["host"], row["kind"]) == (slow, host_of[slow], "finishes_last")
    assert row["ranks"] == 3 and row["points"] == attrs["points"] == 9
    assert row["points_last"] >= 8 and row["times_last"] >= 0.9 * row["samples"]
    assert row["chance"] == pytest.approx(1 / 3) and row["p_value"] <= ALPHA
    assert row["median_lag_us"] >= 150  # a 200 us sleep, after an operation of microseconds
    assert attrs["alpha"] == ALPHA and attrs["lag_share"] == 0.25 and attrs["lag_floor_us"] == 1

    # Named among ranks that share the cores (3 on 2, yielding): the footer says so.
    with h5py.File(out, "r") as f:
        warning = text(f.attrs["binding_warning"])
    assert "oversubscribed" in warning
    caveat = [f"# Stragglers named under the warning '{warning}': a rank may be last for the "
              "scheduler's sake, not the machine's"]
    assert caveats(result.stdout) == caveat, result.stdout

    report = run_plain(["report", str(out)])
    assert report.returncode == 0, report.stderr
    assert footer(report.stdout) == lines
    assert caveats(report.stdout) == caveat
    as_json = run_plain(["report", str(out), "--format", "json"])
    assert as_json.returncode == 0, as_json.stderr
    assert same(json.loads(as_json.stdout)["stragglers"], rows)
    # fit names them again from the samples the file keeps: the same rank, the same numbers.
    fit = run_plain(["fit", str(out), "--format", "json"])
    assert fit.returncode == 0, fit.stderr
    assert same(json.loads(fit.stdout)["stragglers"], rows)
    assert same(stored(out)[0], rows)


def test_unloaded_runs_name_nobody_in_at_least_95_percent(tmp_path):
    named = []
    for run in range(20):
        nranks = 2 + run % 3
        out = tmp_path / f"unloaded-{run}.h5"
        result = run_mpi(nranks, [*SWEEP, "--quiet", "--out", str(out)])
        assert result.returncode == 0, result.stderr
        rows, attrs, _ = stored(out)
        assert len(rows) == len(footer(result.stdout))
        # Enough points that a rank latest in all of them would have been named.
        assert nranks * float(nranks) ** -int(attrs["points"]) <= ALPHA, attrs
        if rows:
            named.append((nranks, rows))
    assert len(named) <= 1, named
    report = run_plain(["report", str(tmp_path / "unloaded-0.h5")])
    assert report.returncode == 0 and not footer(report.stdout), report.stdout
