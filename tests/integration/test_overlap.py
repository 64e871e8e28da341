"""`run --overlap-load`: a real load beside real collectives under mpirun, its numbers in /points
read back by h5py and in the footer, `predict --overlap measured` using them, bad input refused
with nothing written."""
import json
import math

import h5py
import pytest

from conftest import QUICK, run_mpi, run_plain, text

SWEEP = ["-b", "4K", "-e", "1M", "-f", "16", "--ops", "allreduce", "-d", "float", *QUICK]


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    out = tmp_path_factory.mktemp("overlap") / "loaded.h5"
    result = run_mpi(3, ["run", *SWEEP, "--ranks", "2,3", "--overlap-load", "memory",
                         "--out", str(out)])
    assert result.returncode == 0, result.stderr
    return out, result.stdout


def points(path):
    with h5py.File(path, "r") as f:
        return f["points"][: f["points"].attrs["finished_rows"]], json.loads(
            text(f.attrs["settings_json"]))


def test_every_latency_point_holds_its_overlap_and_no_bandwidth_point_does(loaded):
    path, _ = loaded
    table, settings = points(path)
    assert settings["overlap_load"] == "memory"
    latency = [p for p in table if text(p["mode"]) == "latency"]
    bandwidth = [p for p in table if text(p["mode"]) == "bandwidth"]
    assert len(latency) == 6 and len(bandwidth) == 6
    for p in latency:
        assert p["overlap_collective_slowdown"] > 0 and p["overlap_load_slowdown"] > 0
        # A share of the collective's own time: at most all of it, within its interval's noise.
        assert p["overlap_hidden_ci_low"] <= p["overlap_hidden"] <= p["overlap_hidden_ci_high"]
        assert p["overlap_hidden_ci_low"] < 1.5
    for p in bandwidth:
        assert all(math.isnan(p[c]) for c in ("overlap_collective_slowdown",
                                              "overlap_load_slowdown", "overlap_hidden"))


def test_the_footer_says_what_the_file_holds(loaded):
    path, stdout = loaded
    table, _ = points(path)
    lines = [line for line in stdout.splitlines() if line.startswith("# overlap beside")]
    assert len(lines) == 2  # the curves of 2 and of 3 ranks
    # Three ranks on this machine's cores leave none spare (2 in CI): the note says where it ran.
    assert "# note: the memory overlap load of rank 0 runs as a thread " in stdout
    point = next(p for p in table if text(p["mode"]) == "latency" and p["nranks"] == 3
                 and p["size_bytes"] == 1 << 20)
    three = next(line for line in lines if " 3 ranks " in line)
    assert "a memory load, allreduce float sum packed 3 ranks latency" in three
    low, high = point["overlap_hidden_ci_low"], point["overlap_hidden_ci_high"]
    # An interval over both 0% and 100% tells nothing: the footer says so instead of a share.
    share = "unresolved" if low <= 0 and high >= 1 else f"{100 * point['overlap_hidden']:.0f}%"
    assert (f"{share} [{100 * low:.0f}, {100 * high:.0f}] at 1 MiB "
            f"(collective x{point['overlap_collective_slowdown']:.2f}") in three


def test_report_json_carries_the_overlap(loaded):
    path, _ = loaded
    result = run_plain(["report", str(path), "--format", "json"])
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    latency = [p for p in report["points"] if p["mode"] == "latency"]
    assert latency and all(p["overlap_hidden"] is not None for p in latency)
    assert all(p["overlap_hidden"] is None for p in report["points"] if p["mode"] == "bandwidth")


def test_predict_uses_the_overlap_measured_at_the_largest_rank_count(loaded, tmp_path):
    path, _ = loaded
    result = run_plain(["predict", str(path), "--ranks", "64", "--size", "1M", "--compute-ms",
                        "2", "--overlap", "measured", "--format", "json",
                        "--out", str(tmp_path / "p.h5")])
    assert result.returncode == 0, result.stderr
    table, _ = points(path)
    point = next(p for p in table if text(p["mode"]) == "latency" and p["nranks"] == 3
                 and p["size_bytes"] == 1 << 20)
    curve = next(c for c in json.loads(result.stdout)["curves"] if c["mode"] == "latency")
    size = curve["sizes"][0]
    assert size["overlap"]["ranks"] == 3 and size["overlap"]["size_bytes"] == 1 << 20
    assert size["overlap"]["hidden"] == pytest.approx(point["overlap_hidden"])
    prediction = size["predictions"][0]
    exposed = (1 - point["overlap_hidden"]) * prediction["time_us"]
    assert prediction["exposed_us"] == pytest.approx(exposed)
    assert prediction["efficiency"] == pytest.approx(2000 / (2000 + exposed))
    low, high = prediction["efficiency_ci"]
    assert low <= prediction["efficiency"] <= high
    with h5py.File(tmp_path / "p.h5", "r") as f:
        assert math.isnan(f.attrs["overlap"])
        rows = f["predictions"][f["predictions"]["asked"] == 1]
        latency = [r for r in rows if text(r["mode"]) == "latency"]
        assert [r["overlap"] for r in latency] == [pytest.approx(point["overlap_hidden"])]


def test_predict_without_a_measured_overlap_says_so(tmp_path):
    run = tmp_path / "plain.h5"
    result = run_mpi(3, ["run", *SWEEP, "--mode", "latency", "--ranks", "2,3",
                         "--out", str(run)])
    assert result.returncode == 0, result.stderr
    result = run_plain(["predict", str(run), "--ranks", "64", "--size", "1M", "--compute-ms",
                        "2", "--overlap", "measured", "--out", str(tmp_path / "p.h5")])
    assert result.returncode == 0, result.stderr
    assert "no overlap measured for this curve (run --overlap-load)" in result.stdout


@pytest.mark.parametrize("args, message", [
    (["--overlap-load", "gemm"], "--overlap-load: the mpi backend runs no gemm load"),
    (["--overlap-load", "cpu"], "--overlap-load: unknown load 'cpu' (memory or gemm)"),
    (["--overlap-load", "memory", "--mode", "bandwidth"],
     "--overlap-load measures beside latency points"),
])
def test_bad_loads_are_refused_with_nothing_written(tmp_path, args, message):
    out = tmp_path / "never.h5"
    result = run_mpi(2, ["run", *SWEEP, *args, "--out", str(out)])
    assert result.returncode == 2
    assert message in result.stderr
    assert not out.exists()


@pytest.mark.parametrize("overlap", ["1.5", "-0.1", "most", "nan"])
def test_predict_refuses_an_overlap_that_is_no_fraction(loaded, tmp_path, overlap):
    path, _ = loaded
    result = run_plain(["predict", str(path), "--compute-ms", "2", "--overlap", overlap,
                        "--out", str(tmp_path / "p.h5")])
    assert result.returncode == 2
    assert f"--overlap: '{overlap}' is neither a fraction from 0 to 1 nor 'measured'" in (
        result.stderr)
    assert not (tmp_path / "p.h5").exists()
