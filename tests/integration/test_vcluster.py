"""Placements across hosts on the virtual cluster (ci/vcluster): network namespaces on a
bridge, one Open MPI daemon per host. CI runs as root, so these run there."""
import os
import pathlib
import re
import shutil
import subprocess

import h5py
import numpy as np
import pytest

from conftest import BINARY, QUICK, ROOT, environment, text

VCLUSTER = ROOT / "ci" / "vcluster"

needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("ip") is None,
    reason="the virtual cluster needs root and iproute2's ip (network namespaces)")


def vcluster_run(options, command, timeout=600):
    result = subprocess.run([str(VCLUSTER), "run", *options, "--", *command], capture_output=True,
                            text=True, timeout=timeout, env=environment(), cwd=ROOT)
    name = re.search(r"cluster (\w+):", result.stderr + result.stdout)
    return result, name.group(1) if name else None


def namespaces():
    listing = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return {line.split()[0] for line in listing.splitlines() if line.strip()}


def collbench_run(np_, args):
    return ["mpirun", "-np", str(np_), str(BINARY), "run", "--backend", "mpi", *args]


def node_of(f):
    return {int(row["rank"]): int(row["node_index"]) for row in f["topology"][()]}


def points_with_groups(f):
    """(point row, the world ranks of its sample columns) for every point."""
    for i, row in enumerate(f["points"][()]):
        yield row, list(f["samples"][f"{i:06d}"].attrs["world_ranks"])


@needs_root
def test_two_hosts_intra_stays_on_a_host_and_inter_crosses_the_network(tmp_path):
    out = tmp_path / "placements.h5"
    result, name = vcluster_run(
        ["--hosts", "2", "--slots", "2"],
        collbench_run(4, ["--placement", "all", "--ops", "allreduce", "-b", "8", "-e", "16M",
                          "-f", "16", *QUICK, "--out", str(out)]))
    assert result.returncode == 0, result.stdout + result.stderr
    assert name and not any(ns.startswith(name + "-") for ns in namespaces()), "not cleaned up"

    with h5py.File(out, "r") as f:
        assert int(f.attrs["nodes"]) == 2
        hosts = {text(row["host"]) for row in f["topology"][()]}
        assert hosts == {f"{name}-h1", f"{name}-h2"}
        nodes = node_of(f)
        assert sorted(nodes.values()) == [0, 0, 1, 1]
        seen = set()
        for row, ranks in points_with_groups(f):
            placement = text(row["placement"])
            seen.add((placement, int(row["nranks"])))
            on = {nodes[r] for r in ranks}
            if placement == "intra":  # two groups, one per host, each inside its host
                assert len(ranks) == 4 and on == {0, 1}
            if placement == "inter":  # two rails, each rank of a rail on another host
                assert len(ranks) == 4 and on == {0, 1}
        assert seen == {("world", 4), ("intra", 2), ("inter", 2)}
        points = f["points"][()]

    def median(placement, size, mode="bandwidth"):
        row = points[(points["placement"] == placement.encode()) & (points["size_bytes"] == size)
                     & (points["mode"] == mode.encode())]
        return float(row["time_median_us"][0])

    largest = int(points["size_bytes"].max())
    # Shared memory inside a host against TCP between namespaces: 2.4 to 4.5 times slower in
    # eight runs on this 2-core machine (four ranks); the capped test below holds the gap to a
    # number.
    ratio = median("inter", largest) / median("intra", largest)
    print(f"inter over intra at {largest} B: {ratio:.2f}")
    assert ratio > 1.5


@needs_root
def test_inter_bandwidth_meets_a_one_gigabit_cap(tmp_path):
    out = tmp_path / "capped.h5"
    result, name = vcluster_run(
        ["--hosts", "2", "--slots", "2", "--rate", "1gbit"],
        # Latency mode, the models' input (docs/DESIGN.md): one operation per window. Bandwidth
        # loops of 10 back-to-back operations keep 4 ranks and the capped TCP path busy on 2
        # cores at once and land 65-82% of the share here, a limit of this machine.
        collbench_run(4, ["--placement", "inter,intra", "--ops", "allreduce", "-b", "4M",
                          "-e", "64M", "-f", "2", "--mode", "latency", "-n", "3", "-w", "1",
                          "--out", str(out)]))
    assert result.returncode == 0, result.stdout + result.stderr
    with h5py.File(out, "r") as f:
        headlines = f["headlines"][()]
        points = f["points"][()]
    inter = headlines[headlines["placement"] == b"inter"]
    assert len(inter) == 1
    # Two rails share each host's link: a rank sends its whole buffer in a two-rank ring, so
    # busbw is its half of 1 Gbit/s, less TCP/IP framing (1448 of 1514 bytes per frame).
    share_gbps = 1e9 / 8 / 2 * 1448 / 1514 / 1e9
    # The headline's large-message bandwidth (1/beta; a two-rank ring's bus factor is 1) within
    # 20% of the share. Measured 86-96% of it over 13 runs: the ACKs of the other direction
    # share the capped egress (about 2%) and each latency-mode sample starts after idle, so the
    # goodput sits below the share; the run's interval, its own uncertainty, missed the share in
    # 5 of the 13.
    fitted = float(inter["bandwidth_GBps"][0])
    low = 1 / float(inter["beta_ci_high_ns_per_byte"][0])
    high = 1 / float(inter["beta_ci_low_ns_per_byte"][0])
    print(f"inter: {fitted:.4f} GB/s [{low:.4f}, {high:.4f}] against a share of {share_gbps:.4f}")
    assert 0.8 * share_gbps < fitted < 1.2 * share_gbps, (fitted, low, high, share_gbps)
    # Inside a host the cap does not apply. Its fastest size, not its largest: Open MPI's tuned
    # allreduce switches algorithm past 16 MiB and runs 10x slower on this VM (2 ranks, 16 MiB
    # 3.1 ms, 32 MiB 114 ms, 64 MiB 313 ms; 28.6 ms at 64 MiB with `--mca coll ^tuned`), which
    # put 64 MiB within 3x of the share in 8 of 8 runs on 2026-12-01.
    intra = points[points["placement"] == b"intra"]["busbw_GBps"].max()
    assert intra > 3 * share_gbps


@needs_root
def test_rank_0_plays_ping_pong_with_one_rank_a_host(tmp_path, interposer):
    """Clock synchronisation measures each clock once: rank 0 plays ping-pong with the lowest
    rank of every other host, which hands its fitpoint to the rest of its host; ranks on rank 0's
    host play none. The hosts of the virtual cluster share one kernel, so an interposer gives
    each its hostname as boot id, as separate machines have (the true offset stays zero)."""
    out, counts = tmp_path / "clocks.h5", tmp_path / "counts"
    preload = ["-x", f"LD_PRELOAD={interposer('clock_per_host')}",
               "-x", f"COLLBENCH_TEST_COUNT_FILE={counts}"]
    result, _ = vcluster_run(
        ["--hosts", "3", "--slots", "2"],
        ["mpirun", "-np", "6", *preload, str(BINARY), "run", "--backend", "mpi", "--ops",
         "allreduce", "--mode", "latency", "-b", "8", "-e", "64", "-f", "8", *QUICK,
         "--out", str(out)])
    assert result.returncode == 0, result.stdout + result.stderr
    with h5py.File(out, "r") as f:
        host_of = {int(r["rank"]): text(r["host"]) for r in f["topology"][()]}
        clock_error = f["points"]["clock_error_us"]
        assert np.isfinite(clock_error).all() and (clock_error >= 0).all(), clock_error

    def talks(rank):
        lines = pathlib.Path(f"{counts}.{rank}").read_text().split()
        return {(lines[i], int(lines[i + 1])): int(lines[i + 2]) for i in range(0, len(lines), 3)}
    leaders = {host: min(r for r in host_of if host_of[r] == host) for host in host_of.values()}
    others = sorted(leader for leader in leaders.values() if leader != 0)
    assert len(others) == 2
    ping_pongs = talks(0)[("send", others[0])]
    assert ping_pongs > 0 and ping_pongs % 20 == 0
    syncs = ping_pongs // 20
    assert talks(0) == {(way, leader): ping_pongs for leader in others for way in ("send", "recv")}
    for rank, host in host_of.items():
        leader = leaders[host]
        if rank == 0:
            continue
        if leader == 0:
            expected = {}
        elif rank == leader:
            expected = {("send", 0): ping_pongs, ("recv", 0): ping_pongs,
                        **{("send", r): syncs for r in host_of if r != rank and host_of[r] == host}}
        else:
            expected = {("recv", leader): syncs}
        assert talks(rank) == expected, (rank, host)


@needs_root
def test_a_delayed_rank_names_itself_and_its_host(tmp_path, interposer):
    """A rank slowed by a 5 ms sleep after each collective, on the second of two hosts: it and
    its host are named, nobody else. Its host's two ranks are half the job's, so the host needs
    more points than the rank (p = 2 x 2^-16 after Holm's correction, of 16 points)."""
    out = tmp_path / "straggler.h5"
    preload = ["-x", f"LD_PRELOAD={interposer('delay_collectives')}",
               "-x", "COLLBENCH_TEST_DELAY_RANK=3", "-x", "COLLBENCH_TEST_DELAY_US=5000",
               "-x", "COLLBENCH_TEST_DELAY_WHAT=data"]
    result, name = vcluster_run(
        ["--hosts", "2", "--slots", "2"],
        ["mpirun", "-np", "4", *preload, str(BINARY), "run", "--backend", "mpi", "--mode",
         "latency", "-b", "8", "-e", "256K", "-f", "8", *QUICK, "--out", str(out)])
    assert result.returncode == 0, result.stdout + result.stderr
    slow_host = f"{name}-h2"
    with h5py.File(out, "r") as f:
        assert {int(r["rank"]): text(r["host"]) for r in f["topology"][()]}[3] == slow_host
        named = {(int(r["rank"]), text(r["host"]), text(r["kind"])) for r in f["stragglers"][()]}
        assert f["stragglers"].attrs["points"] == 16
    assert named == {(3, slow_host, "finishes_last"), (-1, slow_host, "finishes_last")}
    lines = [line for line in result.stdout.splitlines() if line.startswith("# Straggler:")]
    assert len(lines) == 2, result.stdout
    assert lines[0].startswith(f"# Straggler: rank 3 on host {slow_host} finished last")
    assert lines[1].startswith(f"# Straggler: host {slow_host} (2 of 4 ranks) finished last")


def test_vcluster_refuses_without_root():
    if shutil.which("setpriv") is None or os.geteuid() != 0:
        pytest.skip("needs root and setpriv to become an unprivileged user")
    result = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                             str(VCLUSTER), "up"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "root" in result.stderr
