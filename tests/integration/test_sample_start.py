"""How latency samples start (docs/DESIGN.md, "timing modes"): windows of synchronised clocks by
default, a barrier with --sync barrier; stragglers named per rank; late ranks counted; a fabric
that corrupts the control plane reported, not obeyed. Real mpirun, oversubscribed as CI runs
it, with test-only PMPI interposers (tests/interpose) built here by mpicc."""
import json
import time

import h5py
import numpy as np
import pytest

from conftest import QUICK, points_frame, run_mpi, run_plain, run_preloaded, text

SMALL = ["-b", "8", "-e", "1K", "-f", "4"]


def points_of(path):
    with h5py.File(path, "r") as f:
        return f["points"][()], f["rank_median_us"][()]


@pytest.mark.parametrize("nranks", [2, 3, 4])
def test_latency_starts_in_windows_by_default(out, nranks):
    # Every sample kept, to check each against the point's statistics.
    result = run_mpi(nranks, ["run", *SMALL, "--ops", "allreduce,allgather", *QUICK,
                              "--keep-samples", "all", "--out", str(out)])
    assert result.returncode == 0, result.stderr
    with h5py.File(out, "r") as f:
        settings = json.loads(f.attrs["settings_json"])
        assert settings["latency_sync"] == "window" and settings["keep_samples"] == "all"
        assert settings["timeout_s"] == 300 and settings["timeout_grows_with_samples"]
        assert settings["rounds"] == 3
        # the library's per-call buffers cost the same at every point: freed memory is kept
        assert "M_MMAP_MAX 0" in text(f.attrs["allocator"])
        points = f["points"][()]
        # Every collective in both modes (allgather at 3 ranks has no 8 B: less than a float each).
        assert {(text(p["collective"]), text(p["mode"])) for p in points} == {
            (c, m) for c in ("allreduce", "allgather") for m in ("latency", "bandwidth")}
        for point in points:
            name = f"{point['point_id']:06d}"
            samples = f["samples"][name][()]
            assert point["samples"] >= 6  # --min-samples wins over --max-time
            if text(point["mode"]) == "bandwidth":
                assert text(point["sync"]) == "barrier"
                assert point["ops_per_sample"] >= 10
                assert name not in f["start_lateness"]
                assert np.isnan(point["window_margin_us"])
                continue
            assert text(point["sync"]) == "window"
            assert np.isnan(point["osu_mean_us"])  # a window sample's own time is its end
            assert point["ops_per_sample"] == 1
            assert point["invalid_samples"] >= 0
            assert point["window_margin_us"] >= 10
            assert 0 <= point["clock_error_us"] < np.inf
            lateness = f["start_lateness"][name][()]
            assert lateness.shape == samples.shape == (point["samples"], nranks)
            # Each rank's end follows its own start; the sample is the latest end.
            assert (samples > lateness).all()
            assert point["time_median_us"] == pytest.approx(np.median(samples.max(axis=1)))


def test_barrier_starts_are_recorded(out):
    result = run_mpi(2, ["run", *SMALL, "--ops", "allreduce", "--mode", "latency", "--sync",
                         "barrier", *QUICK, "--out", str(out)])
    assert result.returncode == 0, result.stderr
    with h5py.File(out, "r") as f:
        assert json.loads(f.attrs["settings_json"])["latency_sync"] == "barrier"
        assert {text(s) for s in f["points"]["sync"]} == {"barrier"}
        assert len(f["start_lateness"]) == 0
        assert np.isnan(f["points"]["clock_error_us"]).all()


def test_barrier_latency_points_state_osus_figure(out, tmp_path):
    """osu_mean_us: each rank's mean time per operation, then the ranks' mean, as
    osu_allreduce prints it; from every sample, so a run that keeps none states it too."""
    result = run_mpi(3, ["run", *SMALL, "--ops", "allreduce,allgather", "--sync", "barrier",
                         *QUICK, "--keep-samples", "all", "--out", str(out)])
    assert result.returncode == 0, result.stderr
    with h5py.File(out, "r") as f:
        points = f["points"][()]
        stated = {}
        for point in points:
            if text(point["mode"]) == "bandwidth":
                assert np.isnan(point["osu_mean_us"])
                continue
            samples = f["samples"][f"{point['point_id']:06d}"][()].astype(np.float64)
            assert samples.shape == (point["samples"], 3)
            assert point["osu_mean_us"] == pytest.approx(samples.mean(axis=0).mean(), rel=1e-9)
            # not the slowest rank's mean, what the point's own statistics are of
            assert point["osu_mean_us"] < samples.max(axis=1).mean()
            stated[(text(point["collective"]), int(point["size_bytes"]))] = point["osu_mean_us"]
    assert {collective for collective, _ in stated} == {"allreduce", "allgather"}
    report = run_plain(["report", str(out), "--format", "json"])
    assert report.returncode == 0, report.stderr
    for p in json.loads(report.stdout)["points"]:
        if p["mode"] == "latency":
            assert p["osu_mean_us"] == pytest.approx(stated[p["collective"], p["size_bytes"]])
        else:
            assert p["osu_mean_us"] is None

    summary_only = tmp_path / "summary.h5"
    result = run_mpi(2, ["run", "-b", "8", "-e", "8", "--ops", "allreduce", "--mode", "latency",
                         "--sync", "barrier", *QUICK, "--keep-samples", "summary",
                         "--out", str(summary_only)])
    assert result.returncode == 0, result.stderr
    with h5py.File(summary_only, "r") as f:
        assert f["samples"]["000000"].shape[0] == 0  # none kept
        assert 0 < f["points"]["osu_mean_us"][0] < np.inf


def test_every_rank_stops_a_barrier_point_when_rank_0_does(out):
    """From a barrier every rank decides when a point stops, with rank 0's clock and time left:
    ranks that disagreed by one sample would wait on each other until the watchdog (-T)."""
    result = run_mpi(3, ["run", "-b", "8", "-e", "64K", "--ops", "allreduce", "--sync",
                         "barrier", "-w", "1", "--min-samples", "6", "--target-ci", "0.0001",
                         "--max-time", "30", "--time-limit", "0.6", "-T", "20", "--quiet",
                         "--out", str(out)], timeout=120)
    assert result.returncode == 0, result.stderr
    reasons = [text(r) for r in points_frame(out)["stop_reason"]]
    assert "time_limit" in reasons, reasons


def test_late_ranks_invalidate_samples_and_widen_the_margin(out, interposer):
    # Rank 1 learns rank 0's word 2 ms late at every 7th broadcast: after the margin was sized
    # from quick broadcasts, so some samples start without it.
    delay_us = 2000
    result = run_preloaded(2, ["run", "-b", "8", "-e", "64", "--ops", "allreduce", "--mode",
                               "latency", *QUICK, "--out", str(out)],
                           interposer("delay_collectives"), DELAY_RANK=1, DELAY_US=delay_us,
                           DELAY_WHAT="bcast", DELAY_EVERY=7)
    assert result.returncode == 0, result.stderr
    points, _ = points_of(out)
    assert points["invalid_samples"].sum() > 0
    assert points["window_margin_us"].max() >= delay_us
    assert (points["samples"] >= 6).all()


@pytest.mark.parametrize("sync", ["window", "barrier"])
def test_a_straggling_rank_is_named_and_grows_the_point(out, interposer, sync):
    delay_us, slow = 2000, 2
    result = run_preloaded(3, ["run", "-b", "8", "-e", "64", "-f", "8", "--ops", "allreduce",
                               "--mode", "latency", "--sync", sync, *QUICK, "--out", str(out)],
                           interposer("delay_collectives"), DELAY_RANK=slow, DELAY_US=delay_us,
                           DELAY_WHAT="data")
    assert result.returncode == 0, result.stderr
    points, rank_medians = points_of(out)
    assert len(points) == 2
    for point, medians in zip(points, rank_medians):
        assert np.argmax(medians) == slow, medians
        assert medians[slow] >= 0.9 * delay_us
        assert max(np.delete(medians, slow)) < 0.5 * delay_us, medians
        # The sleep overshoots by its timer slack; the operation itself is microseconds.
        assert 0.9 * delay_us <= point["time_median_us"] <= 1.5 * delay_us


def test_corrupted_control_messages_end_the_run_with_exit_1(out, interposer):
    started = time.monotonic()
    result = run_preloaded(3, ["run", *SMALL, *QUICK, "--out", str(out)],
                           interposer("corrupt_collectives"), timeout=120)
    assert result.returncode == 1, result.stderr
    assert time.monotonic() - started < 60
    assert "rank 2" in result.stderr and "corrupted control message in " in result.stderr
    assert "wrong checksum" in result.stderr or "twin" in result.stderr
