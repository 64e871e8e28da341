"""The NCCL backend on a real GPU: several ranks on one GPU (`--np N --virtual-nodes`, CUDA MPS
running), validation of every datatype and op, latencies against reference/gpu-testbed.md, a hung
rank, and pinned NCCL algorithms and protocols.

Run by ci/gpu-check, which builds with NCCL, starts MPS and points COLLBENCH at the binary. On a
host without a GPU every test is skipped ("needs a GPU: ..."). Results are read back through
`collbench report --format csv`, so these tests need no h5py (a GPU machine may lack it); the
checks that open the file directly skip visibly without it."""
import csv
import io
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
# The largest integer each floating type holds exactly (benches/datatype.cpp).
EXACT_LIMIT = {"half": 1 << 11, "float": 1 << 24, "double": 1 << 53, "bfloat16": 1 << 8,
               "f8e4m3": 1 << 4, "f8e5m2": 1 << 3, "int8": 127, "uint8": 255}

# reference/gpu-testbed.md: float sum allreduce, out of place, CUDA events, MPS, virtual nodes.
REFERENCE_US = {2: {8: 24.7, 4096: 43.2, 262144: 220.0, 2097152: 855.0},
                4: {8: 48.6, 4096: 113.9, 262144: 445.0, 2097152: 1442.0}}
TOLERANCE = 0.25

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
    """`collbench run --backend nccl --np N --virtual-nodes ...`, asserted to exit 0."""
    result = collbench(["run", "--backend", "nccl", "--np", str(nranks), "--virtual-nodes",
                        *args, "--out", str(out)], timeout=timeout)
    assert result.returncode == 0, (f"exit {result.returncode}\n--- stdout (tail)\n"
                                    f"{result.stdout[-4000:]}\n--- stderr\n{result.stderr[-4000:]}")
    return result


def points(path):
    """Every point of a result file, as dicts of strings (`report --format csv`)."""
    result = collbench(["report", str(path), "--format", "csv"])
    assert result.returncode == 0, result.stderr
    return list(csv.DictReader(io.StringIO(result.stdout)))


def checkable(datatype, redop, nranks):
    """Whether validation can check the point (benches/collectives/pattern.cpp): avg has exact
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
VALIDATION_ARGS = ["-d", "all", "-o", "all", "-c", "1", "-n", "2", "-w", "1", "-b", "8", "-e", "1M",
                   "-f", "16", "--mode", "latency", "--no-fit"]


@pytest.fixture(scope="module", params=list(VALIDATION))
def validated(request, tmp_path_factory, mps):
    nranks, extra = VALIDATION[request.param]
    out = tmp_path_factory.mktemp(request.param) / "validation.h5"
    started = time.monotonic()
    result = run_local(nranks, [*VALIDATION_ARGS, *extra], out)
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


def test_validation_covers_every_type_and_op(validated):
    name, nranks, extra, out, result = validated
    rows = points(out)
    types = expected_types()
    assert {r["datatype"] for r in rows} == set(types)
    assert {"half", "bfloat16"} <= set(types)
    assert {r["collective"] for r in rows} == {"allreduce", "allgather", "reduce_scatter"}
    for collective in ("allreduce", "reduce_scatter"):
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
    assert len(topology) == nranks
    assert all(row["gpu_name"] and row["gpu_bus_id"] for row in topology)


# (b) Latency against the reference table.
@pytest.mark.parametrize("nranks", sorted(REFERENCE_US))
def test_latency_matches_the_reference(nranks, tmp_path, mps):
    out = tmp_path / "latency.h5"
    run_local(nranks, ["--ops", "allreduce", "-d", "float", "-o", "sum", "--mode", "latency",
                       "-b", "8", "-e", "2M", "-f", "8", "-w", "5", "--min-time", "0.05",
                       "--max-time", "0.5", "--no-fit"], out)
    measured = {int(r["size_bytes"]): float(r["time_median_us"]) for r in points(out)
                if r["in_place"] == "false" and r["mode"] == "latency"}
    lines = [f"allreduce float sum, latency mode, {nranks} ranks on one GPU (virtual nodes, MPS)",
             f"{'bytes':>10} {'reference us':>13} {'measured us':>12} {'ratio':>7}  verdict"]
    off = []
    for size, reference in sorted(REFERENCE_US[nranks].items()):
        got = measured.get(size)
        ratio = got / reference if got else float("nan")
        ok = got is not None and abs(ratio - 1) <= TOLERANCE
        if not ok:
            off.append(size)
        lines.append(f"{size:>10} {reference:>13.1f} {got if got else float('nan'):>12.1f} "
                     f"{ratio:>7.2f}  {'ok' if ok else f'OFF by more than {TOLERANCE:.0%}'}")
    print("\n".join(lines))
    assert not off, "\n".join(lines)


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
    assert all(int(r["wrong"]) == 0 for r in rows)


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
