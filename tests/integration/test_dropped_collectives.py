"""A collective that did nothing cannot pass. Interposers drop the float collectives of one count
(tests/interpose: drop_collectives.c before Open MPI, drop_nccl.c before the NCCL stand-in):
always, from some call on (a fabric that stops writing mid-sweep), or, over MPI, every call but
the checks (which see a poisoned output), so that validation passes and only the times can
tell. Every run is a real launch of two ranks; every count is read back from the file."""
import subprocess

import pytest

from conftest import (BINARY, FIXED_COUNT, ROOT, environment, every_collective, points_frame,
                      run_mpi, run_preloaded, text)

STANDIN = BINARY.parents[1] / "tests" / "standin" / "lib"
DROP_NCCL = BINARY.parents[1] / "tests" / "interpose" / "libdrop_nccl.so"
BACKENDS = ["mpi", "nccl"]
NRANKS = 2
# Elements a rank passes: the count of a 16 KiB allreduce, broadcast, reduce or sendrecv, of a
# 32 KiB allgather, reduce-scatter, alltoall, gather or scatter on two ranks, and of the steps of
# a 32 KiB allreduce_hier on one node of two (its reduce-scatter's share, then the rail's
# allreduce and the allgather).
DROPPED = 4096
HIERARCHY_NODE_RANKS = 2
SWEEP = ["-b", "8K", "-e", "64K", "-f", "2", "--ops", "all", "--inplace", "-r", "0", *FIXED_COUNT]


def run_dropped(backend, interposer, args, **drop):
    """`collbench run` on two ranks with the backend's drop interposer, COLLBENCH_TEST_DROP_*
    set from `drop`; without `drop`, without the interposer."""
    if backend == "mpi":
        if not drop:
            return run_mpi(NRANKS, ["run", *args])
        return run_preloaded(NRANKS, ["run", *args], interposer("drop_collectives"),
                             **{f"DROP_{k}": str(v) for k, v in drop.items()})
    if not (STANDIN / "libnccl.so.2").exists():
        pytest.skip("this collbench was built without the NCCL backend and its stand-in")
    variables = {"LD_LIBRARY_PATH": str(STANDIN)}
    if drop:
        variables["LD_PRELOAD"] = str(DROP_NCCL)
        variables.update({f"COLLBENCH_TEST_DROP_{k}": str(v) for k, v in drop.items()})
    result = subprocess.run([str(BINARY), "run", "--backend", "nccl", "--np", str(NRANKS), *args],
                            capture_output=True, text=True, timeout=300,
                            env=environment(variables), cwd=ROOT)
    assert "collbench stand-in (pid" not in result.stderr, result.stderr
    return result


def steps_count(point):
    """The count each library call of the point passes."""
    if text(point["collective"]) == "allreduce_hier":
        return point["count"] // HIERARCHY_NODE_RANKS
    return point["count"]


def never_written(point, backend):
    """Summed over ranks, the result elements that must differ from what validation left in the
    buffers before the operation: every one out of place (poison); in place, all but a rank's
    own share of an allgather and a gather, its own block of an alltoall and a scatter's root's
    own share, which already hold their answer (a sum's inputs never equal its results, nor a
    sendrecv's neighbour's input its own)."""
    kind, count, in_place = text(point["collective"]), int(point["count"]), bool(point["in_place"])
    per_rank = NRANKS * count if kind in ("allgather", "alltoall", "gather") else count
    holders = {"reduce": 1, "gather": 1, "broadcast": NRANKS - 1}.get(kind, NRANKS)
    if kind == "broadcast" and not in_place and backend == "nccl":
        holders += 1  # NCCL copies the root's buffer to its own output, and it is checked there
    own = count if in_place and kind in ("allgather", "alltoall", "gather") else 0
    roots_own = count if in_place and kind == "scatter" else 0
    return holders * (per_rank - own) - roots_own


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_dropped_collective_is_wrong_in_every_element_it_should_have_written(
        backend, tmp_path, interposer):
    out = tmp_path / "dropped.h5"
    result = run_dropped(backend, interposer, [*SWEEP, "--out", str(out)], COUNT=DROPPED)
    assert result.returncode == 1, result.stderr
    points = points_frame(out)
    dropped = set()
    for point in points:
        where = (text(point["collective"]), int(point["size_bytes"]), bool(point["in_place"]))
        expected = never_written(point, backend) if steps_count(point) == DROPPED else 0
        assert (point["wrong"], point["wrong_after_timing"]) == (expected, expected), where
        if expected:
            dropped.add((where[0], where[2]))
    # Every collective, out of place and in place, met the drop at one size; but NCCL's alltoall
    # and sendrecv, which have no in-place variant (run out of place only, docs/gpus.md).
    kinds = {text(point["collective"]) for point in points}
    out_of_place_only = {("alltoall", True), ("sendrecv", True)} if backend == "nccl" else set()
    assert kinds == set(every_collective())
    assert dropped == {(kind, in_place) for kind in kinds for in_place in (False, True)} - \
        out_of_place_only, sorted(dropped)
    assert result.stdout.count("# #wrong at ") == len(dropped)
    assert "wrong in the check before timing" in result.stdout


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_fabric_that_stops_writing_mid_sweep_is_caught_after_timing(
        backend, tmp_path, interposer):
    """The first call of the count (the check before timing) goes through, every later one is
    dropped: only the check after the last round's timed samples can see it."""
    out = tmp_path / "stopped.h5"
    result = run_dropped(backend, interposer, ["-b", "16K", "-e", "16K", *FIXED_COUNT,
                                               "--out", str(out)],
                         COUNT=DROPPED, FROM=2)
    assert result.returncode == 1, result.stderr
    points = points_frame(out)
    allreduce = points[[text(c) == "allreduce" for c in points["collective"]]]
    assert len(allreduce) == 2  # latency and bandwidth
    assert (allreduce["wrong"] == 0).all() and (allreduce["wrong_after_timing"] == 8192).all()
    assert ("# #wrong at 16384 B out of place: 0 wrong in the check before timing, 8192 wrong "
            "in the check after timing") in result.stdout


def implausible_marks(out):
    return [text(m) for m in points_frame(out)["implausible"]]


def test_a_collective_dropped_only_while_timed_is_implausible(tmp_path, interposer):
    """Each check's call goes through and passes; every other is dropped, and the times say a
    rate no memory here moves. The same run without the interposer is the negative control:
    nothing marked, and the spec passes."""
    backend = "mpi"
    args = ["-b", "64K", "-e", "64K", "--ops", "allreduce", *FIXED_COUNT]
    dropped = tmp_path / "dropped.h5"
    result = run_dropped(backend, interposer, [*args, "--out", str(dropped)],
                         COUNT=16384, WHEN="unwatched")
    assert result.returncode == 0, result.stderr
    points = points_frame(dropped)
    assert (points["wrong"] == 0).all() and (points["wrong_after_timing"] == 0).all()
    # The bandwidth loop's: a latency sample waits for its window, dropped or not.
    marks = dict(zip((text(m) for m in points["mode"]), implausible_marks(dropped)))
    assert marks["bandwidth"] == "busbw_above_copy", points["busbw_GBps"]
    assert "# implausible at 65536 B out of place bandwidth: busbw" in result.stdout
    # `report` reads the bound back from the file and prints what `run` printed.
    report = subprocess.run([str(BINARY), "report", str(dropped)], capture_output=True, text=True,
                            timeout=120, env=environment(), cwd=ROOT)
    for line in result.stdout.splitlines():
        if line.startswith(("# plausible:", "# implausible at")):
            assert line in report.stdout.splitlines(), line
    spec = tmp_path / "spec.toml"
    spec.write_text('title = "dropped"\n[[rule]]\nname = "allreduce-busbw"\n'
                    'collective = "allreduce"\nbusbw_min = "1 MB/s"\n')
    checked = check(dropped, spec)
    assert checked.returncode == 1, checked.stdout
    assert "implausible: busbw" in checked.stdout

    control = tmp_path / "control.h5"
    clean = run_dropped(backend, interposer, [*args, "--out", str(control)])
    assert clean.returncode == 0, clean.stderr
    assert implausible_marks(control) == ["", ""]
    assert "# implausible" not in clean.stdout
    assert check(control, spec).returncode == 0


def check(result_file, spec):
    return subprocess.run([str(BINARY), "check", str(result_file), "--spec", str(spec)],
                          capture_output=True, text=True, timeout=120, env=environment(),
                          cwd=ROOT)
