"""collbench links: UCX latency and bandwidth between every pair of hosts of the virtual cluster
(ci/vcluster), slow links and hosts named; a dead or hung peer and bad input as for run."""
import itertools
import json
import math
import os
import re
import shlex
import shutil
import signal
import subprocess

import h5py
import numpy as np
import pytest

from conftest import (BINARY, FIXED_COUNT, ROOT, environment, mpirun_command, run_mpi,
                      run_preloaded, text)
from test_faults import finish, finish_frozen, rank_pids
from test_vcluster import needs_root, vcluster_run

# Four sizes, 8 B to 2 MiB: past UCX's rendezvous threshold, and a window of two 2 MiB messages
# keeps a 500 Mbit/s link busy 67 ms a sample. One pair at a time, as the four virtual hosts share
# this machine's two cores, and three rounds of the matrix pooled, as the machine's state drifts
# (one round named a healthy link slow in 4 of 8 runs). --shortfall 0.4, not the default 0.2:
# this VM moves between two speeds of every veth link, 1.78 and 2.55 GB/s at 2 MiB (1.43x), and a
# launch that changes speed mid-matrix reads a healthy link 30% below its hosts' typical one
# (with 0.2, a healthy cluster had a link named slow in 3 of 17 launches, 2026-12-05). The cap
# below reads 97% short.
QUICK_LINKS = ["-b", "8", "-e", "2M", "-f", "64", "-w", "1", "--min-samples", "6",
               "--max-time", "0.3", "--pairs-at-once", "1", "--shortfall", "0.4"]
CAP_GBPS = 500e6 / 8 / 1e9  # tbf's 500mbit: 0.0625 GB/s of packets, headers included


def links_on_cluster(out, *cluster_options, then=()):
    """`collbench links` on four virtual hosts, then the command `then` on the same cluster."""
    links = shlex.join(mpirun_command(4, ["links", *QUICK_LINKS, "--out", str(out)]))
    result, name = vcluster_run(
        ["--hosts", "4", "--slots", "1", *cluster_options],
        ["bash", "-c", " && ".join([links, *(shlex.join(c) for c in then)])])
    assert result.returncode == 0, result.stdout + result.stderr
    return result, name


def host_pair(row):
    return frozenset((text(row["first_host"]), text(row["second_host"])))


def every_pair(name):
    return {frozenset(pair) for pair in itertools.combinations(
        [f"{name}-h{i}" for i in range(1, 5)], 2)}


@needs_root
def test_a_healthy_cluster_names_no_link_or_host(tmp_path):
    out = tmp_path / "healthy.h5"
    result, name = links_on_cluster(out)
    assert "# No slow link or host" in result.stdout
    with h5py.File(out, "r") as f:
        assert int(f.attrs["complete"]) == 1 and text(f.attrs["backend"]) == "ucx"
        assert text(f.attrs["ucx_TLS"]) == "tcp,self"  # the cluster's, as UCX read it
        assert text(f.attrs["backend_version"]).startswith("1.")
        links = f["links"][: int(f["links"].attrs["finished_rows"])]
        assert len(links) == len(f["links"])
        # Each of the 6 links: 4 sizes x (latency, bandwidth both ways, bidirectional).
        assert len(links) == 6 * 4 * 4
        assert {text(t) for t in links["transport"]} == {"tcp/eth0"}
        for i, row in enumerate(links):
            samples = f["link_samples"][f"{i:06d}"][()]  # float32 microseconds
            assert len(samples) == row["samples"] >= 6
            assert np.median(samples.astype(float)) == pytest.approx(row["time_median_us"],
                                                                     rel=1e-6, abs=1e-3)
        fits = f["link_fits"][()]
        assert {host_pair(row) for row in fits} == every_pair(name)
        assert not fits["slow"].any(), fits
        assert len(f["slow_hosts"]) == 0
        assert all(row["bandwidth_GBps"] > 5 * CAP_GBPS for row in fits)
    report = subprocess.run([str(BINARY), "report", str(out)], capture_output=True, text=True,
                            timeout=60, env=environment())
    assert report.returncode == 0, report.stderr
    assert "# No slow link or host" in report.stdout
    assert report.stdout.count("bidirectional") == 6 * 4


# The textbook algorithms the links predict a collective from (collectives/), as
# (alpha steps, bandwidth factor) at p ranks: docs/DESIGN.md, "Models", reductions left out.
ALLREDUCE_ALGORITHMS = {
    "ring": lambda p: (2 * (p - 1), 2 * (p - 1) / p),
    "tree": lambda p: (2 * math.log2(p), 2),
    "recursive_doubling": lambda p: (math.log2(p), math.log2(p)),
    "rabenseifner": lambda p: (2 * math.log2(p), 2 * (p - 1) / p),
}


@needs_root
def test_a_capped_host_and_exactly_its_links_are_named_and_bound_the_allreduce(tmp_path):
    out, run = tmp_path / "capped.h5", tmp_path / "allreduce.h5"
    # A fixed count: the test judges the points' bounds, not when they stopped (under the
    # stopping rule this run over the capped host took 19 s, with six samples 9 s).
    allreduce = mpirun_command(4, ["run", "--backend", "mpi", "--ops", "allreduce", "-d", "float",
                                   "-b", "8", "-e", "2M", "-f", "64", *FIXED_COUNT,
                                   "--quiet", "--out", str(run)])
    result, name = links_on_cluster(out, "--rate", "500mbit", "--rate-hosts", "3",
                                    then=[allreduce])
    capped = f"{name}-h3"
    assert f"# Slow host: {capped} (inter)" in result.stdout, result.stdout
    with h5py.File(out, "r") as f:
        assert [text(row["name"]) for row in f["slow_hosts"][()]] == [capped]
        fits = f["link_fits"][()]
        slow = {host_pair(row) for row in fits if row["slow"]}
        assert slow == {pair for pair in every_pair(name) if capped in pair}
        for row in fits:
            if capped in host_pair(row):
                assert abs(row["bandwidth_GBps"] - CAP_GBPS) <= 0.2 * CAP_GBPS, row
            else:
                assert row["bandwidth_GBps"] > 5 * CAP_GBPS, row

    plot = subprocess.run([str(BINARY), "plot", str(out), "-o", str(tmp_path)],
                          capture_output=True, text=True, timeout=120, env=environment())
    assert plot.returncode == 0, plot.stderr
    assert plot.stdout.split() == [str(tmp_path / "capped-links.png")]

    fit = subprocess.run([str(BINARY), "fit", str(run), "--links", str(out)], capture_output=True,
                         text=True, timeout=120, env=environment())
    assert fit.returncode == 0, fit.stderr
    with h5py.File(run, "r") as f:
        points = f["points"][()]
        bounds = f["link_bounds"][()]
        assert text(f["link_bounds"].attrs["links_file"]) == str(out)
    # Every point spans the four hosts: judged by the slowest of the six links, the capped one.
    assert list(bounds["point_id"]) == list(range(len(points)))
    assert {text(k) for k in bounds["kind"]} == {"inter"} and set(bounds["links"]) == {6}
    assert set(bounds["bandwidth_GBps"]) == {fits["bandwidth_GBps"].min()}
    assert set(bounds["alpha_us"]) == {fits["alpha_us"].max()}
    for point, bound in zip(points, bounds):
        beta_us = 1e-3 / bound["bandwidth_GBps"]
        times = {algorithm: bound["alpha_us"] * steps + beta_us * point["size_bytes"] * factor
                 for algorithm, (steps, factor) in
                 ((a, cost(4)) for a, cost in ALLREDUCE_ALGORITHMS.items())}
        assert text(bound["algorithm"]) == min(times, key=times.get)
        assert bound["predicted_us"] == pytest.approx(min(times.values()), rel=1e-12)
        assert bound["measured_us"] == point["time_median_us"]
        assert bound["ratio"] == pytest.approx(point["time_median_us"] / bound["predicted_us"])
        # The slowest link bounds every algorithm from below: no allreduce of 2 MiB moves its
        # bytes through the capped host faster than the cap lets them through.
        if point["size_bytes"] == 2 << 20:
            assert text(bound["algorithm"]) == "rabenseifner"
            assert bound["ratio"] > 0.8, bound
    report = subprocess.run([str(BINARY), "report", str(run)], capture_output=True, text=True,
                            timeout=60, env=environment())
    assert report.returncode == 0, report.stderr
    assert report.stdout.count("# allreduce float sum world 4 ranks") >= 2  # one per mode
    assert "measured/predicted" in report.stdout
    document = subprocess.run([str(BINARY), "report", str(run), "--format", "json"],
                              capture_output=True, text=True, timeout=60, env=environment())
    judged = json.loads(document.stdout)["link_bounds"]
    assert judged["links_file"] == str(out) and len(judged["points"]) == len(points)


def start_links(nranks, out, extra=()):
    args = ["links", "--between", "ranks", "-b", "8", "-e", "64K", "-f", "8", "-w", "1",
            "--min-samples", "6", "--max-time", "0.3", "--pairs-at-once", "1", "--out", str(out),
            *extra]
    return subprocess.Popen(mpirun_command(nranks, args), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=environment(),
                            start_new_session=True)


def wait_for_link_rows(process, rows):
    seen = 0
    for line in process.stdout:
        if line.strip() and not line.startswith("#"):
            seen += 1
            if seen >= rows:
                return seen
    raise AssertionError("the links run ended before printing enough rows")


def finished_links(out):
    with h5py.File(out, "r") as f:
        finished = int(f["links"].attrs["finished_rows"])
        rows = f["links"][:finished]
        for i, row in enumerate(rows):
            assert text(row["mode"]) and len(f["link_samples"][f"{i:06d}"]) == row["samples"]
        return finished, int(f.attrs["complete"])


def test_a_killed_peer_ends_the_matrix_and_keeps_the_finished_links(tmp_path):
    out = tmp_path / "killed.h5"
    process = start_links(3, out)
    rows = wait_for_link_rows(process, 1)
    os.kill(rank_pids(out)[2], signal.SIGKILL)
    code, stderr = finish(process)
    assert code != 0
    assert "rank 2" in stderr  # mpirun names the rank that died
    finished, complete = finished_links(out)
    assert finished >= rows and complete == 0
    report = subprocess.run([str(BINARY), "report", str(out)], capture_output=True, text=True,
                            timeout=60, env=environment())
    assert report.returncode == 0 and "did not finish" in report.stderr
    check = subprocess.run([str(BINARY), "check", str(out), "--spec",
                            str(ROOT / "ci/acceptance/links-vcluster.toml")],
                           capture_output=True, text=True, timeout=60, env=environment())
    assert check.returncode == 1 and "no matching links" in check.stdout
    assert "did not finish" in check.stderr and "no link was judged" in check.stderr


def test_a_hung_peer_times_out_with_exit_3(tmp_path):
    out = tmp_path / "hung.h5"
    process = start_links(3, out, ["-T", "2"])
    rows = wait_for_link_rows(process, 1)
    code, stderr = finish_frozen(process, rank_pids(out)[1])
    assert code == 3, stderr
    assert "timeout" in stderr and "(-T) in " in stderr
    finished, complete = finished_links(out)
    assert finished >= rows and complete == 0


def test_a_corrupted_control_message_ends_the_matrix_with_exit_1(tmp_path, interposer):
    """The fabric damages data: a wrong result, exit 1 as for run, naming the rank."""
    out = tmp_path / "corrupted.h5"
    result = run_preloaded(3, ["links", *QUICK_LINKS, "--out", str(out)],
                           interposer("corrupt_collectives"), timeout=120)
    assert result.returncode == 1, result.stderr
    assert re.search(r"collbench links: rank 2 on \S+: corrupted control message", result.stderr)
    assert "wrong checksum" in result.stderr and "every finished link is in" in result.stderr


@pytest.mark.parametrize("args, named", [
    (["-b", "0"], "-b/--minbytes"),
    (["-e", "1x"], "-e/--maxbytes"),
    (["--between", "cables"], "--between"),
    (["--modes", "latency,ping"], "--modes"),
    (["--shortfall", "1.5"], "--shortfall"),
    (["--pairs-at-once", "-1"], "--pairs-at-once"),
    (["--memory", "gpu"], "--memory"),
])
def test_bad_input_exits_2_naming_it_and_writes_nothing(tmp_path, args, named):
    out = tmp_path / "bad.h5"
    result = subprocess.run(mpirun_command(2, ["links", *args, "--out", str(out)]),
                            capture_output=True, text=True, timeout=120, env=environment(),
                            cwd=ROOT)
    assert result.returncode == 2, result.stderr
    assert named in result.stderr
    assert not out.exists()


def test_gpu_messages_are_measured_or_refused_naming_why(tmp_path):
    """Where UCX moves no GPU memory, or there is no GPU (CI), exit 2 and nothing written;
    where it does, the file says the links were measured from GPU memory."""
    out = tmp_path / "cuda.h5"
    result = subprocess.run(mpirun_command(2, ["links", "--between", "ranks", "--memory", "cuda",
                                               "-b", "8", "-e", "64K", "-f", "64", "-n", "5",
                                               "--out", str(out)]),
                            capture_output=True, text=True, timeout=120, env=environment(),
                            cwd=ROOT)
    if result.returncode == 2:
        assert "--memory cuda: " in result.stderr and not out.exists()
    else:
        assert result.returncode == 0, result.stderr
        with h5py.File(out, "r") as f:
            assert text(f.attrs["memory"]) == "cuda" and len(f["link_fits"]) == 1


def test_an_out_file_in_a_missing_folder_exits_2(tmp_path):
    out = tmp_path / "missing" / "links.h5"
    result = subprocess.run(mpirun_command(2, ["links", "--out", str(out)]),
                            capture_output=True, text=True, timeout=120, env=environment(),
                            cwd=ROOT)
    assert result.returncode == 2, result.stderr
    assert "--out" in result.stderr and not out.exists()


def test_one_process_without_mpirun_exits_2(tmp_path):
    result = subprocess.run([str(BINARY), "links", "--out", str(tmp_path / "one.h5")],
                            capture_output=True, text=True, timeout=120, env=environment(),
                            cwd=ROOT)
    assert result.returncode == 2, result.stderr
    assert "mpirun" in result.stderr and not (tmp_path / "one.h5").exists()


@pytest.fixture(scope="module")
def run_and_links(tmp_path_factory):
    """Allreduce on two ranks of this machine and the links between them (intra-node)."""
    folder = tmp_path_factory.mktemp("bounds")
    links, run = folder / "links.h5", folder / "run.h5"
    for args in (["links", "--between", "ranks", "-b", "8", "-e", "64K", "-f", "8", "-w", "1",
                  "--min-samples", "6", "--max-time", "0.2", "--out", str(links)],
                 ["run", "--backend", "mpi", "--ops", "allreduce", "-d", "float", "-b", "8",
                  "-e", "64K", "-f", "8", "--max-time", "0.2", "--quiet", "--out", str(run)]):
        result = run_mpi(2, args)
        assert result.returncode == 0, result.stderr
    return run, links


def fit_with_links(run, links):
    return subprocess.run([str(BINARY), "fit", str(run), "--links", str(links)],
                          capture_output=True, text=True, timeout=120, env=environment())


def test_a_run_on_one_host_is_judged_by_its_intra_node_links(run_and_links, tmp_path):
    run, links = run_and_links
    judged = tmp_path / "judged.h5"
    shutil.copy(run, judged)
    result = fit_with_links(judged, links)
    assert result.returncode == 0, result.stderr
    with h5py.File(judged, "r") as f, h5py.File(links, "r") as l:
        bounds = f["link_bounds"][()]
        (fit,) = l["link_fits"][()]
        assert len(bounds) == len(f["points"])
        assert {text(k) for k in bounds["kind"]} == {"intra"} and set(bounds["links"]) == {1}
        assert set(bounds["bandwidth_GBps"]) == {fit["bandwidth_GBps"]}
        assert set(bounds["alpha_us"]) == {fit["alpha_us"]}
    assert "measured/predicted" in result.stdout


@pytest.mark.parametrize("damage, named", [
    ("the run itself", "is not a file of `collbench links`"),
    ("missing", "no such file"),
    ("other hosts", "measured no links between the hosts"),
])
def test_links_that_cannot_judge_the_run_exit_2_and_change_nothing(run_and_links, tmp_path,
                                                                    damage, named):
    run, links = run_and_links
    judged = tmp_path / "judged.h5"
    shutil.copy(run, judged)
    if damage == "the run itself":
        links = judged
    elif damage == "missing":
        links = tmp_path / "missing.h5"
    else:
        moved = tmp_path / "moved.h5"
        shutil.copy(links, moved)
        with h5py.File(moved, "r+") as f:
            fits = f["link_fits"][()]
            fits["first_host"] = fits["second_host"] = b"elsewhere"
            f["link_fits"][...] = fits
        links = moved
    result = fit_with_links(judged, links)
    assert result.returncode == 2, result.stderr
    assert named in result.stderr
    with h5py.File(judged, "r") as f:
        assert "link_bounds" not in f
