"""The NCCL backend as seen from a host without a GPU (CI): it is built wherever the CUDA toolkit
carries NCCL, it refuses to run without a GPU (exit 2, no file), and the options that only the
nccl backend has are refused by the mpi backend, which also leaves out the datatypes and the op
it cannot run when they come from `all`. The GPU side is tests/gpu (ci/gpu-check)."""
import pathlib
import re
import shutil
import subprocess

import h5py
import pytest

from conftest import BINARY, QUICK, run_mpi, run_plain, text

CUDA = pathlib.Path("/usr/local/cuda")
GPU_MESSAGE = "the nccl backend needs a GPU, and this host has none usable"
MPI_ONLY_TYPES = ["half", "bfloat16", "f8e4m3", "f8e5m2"]


def built_backends():
    """The backends compiled in, from the message `--backend nosuch` answers with."""
    result = run_plain(["run", "--backend", "nosuch"])
    assert result.returncode == 2, result.stdout + result.stderr
    found = re.search(r"\(built: ([^)]*)\)", result.stderr)
    assert found, result.stderr
    return [name.strip() for name in found.group(1).split(",")]


def nccl_switched_off():
    """True when the build this binary comes from was configured with COLLBENCH_WITH_NCCL=OFF."""
    cache = BINARY.parents[1] / "CMakeCache.txt"
    if not cache.exists():
        return False
    return re.search(r"^COLLBENCH_WITH_NCCL:\w+=OFF$", cache.read_text(errors="replace"),
                     re.MULTILINE) is not None


def host_gpus():
    """What `nvidia-smi -L` lists; empty when it is absent or fails."""
    if shutil.which("nvidia-smi") is None:
        return ""
    try:
        listing = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return listing.stdout.strip() if listing.returncode == 0 else ""


@pytest.fixture(scope="module")
def nccl_without_gpu():
    """Skips unless NCCL is built in and this host has no GPU (the case these tests are for)."""
    if "nccl" not in built_backends():
        pytest.skip("this collbench was built without the NCCL backend")
    gpus = host_gpus()
    if gpus:
        pytest.skip(f"this host has a GPU ({gpus.splitlines()[0]}); tests/gpu covers it")


def test_backends_listed_when_unknown_one_is_asked_for():
    result = run_plain(["run", "--backend", "nosuch"])
    assert result.returncode == 2
    assert "'nosuch' is not built into this collbench" in result.stderr
    assert "mpi" in built_backends()


def test_nccl_is_built_wherever_the_toolkit_has_it():
    """A build that silently dropped NCCL (CUDA and nccl.h present) fails here."""
    toolkit = (CUDA / "bin" / "nvcc").exists() and (CUDA / "include" / "nccl.h").exists()
    if not toolkit:
        pytest.skip(f"no nvcc and nccl.h under {CUDA}: NCCL is optional on this host")
    if nccl_switched_off():
        pytest.skip("configured with COLLBENCH_WITH_NCCL=OFF")
    assert built_backends() == ["nccl", "mpi"]


def test_nccl_without_gpu_exits_2_and_writes_nothing(nccl_without_gpu, out):
    result = run_plain(["run", "--backend", "nccl", "-e", "64", "--out", str(out), *QUICK])
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"--backend nccl: {GPU_MESSAGE}" in result.stderr
    assert not out.exists()


def test_local_ranks_without_gpu_exit_2_and_write_nothing(nccl_without_gpu, out):
    result = run_plain(["run", "--backend", "nccl", "--np", "2", "--virtual-nodes", "-e", "64",
                        "--out", str(out), *QUICK])
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"--backend nccl: {GPU_MESSAGE}" in result.stderr
    assert not out.exists()


def test_nccl_under_mpirun_without_gpu_exits_2_and_writes_nothing(nccl_without_gpu, out):
    result = run_mpi(2, ["run", "--backend", "nccl", "-e", "64", "--out", str(out), *QUICK])
    assert result.returncode == 2, result.stdout + result.stderr
    assert GPU_MESSAGE in result.stderr
    assert not out.exists()


def test_default_backend_without_gpu_is_mpi(nccl_without_gpu, out):
    result = run_mpi(2, ["run", "-e", "64", "--ops", "allreduce", "--out", str(out), *QUICK])
    assert result.returncode == 0, result.stderr
    with h5py.File(out, "r") as f:
        assert text(f.attrs["backend"]) == "mpi"
        assert {text(b) for b in f["points"]["backend"]} == {"mpi"}


NCCL_ONLY_OPTIONS = [
    (["--np", "2"], "--np"),
    (["--nccl-algo", "Ring"], "--nccl-algo"),
    (["--nccl-proto", "LL"], "--nccl-proto"),
    (["-G", "1"], "-G/--cudagraph"),
    (["--virtual-nodes"], "--virtual-nodes"),
]


@pytest.mark.parametrize("args,named", NCCL_ONLY_OPTIONS,
                         ids=[" ".join(a) for a, _ in NCCL_ONLY_OPTIONS])
def test_nccl_only_options_refused_by_mpi(out, args, named):
    result = run_plain(["run", "--backend", "mpi", *args, "-e", "64", "--out", str(out), *QUICK])
    assert result.returncode == 2, result.stdout + result.stderr
    assert named in result.stderr
    assert not out.exists()


def test_nccl_algo_refused_by_mpi_under_mpirun(out):
    result = run_mpi(2, ["run", "--backend", "mpi", "--nccl-algo", "Ring", "-e", "64",
                         "--out", str(out), *QUICK])
    assert result.returncode == 2, result.stdout + result.stderr
    assert "--nccl-algo" in result.stderr
    assert not out.exists()


def test_unknown_nccl_algorithm_is_named(out):
    result = run_plain(["run", "--nccl-algo", "Spiral", "-e", "64", "--out", str(out), *QUICK])
    assert result.returncode == 2
    assert "--nccl-algo" in result.stderr and "'Spiral'" in result.stderr
    assert not out.exists()


NAMED_UNSUPPORTED = [
    (["-d", "half"], "-d/--datatype: the mpi backend here cannot run half"),
    (["-d", "float,bfloat16"], "-d/--datatype: the mpi backend here cannot run bfloat16"),
    (["-d", "f8e4m3"], "-d/--datatype: the mpi backend here cannot run f8e4m3"),
    (["-o", "avg"], "-o/--op: the mpi backend here cannot run avg"),
    (["-o", "sum,avg"], "-o/--op: the mpi backend here cannot run avg"),
]


@pytest.mark.parametrize("args,message", NAMED_UNSUPPORTED,
                         ids=[" ".join(a) for a, _ in NAMED_UNSUPPORTED])
def test_mpi_refuses_what_it_cannot_run_when_named(out, args, message):
    result = run_mpi(2, ["run", "--backend", "mpi", *args, "-e", "64", "--out", str(out), *QUICK])
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr
    assert not out.exists()


def test_mpi_leaves_out_what_it_cannot_run_from_all(out):
    result = run_mpi(2, ["run", "--backend", "mpi", "-d", "all", "-o", "all", "-b", "64",
                         "-e", "64", "--ops", "allreduce,reduce_scatter", "--mode", "latency",
                         "--no-fit", "--out", str(out), *QUICK])
    assert result.returncode == 0, result.stderr
    notes = [line for line in result.stdout.splitlines() if line.startswith("# note:")]
    assert ("# note: -d/--datatype all: the mpi backend here cannot run "
            + ", ".join(MPI_ONLY_TYPES) + "; left out") in notes
    assert "# note: -o/--op all: the mpi backend here cannot run avg; left out" in notes
    with h5py.File(out, "r") as f:
        assert f.attrs["complete"] == 1
        points = f["points"][()]
    datatypes = {text(d) for d in points["datatype"]}
    redops = {text(o) for o in points["redop"]}
    assert datatypes == {"int8", "uint8", "int32", "uint32", "int64", "uint64", "float", "double"}
    assert redops == {"sum", "prod", "min", "max"}
    assert (points["wrong"] == 0).all()
