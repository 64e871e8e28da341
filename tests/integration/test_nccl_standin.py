"""The NCCL backend end to end without a GPU: `collbench run --backend nccl` over the stand-in of
the CUDA runtime and NCCL (tests/standin, docs/gpus.md, "The NCCL path without a GPU"), put before the
real libraries by LD_LIBRARY_PATH. The real backend, bootstrap, launcher, hierarchy, graphs,
validation kernels (their host build), profiler plugin and fault paths run; the stand-in moves
and reduces real data between the ranks, and aborts, naming the call, on what a GPU would
punish only with a crash or a hang. Every run here is checked for such an abort."""
import json
import re
import subprocess
from collections import defaultdict
from pathlib import Path

import h5py
import numpy as np
import pytest

from conftest import (BINARY, FIXED_COUNT, QUICK, ROOT, environment, library_collectives, run_plain,
                      table_rows, text)

STANDIN = BINARY.parents[1] / "tests" / "standin" / "lib"
COUNT_GRAPH_LAUNCHES = BINARY.parents[1] / "tests" / "interpose" / "libcount_graph_launches.so"
VIOLATION = "collbench stand-in (pid"
SEGMENTS = Path("/dev/shm")
TYPES = "int8,uint8,int32,uint32,int64,uint64,half,float,double,bfloat16,f8e4m3,f8e5m2"
LIBRARY_COLLECTIVES = ",".join(library_collectives())
OUT_OF_PLACE_ONLY = [b"alltoall", b"sendrecv"]  # NCCL has no in-place variant of either


@pytest.fixture(scope="module", autouse=True)
def standin_built():
    if not (STANDIN / "libnccl.so.2").exists():
        pytest.skip(f"no stand-in in {STANDIN}: this collbench was built without the NCCL backend")


def standin_environment(faults=None):
    """The stand-in first on the library path; faults as COLLBENCH_STANDIN_<NAME>."""
    extra = {"LD_LIBRARY_PATH": str(STANDIN)}
    extra.update({f"COLLBENCH_STANDIN_{k}": str(v) for k, v in (faults or {}).items()})
    return environment(extra)


@pytest.fixture(autouse=True)
def no_segment_left_behind():
    """A rank killed before all joined its communicator leaves that communicator's segment in
    /dev/shm (the last rank to join unlinks it): removed after each test."""
    before = set(SEGMENTS.glob("collbench-standin-*"))
    yield
    for left in set(SEGMENTS.glob("collbench-standin-*")) - before:
        left.unlink(missing_ok=True)


def checked(result):
    assert VIOLATION not in result.stderr, result.stderr
    return result


# Each rank's NCCL host identity shared by consecutive pairs: two nodes of two (run_mpirun).
TWO_PER_NODE = "NCCL_HOSTID=node$((OMPI_COMM_WORLD_RANK / 2))"


def run_np(np_, args, timeout=300, env=None, **faults):
    """`run --backend nccl --np N`: the local launcher and its NCCL bootstrap; `env` more
    variables."""
    command = [str(BINARY), "run", "--backend", "nccl", "--np", str(np_), *args]
    variables = standin_environment(faults)
    variables.update(env or {})
    return checked(subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                                  env=variables, cwd=ROOT))


def run_mpirun(np_, args, per_rank="", timeout=300, **faults):
    """Under mpirun (NCCL's id broadcast over MPI); `per_rank`, shell assignments each rank
    makes before it starts (they may read OMPI_COMM_WORLD_RANK), such as TWO_PER_NODE."""
    program = [str(BINARY), "run", "--backend", "nccl", *args]
    if per_rank:
        program = ["sh", "-c", f'{per_rank} exec "$0" "$@"', *program]
    exported = ["LD_LIBRARY_PATH", *(f"COLLBENCH_STANDIN_{name}" for name in faults)]
    command = ["mpirun", "-np", str(np_), *(f for name in exported for f in ("-x", name)),
               *program]
    return checked(subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                                  env=standin_environment(faults), cwd=ROOT))


# What the stand-in says of each communicator it destroys (COLLBENCH_STANDIN_REGISTRATION_REPORT).
REGISTRATIONS = re.compile(r"collbench stand-in registrations \(pid (\d+)\): rank \d+ of (\d+): "
                           r"(\d+) data collectives, (\d+) on registered buffers, "
                           r"(\d+) by symmetric kernels")


def registrations(stderr):
    """Per process, a (ranks, data collectives, on registered buffers, by symmetric kernels)
    tuple for each communicator it ended."""
    communicators = defaultdict(list)
    for pid, *counts in REGISTRATIONS.findall(stderr):
        communicators[pid].append(tuple(int(c) for c in counts))
    return communicators


def points_of(path):
    with h5py.File(path, "r") as f:
        return f["points"][()], {key: text(value) for key, value in f.attrs.items()}


@pytest.fixture(scope="module", params=[2, 4])
def sweep(request, tmp_path_factory):
    nranks = request.param
    out = tmp_path_factory.mktemp(f"standin-np{nranks}") / "sweep.h5"
    result = run_np(nranks, ["--virtual-nodes", "-b", "8", "-e", "64K", "-f", "16", "--inplace",
                             "--ops", LIBRARY_COLLECTIVES, "-r", "1", "-d", "int8,float", "-o", "all",
                             "--keep-samples", "all", "--out", str(out), *FIXED_COUNT])
    assert result.returncode == 0, result.stderr
    return nranks, out, result


def test_every_point_validates_clean(sweep):
    nranks, out, result = sweep
    points, attrs = points_of(out)
    assert attrs["complete"] == 1 and attrs["nranks"] == nranks
    assert {text(c) for c in points["collective"]} == set(LIBRARY_COLLECTIVES.split(","))
    rooted = np.isin(points["collective"], [b"broadcast", b"reduce", b"gather", b"scatter"])
    assert (points["root"][rooted] == 1).all() and (points["root"][~rooted] == -1).all()
    # NCCL has no in-place alltoall (a send and a receive per peer on the same block) nor
    # sendrecv (a send and a receive of one buffer).
    no_in_place = np.isin(points["collective"], OUT_OF_PLACE_ONLY)
    assert set(points["in_place"][no_in_place]) == {0}
    assert set(points["in_place"][~no_in_place]) == {0, 1}
    assert ("# note: NCCL has no in-place alltoall: its sends and receives of one block share the "
            "buffer; alltoall in place skipped") in result.stdout
    assert ("# note: NCCL has no in-place sendrecv: its send and receive share the buffer; "
            "sendrecv in place skipped") in result.stdout
    assert {text(o) for o in points["redop"]} >= {"sum", "prod", "min", "max"}
    assert set(points["in_place"]) == {0, 1}
    assert (points["wrong"] == 0).all()
    assert "# Out of bounds values : 0 OK" in result.stdout


def test_table_agrees_with_the_file(sweep):
    _, out, result = sweep
    points, _ = points_of(out)
    rows = table_rows(result.stdout)
    rows_in_file = {(p["collective"], p["datatype"], p["redop"], p["size_bytes"]) for p in points}
    assert len(rows) == len(rows_in_file)
    # A row: two modes, out of place and in place; alltoall and sendrecv out of place only.
    assert len(points) == sum(2 if row[0] in OUT_OF_PLACE_ONLY else 4 for row in rows_in_file)
    assert {int(r[0]) for r in rows} == {int(s) for s in points["size_bytes"]}


def test_provenance_names_nccl_the_stand_in_gpu_and_the_choices_nccl_reported(sweep):
    nranks, out, _ = sweep
    points, attrs = points_of(out)
    assert attrs["backend"] == "nccl"
    assert attrs["nccl_version_header"] == attrs["nccl_version_library"]
    assert attrs["backend_version"] == f"NCCL {attrs['nccl_version_library']}"
    assert attrs["bootstrap"] == "local launcher (--np)"
    assert attrs["gpu_name"].startswith("collbench stand-in")
    assert attrs["cuda_graphs"] == "no"
    # The profiler plugin built into collbench was loaded, and told of every collective but
    # those NCCL runs as sends and receives (src/enqueue.cc, taskAppend), with no algorithm. An
    # allgather's and a broadcast's count arrives in bytes.
    assert attrs["nccl_profiler"].startswith("collbench: algorithm, protocol and channels per "
                                             "point; none for alltoall, gather, scatter and "
                                             "sendrecv")
    point_to_point = np.isin(points["collective"],
                             [b"alltoall", b"gather", b"scatter", b"sendrecv"])
    assert set(points["chosen_algorithm"][~point_to_point]) == {b"Ring"}
    assert set(points["chosen_protocol"][~point_to_point]) == {b"LL"}  # every size below 64 KiB
    assert set(points["chosen_algorithm"][point_to_point]) == {b""}
    with h5py.File(out, "r") as f:
        topology = f["topology"][()]
    assert list(topology["rank"]) == list(range(nranks))
    assert len({text(b) for b in topology["gpu_bus_id"]}) == nranks  # a GPU each


@pytest.mark.parametrize("nranks", [2, 3, 4])
def test_every_datatype_and_op_is_exact(tmp_path, nranks):
    """half, bfloat16, fp8 and avg included; at 3 ranks avg on floating types is inexact by
    NCCL's definition (a rounded 1/p) and left unvalidated, as on MPI."""
    out = tmp_path / "types.h5"
    result = run_np(nranks, ["--virtual-nodes", "--ops", LIBRARY_COLLECTIVES, "-r", str(nranks - 1),
                             "-d", TYPES, "-o", "all", "-b", "64", "-e", "256",
                             "-f", "4", "--mode", "bandwidth", "--out", str(out), *FIXED_COUNT])
    assert result.returncode == 0, result.stderr
    points, _ = points_of(out)
    assert {text(d) for d in points["datatype"]} == set(TYPES.split(","))
    assert (points["wrong"] <= 0).all(), points[points["wrong"] > 0]
    validated = points[points["wrong"] == 0]
    assert {text(o) for o in validated["redop"]} == {"sum", "prod", "min", "max", "avg", "none"}


def test_messages_larger_than_a_chunk_complete_in_a_ring_and_to_a_root(tmp_path):
    """A sendrecv's send waits for its peer's receive, which waits in its own send, around the
    ring: only a group's sends and receives progressed together, as NCCL's group launch does,
    complete it past the stand-in's 64 KiB chunk; a gather's and a scatter's root exchanges
    with every rank, itself included, in one group."""
    out = tmp_path / "chunks.h5"
    result = run_np(4, ["--virtual-nodes", "--ops", "sendrecv,gather,scatter", "-r", "2",
                        "-b", "512K", "-e", "2M", "-f", "4", "--inplace", "--out", str(out),
                        *FIXED_COUNT], timeout=120)
    assert result.returncode == 0, result.stderr
    points, _ = points_of(out)
    assert {text(c) for c in points["collective"]} == {"sendrecv", "gather", "scatter"}
    assert (points["count"] * 4 > 64 * 1024).all()  # every message more than one chunk
    assert (points["wrong"] == 0).all() and (points["wrong_after_timing"] == 0).all()


def test_under_mpirun_the_id_travels_over_mpi(tmp_path):
    out = tmp_path / "mpirun.h5"
    result = run_mpirun(2, ["-e", "4K", "--out", str(out), *FIXED_COUNT])
    assert result.returncode == 0, result.stderr
    points, attrs = points_of(out)
    assert attrs["bootstrap"] == "mpi" and attrs["nranks"] == 2
    assert (points["wrong"] == 0).all()


def test_graphs_replay_the_captured_launches(tmp_path):
    out = tmp_path / "graphs.h5"
    result = run_np(2, ["-G", "1", "-e", "64K", "-f", "16", "--inplace", "--out", str(out),
                        *FIXED_COUNT])
    assert result.returncode == 0, result.stderr
    points, attrs = points_of(out)
    assert attrs["cuda_graphs"] == "yes"
    assert (points["wrong"] == 0).all()


def test_graph_launches_per_bandwidth_sample_are_nccl_tests_G(tmp_path):
    """-G N launches each bandwidth sample's graph N times, as nccl-tests' -G N, its time per
    operation over all of them; counted beneath collbench, at the runtime's cudaGraphLaunch."""
    launched = {}
    for launches in (1, 3):
        out, count = tmp_path / f"G{launches}.h5", tmp_path / f"G{launches}.count"
        # Sizes whose operations take over 0.4 ms on the stand-in (1.6 ms at 4 MiB): the loop is
        # LoopSizing's least, 10, and is never resized, so no sample is redone uncounted.
        result = run_np(2, ["-G", str(launches), "--ops", "allreduce", "-b", "4M", "-e", "8M",
                            "--mode", "bandwidth", "--out", str(out), *FIXED_COUNT],
                        env={"LD_PRELOAD": str(COUNT_GRAPH_LAUNCHES),
                             "COLLBENCH_TEST_COUNT_FILE": str(count)})
        assert result.returncode == 0, result.stderr
        points, attrs = points_of(out)
        assert attrs["cuda_graphs"] == "yes" and (points["wrong"] == 0).all()
        assert (points["ops_per_sample"] == 10 * launches).all()  # the batch's, launched N times
        launched[launches] = [int(line) for line in count.read_text().split()]
        assert len(launched[launches]) == 2  # a line per rank
    # Every sample of every point launched twice more on each rank; nothing else changed.
    extra = 2 * int(points["samples"].sum())
    assert [three - one for one, three in zip(sorted(launched[1]), sorted(launched[3]))] == \
        [extra, extra]


def test_pinned_algorithms_and_protocols_are_what_nccl_reports(tmp_path):
    out = tmp_path / "tuned.h5"
    result = run_np(2, ["--nccl-algo", "Ring,Tree", "--nccl-proto", "LL,Simple", "-e", "1K",
                        "--out", str(out), *FIXED_COUNT])
    assert result.returncode == 0, result.stderr
    points, _ = points_of(out)
    pinned = {(text(p["collective"]), text(p["algorithm"]), text(p["protocol"])) for p in points}
    assert ("allreduce", "Tree", "LL") in pinned and ("allgather", "Ring", "Simple") in pinned
    assert not any(a == "Tree" and c != "allreduce" for c, a, _ in pinned)  # Tree: allreduce only
    for pin in ("algorithm", "protocol"):  # unpinned rows: NCCL's own choice
        pinned_rows = points[points[pin] != b""]
        assert (pinned_rows[f"chosen_{pin}"] == pinned_rows[pin]).all()
    assert (points["wrong"] == 0).all()


def test_rows_a_pinned_algorithm_cannot_run_are_skipped_saying_why(tmp_path):
    """PAT has no scaled sum: NCCL fails an avg reduce-scatter pinned to it (floats and integers
    alike), which would end the sweep with exit 3 at its first such row; those rows are skipped
    with a note, and the rest are measured."""
    out = tmp_path / "pat.h5"
    result = run_np(2, ["--virtual-nodes", "--nccl-algo", "PAT", "--ops", "reduce_scatter", "-o",
                        "avg,sum", "-d", "float,int32", "-e", "1K", "--out", str(out),
                        *FIXED_COUNT])
    assert result.returncode == 0, result.stderr
    for datatype, scaling in (("float", "a pre-multiplied sum"), ("int32", "a sum divided after")):
        assert (f"# note: NCCL algorithm PAT, protocol auto: PAT has no scaled sum (avg of "
                f"{datatype}: {scaling}); reduce_scatter {datatype} avg skipped") in result.stdout
    points, _ = points_of(out)
    pat = {(text(p["datatype"]), text(p["redop"])) for p in points if p["algorithm"] == b"PAT"}
    assert pat == {("float", "sum"), ("int32", "sum")}
    assert set(points[points["algorithm"] == b"PAT"]["chosen_algorithm"]) == {b"PAT"}
    assert (points["wrong"] == 0).all()


def test_no_sample_times_the_first_use_of_an_algorithm(tmp_path):
    """NCCL connects an algorithm and protocol's channels at their first use (runtime connect):
    here a second, at the first LL and the first Simple call. Without warm-up or check (-w 0
    -c 0), where the choice switches from LL to Simple at 64 KiB, the untimed calls that size a
    point's loop take that second, never a sample."""
    out = tmp_path / "connect.h5"
    result = run_np(2, ["-w", "0", "-c", "0", "--ops", "allreduce", "-b", "8", "-e", "1M",
                        "-f", "8", "--min-samples", "6", "--min-time", "0", "--max-time", "0.05",
                        "--out", str(out)], CONNECT_MS=1000)
    assert result.returncode == 0, result.stderr
    points, _ = points_of(out)
    assert set(points["chosen_protocol"]) == {b"LL", b"Simple"}
    assert (points["time_max_us"] < 100_000).all(), points[["size_bytes", "time_max_us"]]


def test_every_placement_on_virtual_nodes(tmp_path):
    out = tmp_path / "placements.h5"
    result = run_np(4, ["--virtual-nodes", "--placement", "all", "-e", "1K", "--out", str(out),
                        *FIXED_COUNT])
    assert result.returncode == 0, result.stderr
    points, _ = points_of(out)
    assert len({text(p) for p in points["placement"]}) >= 2
    assert (points["wrong"] == 0).all()


def test_rank_subsets_measure_t_of_p_with_pinned_tree(tmp_path):
    """--ranks 2,3 of 4 ranks: sub-communicators split from the world (ranks outside a subset
    wait; the world itself is not asked for), pinned to Tree as well, every point validated."""
    out = tmp_path / "subsets.h5"
    result = run_np(4, ["--virtual-nodes", "--ops", "allreduce", "--ranks", "2,3", "--nccl-algo",
                        "Tree", "-b", "8", "-e", "1K", "-f", "4", "--out", str(out), *FIXED_COUNT])
    assert result.returncode == 0, result.stderr
    points, _ = points_of(out)
    assert set(points["nranks"]) == {2, 3}
    assert set(points[points["algorithm"] == b"Tree"]["nranks"]) == {2, 3}
    assert (points["wrong"] == 0).all()


def test_hierarchical_allreduce_over_two_nodes_of_two(tmp_path):
    out = tmp_path / "hier.h5"
    result = run_mpirun(4, ["--ops", "allreduce_hier", "-d", "int32,float,bfloat16", "-o", "all",
                            "-b", "64", "-e", "16K", "-f", "16", "--inplace", "--out", str(out),
                            *FIXED_COUNT], per_rank=TWO_PER_NODE)
    assert result.returncode == 0, result.stderr
    points, attrs = points_of(out)
    assert attrs["nodes"] == 2 and attrs["ranks_per_node"] == 2
    assert set(points["collective"]) == {b"allreduce_hier"}
    assert (points["wrong"] <= 0).all() and (points["wrong"] == 0).any()
    # NCCL's choice for the step across the nodes (it was looked up with the whole count).
    assert set(points["chosen_algorithm"]) == {b"Ring"}


def test_graphs_capture_the_hierarchical_steps_on_registered_windows(tmp_path):
    """Under -G the node and rail streams join the group's capture (an event between them), so
    allreduce_hier is replayed as a graph like the flat allreduce beside it, every result right.
    Under -R 2 the run's buffers are windows of the node and rail communicators too: the node's
    steps run NCCL's symmetric kernels, the rail's (two nodes) the registered buffers."""
    out = tmp_path / "hier-graphs.h5"
    result = run_mpirun(4, ["-G", "1", "-R", "2", "--ops", "allreduce,allreduce_hier",
                            "-d", "float,int32", "-b", "64", "-e", "16K", "-f", "16", "--inplace",
                            "--out", str(out), *FIXED_COUNT],
                        per_rank=TWO_PER_NODE, REGISTRATION_REPORT=1)
    assert result.returncode == 0, result.stderr
    points, attrs = points_of(out)
    assert attrs["cuda_graphs"] == "yes"
    assert set(points["collective"]) == {b"allreduce", b"allreduce_hier"}
    assert (points["wrong"] == 0).all()
    communicators = registrations(result.stderr)
    assert len(communicators) == 4
    for ended in communicators.values():
        pairs = [c for c in ended if c[0] == 2 and c[2] > 0]  # the node's and the rail's
        assert sorted(c[3] > 0 for c in pairs) == [False, True], ended


@pytest.mark.parametrize("register,nodes", [(0, "one"), (1, "one"), (2, "one"), (2, "virtual")])
def test_registered_buffers_carry_the_measured_collectives(tmp_path, register, nodes):
    """-R with nccl-tests' numbers: 1 registers each rank's buffers with the communicator, 2 as
    symmetric windows, which on one node NCCL 2.28 hands to its symmetric kernels (allgather;
    allreduce sum of floats), reported to no profiler: those points have no chosen algorithm.
    Across nodes (--virtual-nodes, a rank each) the windows are still NCCL's symmetric memory
    (its symmetricSupport looks at a host's own ranks only), but no symmetric kernel runs."""
    out = tmp_path / "registered.h5"
    result = run_np(2, [*(["--virtual-nodes"] if nodes == "virtual" else []), "-R", str(register),
                        "--ops", "allreduce,allgather", "-o", "sum,max", "-e", "4K", "-f", "16",
                        "--out", str(out), *FIXED_COUNT], REGISTRATION_REPORT=1)
    assert result.returncode == 0, result.stderr
    points, attrs = points_of(out)
    assert (points["wrong"] == 0).all()
    assert json.loads(attrs["settings_json"])["buffer_registration"] == [
        "none", "local", "symmetric"][register]
    communicators = registrations(result.stderr)
    assert len(communicators) == 2
    symmetric = register == 2 and nodes == "one"
    for ended in communicators.values():
        _, collectives, registered, by_symmetric = max(ended, key=lambda c: c[1])  # the world
        assert (registered > 0) == (register > 0) and registered < collectives  # control plane
        assert (by_symmetric > 0) == symmetric
    ran_symmetric = (points["collective"] == b"allgather") | (points["redop"] == b"sum")
    reported = points["chosen_algorithm"] != b""
    assert (reported == ~ran_symmetric).all() if symmetric else reported.all()
    assert ("none where NCCL's symmetric kernels ran it" in attrs["nccl_profiler"]) == (
        register == 2)


def test_overlap_beside_a_memory_load(tmp_path):
    out = tmp_path / "overlap.h5"
    result = run_np(2, ["--ops", "allreduce", "--overlap-load", "memory", "-b", "1K", "-e", "4K",
                        "-f", "4", "--out", str(out), *QUICK])
    assert result.returncode == 0, result.stderr
    assert "runs as a stream kernel on a stream of its own" in result.stdout
    points, _ = points_of(out)
    latency = points[points["mode"] == b"latency"]
    assert len(latency) == 2 and (latency["overlap_load_slowdown"] > 0).all()


# The first allgather hangs: the allreduce curve before it is finished and written.
def test_a_hung_collective_times_out_with_exit_3_and_keeps_the_points(tmp_path):
    out = tmp_path / "hung.h5"
    result = run_np(2, ["-e", "64K", "-T", "3", "--out", str(out), *QUICK], HANG="1:AllGather")
    assert result.returncode == 3, result.stderr
    # Both ranks wait on the hung collective: the first watchdog to fire speaks.
    assert re.search(r"rank [01] on \S+: timeout: no progress for 3 s \(-T\)", result.stderr)
    points, attrs = points_of(out)
    assert attrs["complete"] == 0 and set(points["collective"]) == {b"allreduce"}
    assert len(points) == 2 * 14  # two modes, 8 B to 64 KiB
    assert (points["wrong"] == 0).all()


def test_a_rank_that_never_joins_ends_the_start_with_exit_3(tmp_path):
    """ncclCommInitRank waits for every rank: the watchdog covers the start, and nothing is
    written."""
    out = tmp_path / "never.h5"
    result = run_np(2, ["-e", "1K", "-T", "3", "--out", str(out), *QUICK], INIT_HANG="1")
    assert result.returncode == 3, result.stderr
    assert re.search(r"rank [01] on \S+: timeout: no progress for 3 s \(-T\) in starting the "
                     r"nccl backend", result.stderr), result.stderr
    assert not out.exists()


def test_a_rank_that_never_joins_a_split_ends_the_run_with_exit_3_keeping_the_points(tmp_path):
    """A pinned pass makes communicators of its own (ncclCommSplit): a rank that never joins them
    (its third communicator: the world, the topology's node, the pass's) leaves the others
    waiting there; the watchdog ends the run with exit 3, the library's own pass kept."""
    out = tmp_path / "never-split.h5"
    result = run_np(2, ["-e", "1K", "-T", "3", "--nccl-algo", "Ring", "--ops", "allreduce",
                        "--out", str(out), *QUICK], INIT_HANG="1:3")
    assert result.returncode == 3, result.stderr
    assert re.search(r"rank [01] on \S+: timeout: no progress for 3 s \(-T\) in creating the "
                     r"pass's communicators at pass 2 of 2 \(NCCL algorithm Ring, protocol auto, "
                     r"world\); a peer", result.stderr), result.stderr
    points, attrs = points_of(out)
    assert attrs["complete"] == 0 and len(points) > 0
    assert set(points["algorithm"]) == {b""}  # the library's own choice, not the pinned Ring


def test_an_asynchronous_error_ends_the_run_with_exit_3_naming_it(tmp_path):
    out = tmp_path / "async.h5"
    result = run_np(2, ["-e", "64K", "-T", "30", "--out", str(out), *QUICK],
                    ASYNC_ERROR="1:AllGather")
    assert result.returncode == 3, result.stderr
    assert re.search(r"rank 1 on \S+: fault[^:\n]*: asynchronous NCCL error: remote process exited or "
                     r"there was a network error", result.stderr), result.stderr
    points, attrs = points_of(out)
    assert attrs["complete"] == 0 and set(points["collective"]) == {b"allreduce"}


def test_an_asynchronous_error_on_a_hierarchy_communicator_ends_the_run_at_once(tmp_path):
    """The error is on a node or rail communicator (2 ranks) while the timer waits on the
    world's stream (4 ranks): every live communicator is polled, and all are aborted."""
    out = tmp_path / "hier-async.h5"
    result = run_mpirun(4, ["--ops", "allreduce_hier", "-e", "64K", "-T", "60", "--out", str(out),
                            *QUICK], per_rank=TWO_PER_NODE, timeout=120,
                        ASYNC_ERROR="1:AllReduce:2")
    assert result.returncode == 3, result.stderr
    assert "asynchronous NCCL error: remote process exited" in result.stderr, result.stderr
    assert "timeout" not in result.stderr


def test_damaged_results_are_counted_at_every_point(tmp_path):
    """One byte of every float result flipped on the last rank: validation, on the device,
    finds it at every point, and the run exits 1. A reduce's result is its root's: there, the
    last rank; a broadcast's the others': there, rank 0 the root."""
    float32 = 7  # ncclFloat32
    for ops, root, collectives in (("allreduce,allgather,reduce_scatter,alltoall,broadcast",
                                    "0", 5),
                                   ("reduce", "1", 1)):
        out = tmp_path / f"damaged-{root}.h5"
        result = run_np(2, ["--ops", ops, "-r", root, "-d", "float", "-e", "1K", "-f", "4",
                            "--inplace", "--out", str(out), *FIXED_COUNT], CORRUPT=f"1:{float32}")
        assert result.returncode == 1, result.stderr
        points, _ = points_of(out)
        variants = 2 * collectives - ("alltoall" in ops)  # in place and out, alltoall out only
        assert len(points) == variants * 4 * 2  # x sizes x modes
        assert (points["wrong"] >= 1).all(), (ops, points["wrong"])


def test_a_delayed_rank_is_named_a_straggler(tmp_path):
    out = tmp_path / "slow.h5"
    result = run_np(3, ["--virtual-nodes", "--mode", "latency", "-b", "8", "-e", "64K", "-f", "8",
                        "--ops", "allreduce,allgather", "--out", str(out), *QUICK],
                    DELAY_US="2:200")
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if line.startswith("# Straggler:")]
    assert len(lines) == 1 and lines[0].startswith("# Straggler: rank 2 "), result.stdout


def test_ranks_sharing_a_gpu_need_mps_and_virtual_nodes(tmp_path):
    """One stand-in GPU for two ranks: refused without MPS (exit 2, nothing written), refused by
    NCCL's duplicate-GPU rule without --virtual-nodes, and run with both; beside an overlap load
    the footer says the ranks' loads share the GPU."""
    out = tmp_path / "shared.h5"
    args = ["-e", "64", "--out", str(out), *QUICK]
    alone = run_np(2, ["--virtual-nodes", *args], GPUS=1)
    assert alone.returncode == 2 and "CUDA MPS is not running" in alone.stderr, alone.stderr
    assert not out.exists()
    pipes = tmp_path / "mps"
    pipes.mkdir()
    (pipes / "control").touch()
    mps = {"env": {"CUDA_MPS_PIPE_DIRECTORY": str(pipes)}, "timeout": 120, "GPUS": 1, "MPS": 1}
    same_host = run_np(2, args, **mps)
    assert same_host.returncode == 2 and "add --virtual-nodes" in same_host.stderr
    shared = run_np(2, ["--virtual-nodes", "--ops", "allreduce", "--overlap-load", "memory",
                        *args], **mps)
    assert shared.returncode == 0, shared.stderr
    assert "under MPS the ranks' loads share this GPU, so 'the load alone' is every rank's load at " \
           "once" in shared.stdout
    _, attrs = points_of(out)
    assert attrs["cuda_mps"] == "yes"


@pytest.mark.parametrize("visible, runs", [("$OMPI_COMM_WORLD_LOCAL_RANK", True), ("0", False)])
def test_a_gpu_per_rank_by_cuda_visible_devices_is_no_sharing(tmp_path, visible, runs):
    """Each rank sees one GPU (srun --gpus-per-task=1, a per-rank CUDA_VISIBLE_DEVICES): two
    ranks on two GPUs run, where counting the GPUs a rank sees took them for two on one; two
    ranks shown the same GPU still need MPS."""
    out = tmp_path / "visible.h5"
    result = run_mpirun(2, ["-e", "1K", "--out", str(out), *QUICK],
                        per_rank=f"CUDA_VISIBLE_DEVICES={visible}", timeout=120)
    if runs:
        assert result.returncode == 0, result.stderr
        with h5py.File(out, "r") as f:
            buses = {text(b) for b in f["topology"][()]["gpu_bus_id"]}
        assert len(buses) == 2
    else:
        assert result.returncode == 2, result.stderr
        assert ("2 ranks of this host would share the GPU at 0000:01:00.0, but CUDA MPS is not "
                "running") in result.stderr
        assert not out.exists()


def test_ranks_on_one_gpu_under_mpirun_need_an_nccl_hostid_each(tmp_path):
    """Under mpirun nothing makes ranks on one GPU nodes of their own: with MPS they reached
    NCCL, whose "Duplicate GPU detected" failed the init (exit 3). collbench now refuses them
    first, saying what to set (exit 2, nothing written), and runs them with an NCCL_HOSTID each."""
    out = tmp_path / "one-gpu.h5"
    pipes = tmp_path / "mps"
    pipes.mkdir()
    (pipes / "control").touch()
    mps = f"CUDA_MPS_PIPE_DIRECTORY={pipes} COLLBENCH_STANDIN_MPS=1 COLLBENCH_STANDIN_GPUS=1"
    args = ["-e", "64", "--out", str(out), *QUICK]
    same = run_mpirun(2, args, per_rank=mps, timeout=120)
    assert same.returncode == 2, same.stderr
    assert ("2 ranks of this host are on the GPU at 0000:01:00.0 with one NCCL host identity"
            in same.stderr), same.stderr
    assert "NCCL_HOSTID=node$OMPI_COMM_WORLD_RANK" in same.stderr
    assert not out.exists()
    own = run_mpirun(2, args, per_rank=f"{mps} NCCL_HOSTID=node$OMPI_COMM_WORLD_RANK",
                     timeout=120)
    assert own.returncode == 0, own.stderr
    assert points_of(out)[1]["cuda_mps"] == "yes"


def test_links_from_gpu_memory_get_past_the_gpu_check_to_ucxs_answer(tmp_path):
    """`links --memory cuda` over the stand-in's GPUs: collbench's own check finds GPUs, and
    Debian's UCX, built without CUDA, is what refuses (exit 2, nothing written). A UCX built
    --with-cuda would reach the memory through the CUDA driver API, which the stand-in lacks."""
    out = tmp_path / "links-cuda.h5"
    command = ["mpirun", "-x", "LD_LIBRARY_PATH", "-np", "2", str(BINARY), "links", "--memory",
               "cuda", "-e", "4K", "--out", str(out)]
    result = checked(subprocess.run(command, capture_output=True, text=True, timeout=120,
                                    env=standin_environment(), cwd=ROOT))
    assert result.returncode == 2, result.stderr
    assert re.search(r"--memory cuda: UCX \S+ here was built without CUDA", result.stderr), \
        result.stderr
    assert not out.exists()


def test_report_and_fit_read_the_file(sweep):
    _, out, _ = sweep
    for command in (["report", str(out)], ["fit", str(out)]):
        result = run_plain(command)
        assert result.returncode == 0, result.stderr
