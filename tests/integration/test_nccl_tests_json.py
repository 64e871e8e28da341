"""nccl-tests' JSON (run -J, report --format nccl-tests-json): the fields nccl-tests 2.19.6
writes (src/util.cu), figures that are the file's own, and NVIDIA's reader
(tools/analyze_perf_json.py) run on it where a copy is named by COLLBENCH_NCCL_TESTS_ANALYZER
(nccl-tests' source is not part of this repository)."""
import json
import os
import re
import subprocess

import h5py
import numpy as np
import pytest

from conftest import FIXED_COUNT, QUICK, run_mpi, run_plain, run_preloaded, text

ANALYZER = os.environ.get("COLLBENCH_NCCL_TESTS_ANALYZER")
needs_analyzer = pytest.mark.skipif(
    not ANALYZER, reason="set COLLBENCH_NCCL_TESTS_ANALYZER to nccl-tests' "
                         "tools/analyze_perf_json.py")

# The keys nccl-tests writes, by the function of src/util.cu that writes them.
TOP = ["version", "start_time", "args", "env", "nccl_version",  # jsonOutputInit
       "config", "results",  # writeDeviceReport, writeResultHeader
       "out_of_bounds", "average_bus_bandwidth",  # writeResultFooter
       "errors"]  # writeErrors
CONFIG = ["nthreads", "ngpus", "minimum_bytes", "maximum_bytes", "step_factor", "warmup_iters",
          "iterations", "aggregated_iterations", "validation", "graph", "blocking_collectives",
          "per_iter_timing", "per_iter_skip", "parallel_init", "devices"]
DEVICE = ["rank", "group", "pid", "hostname", "device", "device_hex", "device_info"]  # jsonRankInfo
RESULT = ["size", "count", "type", "redop", "root",  # writeBenchmarkLinePreamble
          "out_of_place", "out_of_place_per_iter", "in_place", "in_place_per_iter",
          "actual_iterations", "experiment_name"]  # writeBenchmarkLineTerminator
BODY = ["time", "alg_bw", "bus_bw", "nwrong"]  # writeBenchmarkLineBody
PER_ITER = ["skipped_iterations", "min_us", "max_us", "avg_us", "p50_us", "p95_us", "p99_us",
            "stdev_us", "cv_pct", "times_us", "per_process_max_times_us"]  # writePerIterReport


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    folder = tmp_path_factory.mktemp("nccl-tests-json")
    # A space and a quote in the names: args must come back as the words run was given.
    out, json_file = folder / "the run's file.h5", folder / "the run's file.json"
    argv = ["run", "-b", "8", "-e", "64K", "-f", "8", "--ops", "allreduce,broadcast", "--inplace",
            "--out", str(out), "-J", str(json_file), *FIXED_COUNT]
    result = run_mpi(2, argv)
    assert result.returncode == 0, result.stderr
    assert f"# nccl-tests JSON in {json_file}" in result.stdout
    return argv, out, json_file, json.loads(json_file.read_text())


def percentile(ordered, p):
    """nccl-tests' percentileIndex (src/util.cu)."""
    return ordered[min(len(ordered) - 1, (len(ordered) * p + 99) // 100 - 1)]


def test_every_field_nccl_tests_writes_in_its_order(written):
    argv, _, _, doc = written
    assert list(doc) == TOP and doc["version"] == 3
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", doc["start_time"])
    assert doc["args"][1:] == argv
    assert all("=" in variable for variable in doc["env"])
    assert list(doc["config"]) == CONFIG
    assert doc["config"]["step_factor"] == 8 and doc["config"]["iterations"] == 6
    assert [list(d) for d in doc["config"]["devices"]] == [DEVICE, DEVICE]
    assert [d["rank"] for d in doc["config"]["devices"]] == [0, 1]
    for result in doc["results"]:
        assert list(result) == RESULT
        assert re.fullmatch(r" *-?\d+", result["root"]) and len(result["root"]) >= 6
        for variant in ("out_of_place", "in_place"):
            assert list(result[variant]) == BODY
            assert list(result[f"{variant}_per_iter"]) == PER_ITER
    assert doc["out_of_bounds"] == {"count": 0, "okay": True}
    assert doc["errors"] == []


def test_figures_are_the_files_and_nccl_tests_statistics_of_its_samples(written):
    _, out, _, doc = written
    with h5py.File(out, "r") as f:
        points = f["points"][()]
        bandwidth = {(text(p["collective"]), int(p["size_bytes"]), int(p["in_place"])): p
                     for p in points if text(p["mode"]) == "bandwidth"}
        samples = {key: f["samples"][f"{p['point_id']:06d}"][()].astype(np.float64)
                   for key, p in bandwidth.items()}
    assert len(doc["results"]) == len(bandwidth) // 2
    for result in doc["results"]:
        collective = result["experiment_name"].split()[0]
        for in_place, variant in ((0, "out_of_place"), (1, "in_place")):
            key = (collective, result["size"], in_place)
            point, raw = bandwidth[key], samples[key]
            assert result[variant]["time"] == pytest.approx(point["time_median_us"], rel=1e-12)
            assert result[variant]["bus_bw"] == pytest.approx(point["busbw_GBps"], rel=1e-12)
            assert result[variant]["nwrong"] == 0 == point["wrong"]
            per_iter = result[f"{variant}_per_iter"]
            # Each rank's stored times; a sample's time the slowest rank's, as nccl-tests'
            # ReduceProcessMaxIterTimes makes times_us.
            assert np.allclose(per_iter["per_process_max_times_us"], raw.T, rtol=1e-12)
            assert np.allclose(per_iter["times_us"], raw.max(axis=1), rtol=1e-12)
            ordered = sorted(per_iter["times_us"])
            assert per_iter["p50_us"] == ordered[len(ordered) // 2]
            assert per_iter["p99_us"] == percentile(ordered, 99)
            assert per_iter["stdev_us"] == pytest.approx(np.std(ordered), rel=1e-9)
        assert result["actual_iterations"] == 6


def test_report_prints_what_run_wrote(written):
    _, out, json_file, _ = written
    printed = run_plain(["report", "--format", "nccl-tests-json", str(out)])
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout) == json.loads(json_file.read_text())


@pytest.mark.parametrize("name, says", [("run.txt", "goes to a .json file"),
                                        ("missing/run.json", "no folder"),
                                        ("exists.json", "exists (--force overwrites it)")])
def test_a_json_path_it_cannot_take_is_refused_before_the_run(tmp_path, name, says):
    (tmp_path / "exists.json").write_text("{}")
    out = tmp_path / "run.h5"
    result = run_plain(["run", "--out", str(out), "-J", str(tmp_path / name), *FIXED_COUNT])
    assert result.returncode == 2 and says in result.stderr
    assert not out.exists() and (tmp_path / "exists.json").read_text() == "{}"


def analyze(json_file, *flags):
    done = subprocess.run(["/usr/bin/python3", ANALYZER, str(json_file), *flags],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done.stdout


@needs_analyzer
@pytest.mark.parametrize("flags", [[], ["--straggler"], ["--spikes"], ["--iter0"], ["--nodes"],
                                   ["--all"], ["--in-place", "--all"]])
def test_nvidias_reader_runs_in_every_mode(written, flags):
    _, _, json_file, _ = written
    output = analyze(json_file, *flags)
    assert "Process rows: 2" in output
    if "--all" in flags:  # its check that times_us is the slowest process's time
        assert re.search(r"Consistency \(times_us == max over process rows, (OOP|IP)\): PASS",
                         output)


@needs_analyzer
@pytest.mark.parametrize("slow", [1, 2])
def test_nvidias_reader_names_the_rank_collbench_names(tmp_path, interposer, slow):
    """A rank whose collectives return 200 us late: collbench's straggler table and the reader's
    slowest process are that rank, wherever it is planted."""
    out, json_file = tmp_path / "slow.h5", tmp_path / "slow.json"
    result = run_preloaded(3, ["run", "--mode", "latency", "-b", "8", "-e", "64K", "-f", "8",
                               "--ops", "allreduce,allgather", "--out", str(out), "-J",
                               str(json_file), *QUICK],
                           interposer("delay_collectives"), DELAY_RANK=slow, DELAY_US=200,
                           DELAY_WHAT="data")
    assert result.returncode == 0, result.stderr
    with h5py.File(out, "r") as f:
        named = {int(row["rank"]) for row in f["stragglers"][()] if int(row["rank"]) >= 0}
    assert named == {slow}
    slowest = re.findall(r"slowest=process +(\d+)", analyze(json_file, "--straggler"))
    assert slowest and set(map(int, slowest)) == {slow}
