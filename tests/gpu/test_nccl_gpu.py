"""The NCCL backend on a real GPU: several ranks on one GPU (`--np N --virtual-nodes`, CUDA MPS
running), validation of every datatype and op, NCCL's own account of its choices (the built-in
profiler plugin), latency beside nccl-tests on the same ranks (when NCCL_TESTS_DIR names a build
of it), a hung rank, and pinned NCCL algorithms and protocols.

Run by ci/gpu-check, which builds with NCCL, starts MPS and points COLLBENCH at the binary. On a
host without a GPU every test is skipped ("needs a GPU: ..."). Results are read back through
`collbench report --format csv`, so these tests need no h5py (a GPU machine may lack it); the
checks that open the file directly skip visibly without it."""
import csv
import io
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import threading
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BINARY = pathlib.Path(os.environ.get("COLLBENCH", ROOT / "build" / "harness" / "collbench")).resolve()

ALL_TYPES = ["int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double",
             "bfloat16", "f8e4m3", "f8e5m2"]
FP8 = {"f8e4m3", "f8e5m2"}
ALL_OPS = {"sum", "prod", "min", "max", "avg"}
# The largest integer each floating type holds exactly (collectives/datatype.cpp).
EXACT_LIMIT = {"half": 1 << 11, "float": 1 << 24, "double": 1 << 53, "bfloat16": 1 << 8,
               "f8e4m3": 1 << 4, "f8e5m2": 1 << 3, "int8": 127, "uint8": 255}

# nccl-tests' build folder (built with MPI=1), for the side-by-side latency check.
NCCL_TESTS_DIR = os.environ.get("NCCL_TESTS_DIR", "")
# A gross error (time-sliced GPU, a unit off by 1000, a stalled rank) lies far outside this band
# of collbench's median over nccl-tests' median per iteration; the GPU-run issue measures the
# ratios themselves.
SIDE_BY_SIDE_BAND = (0.5, 2.0)

# Every run gets a wall-clock limit; these runs take seconds on an H200.
RUN_TIMEOUT_S = 120


def gpu_listing():
    """`nvidia-smi -L`'s lines, or why there are none."""
    if shutil.which("nvidia-smi") is None:
        return [], "nvidia-smi is not installed"
    try:
        result = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        return [], f"nvidia-smi -L failed ({error})"
    gpus = [line for line in result.stdout.splitlines() if line.startswith("GPU ")]
    if result.returncode != 0 or not gpus:
        why = (result.stderr or result.stdout).strip().splitlines()
        return [], f"nvidia-smi -L finds none ({why[0] if why else f'exit {result.returncode}'})"
    return gpus, ""


def compute_capability():
    """The first GPU's compute capability as (major, minor), or None if nvidia-smi won't say."""
    try:
        result = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                                capture_output=True, text=True, timeout=30)
        major, minor = result.stdout.split()[0].split(".")
        return int(major), int(minor)
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
        return None


def mps_control_pipe():
    return pathlib.Path(os.environ.get("CUDA_MPS_PIPE_DIRECTORY") or "/tmp/nvidia-mps") / "control"


@pytest.fixture(scope="module", autouse=True)
def gpu():
    gpus, why = gpu_listing()
    if not gpus:
        pytest.skip(f"needs a GPU: {why}")
    if not BINARY.exists():
        pytest.fail(f"{BINARY} is missing: build with NCCL first (ci/gpu-check)")
    probe = collbench(["run", "--backend", "nosuch"])
    if "nccl" not in probe.stderr.split("built:")[-1]:
        pytest.fail(f"{BINARY} was built without the NCCL backend: {probe.stderr.strip()}")
    return gpus


@pytest.fixture(scope="module")
def mps(gpu):
    """Several ranks on one GPU need CUDA MPS (ci/gpu-check starts it)."""
    if not mps_control_pipe().exists():
        pytest.fail(f"CUDA MPS is not running (no {mps_control_pipe()}): start it with "
                    "`nvidia-cuda-mps-control -d` (ci/gpu-check does)")


def collbench(args, timeout=RUN_TIMEOUT_S):
    """Runs collbench in a process group of its own: on a timeout the whole group is killed, so
    no rank lives on as an MPS client into the next test."""
    process = subprocess.Popen([str(BINARY), *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=ROOT,
                               start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def run_local(nranks, args, out, timeout=RUN_TIMEOUT_S):
    """`collbench run --backend nccl --np N --virtual-nodes -T 60 ...`, asserted to exit 0: a
    hang ends within a minute, with its rank named, rather than at the test's timeout."""
    result = collbench(["run", "--backend", "nccl", "--np", str(nranks), "--virtual-nodes",
                        "-T", "60", *args, "--out", str(out)], timeout=timeout)
    assert result.returncode == 0, (f"exit {result.returncode}\n--- stdout (tail)\n"
                                    f"{result.stdout[-4000:]}\n--- stderr\n{result.stderr[-4000:]}")
    return result


def points(path):
    """Every point of a result file, as dicts of strings (`report --format csv`)."""
    result = collbench(["report", str(path), "--format", "csv"])
    assert result.returncode == 0, result.stderr
    return list(csv.DictReader(io.StringIO(result.stdout)))


def checkable(datatype, redop, nranks):
    """Whether validation can check the point (collectives/pattern.cpp): avg has exact
    inputs only while 2p fits the type's exact integers and, on floating types, p is a power of
    two (NCCL multiplies by a rounded 1/p). Everything else is always checked."""
    if redop != "avg":
        return True
    floating = datatype in {"half", "float", "double", "bfloat16", "f8e4m3", "f8e5m2"}
    power_of_two = nranks & (nranks - 1) == 0
    return 2 * nranks <= EXACT_LIMIT.get(datatype, 1 << 31) and (not floating or power_of_two)


def expected_types():
    capability = compute_capability()
    if capability is not None and capability < (9, 0):
        return [t for t in ALL_TYPES if t not in FP8]  # NCCL reduces fp8 on sm_90 and newer
    return ALL_TYPES


# (a) Validation: every datatype and op, with 1, 2 and 4 ranks; in place; CUDA graphs.
VALIDATION = {
    "np1": (1, []),
    "np2": (2, []),
    "np4": (4, []),
    "np2-inplace": (2, ["--inplace"]),
    "np2-cudagraph": (2, ["-G", "1"]),
}
# The collectives the library runs, as the binary lists them (`run --list-ops`).
LIBRARY_COLLECTIVES = [name for name, runs in (line.split() for line in subprocess.run(
    [str(BINARY), "run", "--list-ops"], capture_output=True, text=True, check=True).stdout
    .splitlines()) if runs == "library"]
VALIDATION_ARGS = ["--ops", ",".join(LIBRARY_COLLECTIVES), "-d", "all", "-o", "all", "-c", "1",
                   "-n", "2", "-w", "1", "-b", "8", "-e", "1M", "-f", "16", "--mode", "latency",
                   "--no-fit"]


@pytest.fixture(scope="module", params=list(VALIDATION))
def validated(request, tmp_path_factory, mps):
    nranks, extra = VALIDATION[request.param]
    out = tmp_path_factory.mktemp(request.param) / "validation.h5"
    started = time.monotonic()
    # The last rank the root of broadcast and reduce: one that ignored -r shows.
    result = run_local(nranks, [*VALIDATION_ARGS, "-r", str(nranks - 1), *extra], out)
    print(f"{request.param}: {time.monotonic() - started:.1f} s")
    return request.param, nranks, extra, out, result


def test_validation_is_clean(validated):
    name, nranks, extra, out, result = validated
    rows = points(out)
    assert rows, "no points"
    wrong = [r for r in rows if int(r["wrong"]) > 0]
    assert not wrong, f"{len(wrong)} points with wrong elements, e.g. {wrong[:3]}"
    for r in rows:
        expected = 0 if checkable(r["datatype"], r["redop"], nranks) else -1
        assert int(r["wrong"]) == expected, r
    assert all(int(r["nranks"]) == nranks for r in rows)
    assert {r["backend"] for r in rows} == {"nccl"}
    assert "FAILED" not in result.stdout
    assert "# Out of bounds values : 0 OK" in result.stdout
    # The negative control of the plausibility bound on a GPU: no real point is past it.
    implausible = [r for r in rows if r["implausible"]]
    assert not implausible, f"{len(implausible)} real points marked, e.g. {implausible[:3]}"


def never_written(row, nranks):
    """Summed over ranks, the result elements a dropped collective leaves poisoned or as its
    input: every one out of place (the broadcast root's own output too: NCCL fills it), in place
    all but a rank's own share of an allgather and block of an alltoall."""
    kind, count, in_place = row["collective"], int(row["count"]), row["in_place"] == "true"
    per_rank = nranks * count if kind in ("allgather", "alltoall") else count
    holders = {"reduce": 1, "broadcast": nranks - (1 if in_place else 0)}.get(kind, nranks)
    own = count if in_place and kind in ("allgather", "alltoall") else 0
    return holders * (per_rank - own)


def test_a_dropped_collective_is_wrong_in_every_element(tmp_path, mps, monkeypatch):
    """tests/interpose/drop_nccl.c before the real NCCL: each float collective of 4096 elements
    returns at once, enqueueing nothing. Validation's poison makes every element it should have
    written wrong, in both checks, at exactly those points, and the run exits 1."""
    library = BINARY.parents[1] / "tests" / "interpose" / "libdrop_nccl.so"
    assert library.exists(), f"{library} is missing: the NCCL build makes it"
    monkeypatch.setenv("LD_PRELOAD", str(library))
    monkeypatch.setenv("COLLBENCH_TEST_DROP_COUNT", "4096")
    out = tmp_path / "dropped.h5"
    result = collbench(["run", "--backend", "nccl", "--np", "2", "--virtual-nodes", "-T", "60",
                        "--ops", ",".join(LIBRARY_COLLECTIVES), "-b", "8K", "-e", "64K", "-f",
                        "2", "--inplace", "-n", "2", "-w", "1", "--no-fit", "--out", str(out)])
    assert result.returncode == 1, result.stderr
    monkeypatch.delenv("LD_PRELOAD")
    dropped = 0
    for r in points(out):
        expected = never_written(r, 2) if r["count"] == "4096" else 0
        assert (int(r["wrong_before_timing"]), int(r["wrong_after_timing"])) == (
            expected, expected), r
        dropped += expected > 0
    assert dropped == len(LIBRARY_COLLECTIVES) * 2 * 2  # each in and out of place, both modes


def test_validation_covers_every_type_and_op(validated):
    name, nranks, extra, out, result = validated
    rows = points(out)
    types = expected_types()
    assert {r["datatype"] for r in rows} == set(types)
    assert {"half", "bfloat16"} <= set(types)
    assert {r["collective"] for r in rows} == set(LIBRARY_COLLECTIVES)
    assert {r["root"] for r in rows if r["collective"] in ("broadcast", "reduce")} == {
        str(nranks - 1)}
    for collective in ("allreduce", "reduce_scatter", "reduce"):
        assert {r["redop"] for r in rows if r["collective"] == collective} == ALL_OPS
    in_place = {r["in_place"] for r in rows}
    assert in_place == ({"false", "true"} if "--inplace" in extra else {"false"})


def test_provenance_names_the_gpu_and_libraries(validated):
    name, nranks, extra, out, _ = validated
    if name not in ("np2", "np2-cudagraph"):
        pytest.skip("checked on the 2-rank runs")
    h5py = pytest.importorskip("h5py", reason="h5py is not installed here")
    with h5py.File(out, "r") as f:
        attrs = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f.attrs.items()}
        topology = f["topology"][()]
    assert attrs["backend"] == "nccl" and attrs["complete"] == 1
    for key in ("nccl_version_header", "nccl_version_library", "cuda_runtime_version",
                "cuda_driver_version", "gpu_name"):
        assert attrs.get(key), f"provenance attribute {key} missing or empty"
    assert attrs["bootstrap"] == "local launcher (--np)"
    assert attrs["cuda_graphs"] == ("yes" if "-G" in extra else "no")
    assert attrs["nccl_profiler"].startswith("collbench"), attrs["nccl_profiler"]
    assert len(topology) == nranks
    assert all(row["gpu_name"] and row["gpu_bus_id"] for row in topology)


def test_nccl_reports_its_choice_at_every_point(validated):
    name, nranks, extra, out, _ = validated
    if nranks < 2:
        pytest.skip("one rank: NCCL copies locally and chooses no algorithm")
    # NCCL appends an alltoall as a send and a receive per peer (src/enqueue.cc, taskAppend) and
    # reports those, with no algorithm: no choice is recorded for it.
    every = points(out)
    assert all(not r["chosen_algorithm"] for r in every if r["collective"] == "alltoall")
    rows = [r for r in every if r["collective"] != "alltoall"]
    unreported = [r for r in rows if not r["chosen_algorithm"] or not r["chosen_protocol"]
                  or int(r["chosen_channels"]) < 1]
    assert not unreported, f"{len(unreported)} points without NCCL's choice, e.g. {unreported[:2]}"
    print(f"{name}: " + ", ".join(sorted({f"{r['chosen_algorithm']}/{r['chosen_protocol']}"
                                          for r in rows})))


# (b) Latency beside nccl-tests, on the same ranks of the same GPU.
def nccl_tests_median_us(nranks, sizes, tmp_path):
    """nccl-tests' all_reduce_perf on `nranks` ranks of this GPU, each its own NCCL host as
    collbench's virtual nodes are: the median per-iteration time (`-z 3 -I 1 -a 3`: CUDA events
    around each iteration, the slowest rank's) per size, from its JSON report."""
    binary = pathlib.Path(NCCL_TESTS_DIR) / "all_reduce_perf"
    report = tmp_path / f"nccl-tests-np{nranks}.json"
    # Each rank its own NCCL_HOSTID, and all on device 0.
    per_rank = 'NCCL_HOSTID="nccl-tests-$OMPI_COMM_WORLD_RANK" exec "$0" "$@"'
    command = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(nranks),
               "-x", "NCCL_SOCKET_IFNAME=lo", "-x", "NCCL_TESTS_DEVICE=0",
               "sh", "-c", per_rank, str(binary), "-b", str(min(sizes)), "-e", str(max(sizes)),
               "-f", "8", "-d", "float", "-o", "sum", "-n", "200", "-w", "20", "-c", "0",
               "-z", "3", "-I", "1", "-a", "3", "-J", str(report)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    assert process.returncode == 0, f"nccl-tests exit {process.returncode}:\n{output[-4000:]}"
    results = json.loads(report.read_text())["results"]
    median = {}
    for r in results:
        per_iteration = r.get("out_of_place_per_iter") or {}
        median[int(r["size"])] = float(per_iteration.get("p50_us", r["out_of_place"]["time"]))
    return median


@pytest.mark.parametrize("nranks", [2, 4])
def test_latency_beside_nccl_tests(nranks, tmp_path, mps):
    if not NCCL_TESTS_DIR or not (pathlib.Path(NCCL_TESTS_DIR) / "all_reduce_perf").is_file():
        pytest.skip("set NCCL_TESTS_DIR to a build of nccl-tests (MPI=1) to run it beside collbench")
    if shutil.which("mpirun") is None:
        pytest.skip("nccl-tests needs mpirun, which is not installed here")
    sizes = [8, 64, 512, 4096, 32768, 262144, 2097152]
    out = tmp_path / "latency.h5"
    run_local(nranks, ["--ops", "allreduce", "-d", "float", "-o", "sum", "--mode", "latency",
                       "-b", "8", "-e", "2M", "-f", "8", "-w", "20", "--min-time", "0.05",
                       "--max-time", "0.5", "--no-fit"], out)
    ours = {int(r["size_bytes"]): float(r["time_median_us"]) for r in points(out)
            if r["in_place"] == "false" and r["mode"] == "latency"}
    theirs = nccl_tests_median_us(nranks, sizes, tmp_path)
    low, high = SIDE_BY_SIDE_BAND
    lines = [f"allreduce float sum, {nranks} ranks on one GPU: collbench latency-mode median over"
             f" nccl-tests -z 3 -I 1 -a 3 median",
             f"{'bytes':>10} {'collbench us':>13} {'nccl-tests us':>14} {'ratio':>7}"]
    off = []
    for size in sizes:
        mine, other = ours.get(size), theirs.get(size)
        ratio = mine / other if mine and other else float("nan")
        if not low <= ratio <= high:
            off.append(size)
        lines.append(f"{size:>10} {mine or float('nan'):>13.1f} {other or float('nan'):>14.1f}"
                     f" {ratio:>7.2f}")
    print("\n".join(lines))
    if os.environ.get("GPU_CHECK_OUT"):  # ci/gpu-check keeps the table with its results
        table = pathlib.Path(os.environ["GPU_CHECK_OUT"]) / f"nccl-tests-side-by-side-np{nranks}.txt"
        table.write_text("\n".join(lines) + "\n")
    assert not off, f"outside {SIDE_BY_SIDE_BAND} at {off}:\n" + "\n".join(lines)


# (d) Pinned NCCL algorithms and protocols: one curve per combination, plus NCCL's own choice.
def test_pinned_algorithms_and_protocols(tmp_path, mps):
    out = tmp_path / "tunings.h5"
    sizes = [8, 256, 8192, 262144]
    # Allreduce: NCCL runs both algorithms with both protocols between two nodes.
    result = run_local(2, ["--ops", "allreduce", "-d", "float", "-o", "sum", "--mode", "latency",
                           "-b", "8", "-e", "256K", "-f", "32", "-n", "3", "-w", "1", "-c", "1",
                           "--nccl-algo", "Ring,Tree", "--nccl-proto", "LL,Simple", "--no-fit"],
                       out)
    notes = "\n".join(line for line in result.stdout.splitlines() if line.startswith("# note:"))
    print(notes)
    rows = points(out)
    combinations = {}
    for r in rows:
        combinations.setdefault((r["algorithm"], r["protocol"]), []).append(int(r["size_bytes"]))
    expected = {(a, p) for a in ("", "Ring", "Tree") for p in ("", "LL", "Simple")}
    assert set(combinations) == expected, f"measured {sorted(combinations)}\n{notes}"
    for combination, measured in combinations.items():
        assert sorted(measured) == sizes, combination
    # NCCL's own account agrees with the pin (NCCL_ALGO "Ring" is reported as "RING"): the pin
    # reached the communicator the points ran on.
    for r in rows:
        assert r["chosen_algorithm"], r
        if r["algorithm"]:
            assert r["chosen_algorithm"] == r["algorithm"].upper(), r
        if r["protocol"]:
            assert r["chosen_protocol"] == r["protocol"].upper(), r
    assert all(int(r["wrong"]) == 0 for r in rows)


def test_pinned_tree_on_a_subset_keeps_control_plane_and_pin(tmp_path, mps):
    """Tree cannot broadcast or gather, so the control plane must stay on the untuned world;
    the 2-rank subset is a split of it that must keep the pin; allgather has no Tree, and all
    four ranks must agree to skip it."""
    out = tmp_path / "tree-subset.h5"
    result = run_local(4, ["--ops", "allreduce,allgather", "-d", "float", "-o", "sum",
                           "--mode", "latency", "--ranks", "2", "-b", "8", "-e", "64K", "-f", "64",
                           "-n", "3", "-w", "1", "-c", "1", "--nccl-algo", "Tree",
                           "--nccl-proto", "Simple", "--no-fit"], out)
    rows = points(out)
    assert rows and {r["collective"] for r in rows} == {"allreduce"}, rows
    for r in rows:
        assert int(r["nranks"]) == 2 and r["placement"] == "packed", r
        assert (r["algorithm"], r["protocol"]) == ("Tree", "Simple"), r
        assert (r["chosen_algorithm"], r["chosen_protocol"]) == ("TREE", "SIMPLE"), r
        assert int(r["wrong"]) == 0, r
    assert re.search(r"# note:.*Tree.*has no allgather", result.stdout), result.stdout[-2000:]


# (c) A hung rank. Last in the file: a stopped rank leaves work on the GPU that MPS must clean up.
def children(pid):
    found = []
    for task in pathlib.Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def rank_of(pid):
    try:
        environ = pathlib.Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return None
    for item in environ:
        if item.startswith(b"COLLBENCH_RANK="):
            return int(item.split(b"=", 1)[1])
    return None


def command_line(pid):
    try:
        return pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def test_hung_rank_times_out_with_exit_3(tmp_path, mps):
    out = tmp_path / "hung.h5"
    command = [str(BINARY), "run", "--backend", "nccl", "--np", "2", "--virtual-nodes", "-T", "10",
               "--ops", "allreduce", "-d", "float", "-b", "8", "-e", "64M", "-f", "2",
               "--max-time", "0.5", "--mode", "both", "--no-fit", "--out", str(out)]
    # stderr goes to a file: a pipe nobody reads while the table is read could fill and stall.
    stderr_path = tmp_path / "stderr.txt"
    with open(stderr_path, "w") as stderr_file:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr_file, text=True,
                                   cwd=ROOT, start_new_session=True)
    # Whatever happens below, the job is gone after this many seconds.
    deadline = threading.Timer(150, lambda: os.killpg(process.pid, signal.SIGKILL))
    deadline.start()
    stopped = None
    try:
        rows = 0
        for line in process.stdout:  # each printed row's points are in the file
            if line.strip() and not line.startswith("#"):
                rows += 1
                if rows >= 2:
                    break
        assert rows >= 2, "the run ended before printing two rows:\n" + stderr_path.read_text()
        ranks = {rank_of(child): child for child in children(process.pid)}
        assert 1 in ranks, f"no rank 1 among the launcher's children {ranks}"
        stopped = ranks[1]
        os.kill(stopped, signal.SIGSTOP)
        started = time.monotonic()
        try:
            process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            raise AssertionError("the job did not end within 60 s of the hang:\n"
                                 + stderr_path.read_text()) from None
        took = time.monotonic() - started
    finally:
        deadline.cancel()
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if stopped and rank_of(stopped) == 1 and str(out) in command_line(stopped):
            os.kill(stopped, signal.SIGKILL)  # still our stopped rank, not a reused pid
    stderr = stderr_path.read_text()
    print(f"ended {took:.1f} s after SIGSTOP of rank 1 (pid {stopped}), exit {process.returncode}")
    print(stderr)
    assert process.returncode == 3, stderr
    assert re.search(r"rank 0 on \S+: timeout", stderr), stderr
    # The file opens and keeps the finished points (a run that did not finish: a note on stderr).
    kept = points(out)
    assert len(kept) >= 2, kept
    h5py = pytest.importorskip("h5py", reason="h5py is not installed here; report read the file")
    with h5py.File(out, "r") as f:
        assert int(f.attrs["complete"]) == 0
        assert len(f["points"]) >= 2
