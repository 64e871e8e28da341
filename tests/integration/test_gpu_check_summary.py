"""ci/gpu-check-summary, the table ci/gpu-check prints last, over a real sweep's CSV report and
fit: the dry run in CI feeds it whatever this host measured, so each shape a fit can take must
print, not crash."""
import json
import subprocess
import sys

import pytest

from conftest import QUICK, ROOT, run_mpi, run_plain

SUMMARY = ROOT / "ci" / "gpu-check-summary"


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    """One rank's sweep, its CSV report and fit, named as ci/gpu-check names them."""
    out = tmp_path_factory.mktemp("gpu-check")
    result_file = out / "sweep-np1.h5"
    run = run_mpi(1, ["run", "--ops", "allreduce,broadcast", "-d", "float", "-b", "8", "-e", "32K",
                      "-f", "4", "--mode", "both", "--no-fit", *QUICK, "--out", str(result_file)])
    assert run.returncode == 0, run.stderr
    for command, form, name in (("report", "csv", "sweep-np1.csv"),
                                ("fit", "json", "sweep-np1.fit.json")):
        written = run_plain([command, str(result_file), "--format", form])
        assert written.returncode == 0, written.stderr
        (out / name).write_text(written.stdout)
    return out


def summary(out):
    return subprocess.run([sys.executable, str(SUMMARY), str(out), "1"], capture_output=True,
                          text=True, timeout=60)


def row(stdout, collective):
    return next(line for line in stdout.splitlines() if line.split()[:2] == ["1", collective])


def test_each_collective_of_a_real_sweep_gets_its_row(sweep):
    printed = summary(sweep)
    assert printed.returncode == 0, printed.stderr
    for collective in ("allreduce", "broadcast"):
        fields = row(printed.stdout, collective).split()
        assert "@8" in fields and "@32" in fields, fields  # smallest latency, largest busbw
    assert row(printed.stdout, "allgather").split()[2:] == ["n/a"] * 3 + ["0"] + ["n/a"] * 2


# A beta of 0 (one rank's time did not grow with size) is a null bandwidth in the fit's JSON
# (ModelReport.ABetaOfZeroIsAnUnboundedBandwidth); the CI run that met one crashed the summary.
def test_a_null_bandwidth_prints_unbounded(sweep, tmp_path):
    fit = json.loads((sweep / "sweep-np1.fit.json").read_text())
    curves = [c for c in fit["curves"] if c["collective"] == "broadcast"
              and c["mode"] == "bandwidth" and not c["in_place"]]
    assert len(curves) == 1 and curves[0]["segments"], fit["curves"]
    curves[0]["segments"][-1]["bandwidth_GBps"] = None
    (tmp_path / "sweep-np1.csv").write_text((sweep / "sweep-np1.csv").read_text())
    (tmp_path / "sweep-np1.fit.json").write_text(json.dumps(fit))
    printed = summary(tmp_path)
    assert printed.returncode == 0, printed.stderr
    assert row(printed.stdout, "broadcast").split()[-1].rstrip("?") == "unbounded"
    assert "unbounded" not in row(printed.stdout, "allreduce")


def test_the_gpu_run_is_planned_within_one_device_call():
    """A lent GPU runs one command of at most 600 s: the plan's caps (each step's, the build's
    included) add up to less, and the last line says the total."""
    plan = subprocess.run([str(ROOT / "ci" / "gpu-check"), "--plan"], capture_output=True,
                          text=True, check=True).stdout.splitlines()
    caps = [int(line.split()[0]) for line in plan[1:-1]]
    assert {line.split()[1] for line in plan[1:-1]} >= {"build", "smoke", "pytest", "sweeps"}
    assert plan[-1] == f"plan: {sum(caps)} s"
    assert sum(caps) <= 600
