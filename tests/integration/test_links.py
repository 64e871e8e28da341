"""collbench links: UCX latency and bandwidth between every pair of hosts of the virtual cluster
(ci/vcluster), slow links and hosts named; a dead or hung peer and bad input as for run."""
import itertools
import os
import signal
import subprocess

import h5py
import numpy as np
import pytest

from conftest import BINARY, ROOT, environment, mpirun_command, text
from test_faults import finish, finish_frozen, rank_pids
from test_vcluster import needs_root, vcluster_run

# Four sizes, 8 B to 2 MiB: past UCX's rendezvous threshold, and a window of two 2 MiB messages
# keeps a 500 Mbit/s link busy 67 ms a sample. One pair at a time, as the four virtual hosts share
# this machine's two cores, and three rounds of the matrix pooled, as the machine's state drifts
# (one round named a healthy link slow in 4 of 8 runs; three rounds, in none of 6).
QUICK_LINKS = ["-b", "8", "-e", "2M", "-f", "64", "-w", "1", "--min-samples", "6",
               "--max-time", "0.3", "--pairs-at-once", "1"]
CAP_GBPS = 500e6 / 8 / 1e9  # tbf's 500mbit: 0.0625 GB/s of packets, headers included


def links_on_cluster(out, *cluster_options):
    result, name = vcluster_run(
        ["--hosts", "4", "--slots", "1", *cluster_options],
        ["mpirun", "-np", "4", str(BINARY), "links", *QUICK_LINKS, "--out", str(out)])
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


@needs_root
def test_a_capped_host_and_exactly_its_links_are_named(tmp_path):
    out = tmp_path / "capped.h5"
    result, name = links_on_cluster(out, "--rate", "500mbit", "--rate-hosts", "3")
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


def test_a_hung_peer_times_out_with_exit_3(tmp_path):
    out = tmp_path / "hung.h5"
    process = start_links(3, out, ["-T", "2"])
    rows = wait_for_link_rows(process, 1)
    code, stderr = finish_frozen(process, rank_pids(out)[1])
    assert code == 3, stderr
    assert "timeout" in stderr and "(-T) in " in stderr
    finished, complete = finished_links(out)
    assert finished >= rows and complete == 0


@pytest.mark.parametrize("args, named", [
    (["-b", "0"], "-b/--minbytes"),
    (["-e", "1x"], "-e/--maxbytes"),
    (["--between", "cables"], "--between"),
    (["--modes", "latency,ping"], "--modes"),
    (["--shortfall", "1.5"], "--shortfall"),
    (["--pairs-at-once", "-1"], "--pairs-at-once"),
])
def test_bad_input_exits_2_naming_it_and_writes_nothing(tmp_path, args, named):
    out = tmp_path / "bad.h5"
    result = subprocess.run(mpirun_command(2, ["links", *args, "--out", str(out)]),
                            capture_output=True, text=True, timeout=120, env=environment(),
                            cwd=ROOT)
    assert result.returncode == 2, result.stderr
    assert named in result.stderr
    assert not out.exists()


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
