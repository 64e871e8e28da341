"""Result files from real runs of the collbench binary, made once per test session."""
import importlib.util
import pathlib
import sys

import h5py
import pytest

HERE = pathlib.Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[2]))  # the `plots` package
# The integration helpers (mpirun environment, QUICK and FIXED_COUNT knobs), loaded under another name because
# both files are called conftest.
_spec = importlib.util.spec_from_file_location("integration_conftest",
                                               HERE.parents[1] / "integration" / "conftest.py")
_integration = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_integration)
BINARY, QUICK, run_mpi = _integration.BINARY, _integration.QUICK, _integration.run_mpi
FIXED_COUNT = _integration.FIXED_COUNT
environment, schema_version = _integration.environment, _integration.schema_version

SWEEP = ["--ops", "allreduce,allgather", "-b", "8", "-e", "1M", "-f", "8", "--quiet", *QUICK]


def _run(path, np_, extra):
    done = run_mpi(np_, ["run", *SWEEP, *extra, "--out", str(path)])
    assert done.returncode == 0, done.stderr
    return path


@pytest.fixture(scope="session")
def files(tmp_path_factory):
    if not BINARY.exists():
        pytest.fail(f"{BINARY} is missing: build first (ci/setup)")
    folder = tmp_path_factory.mktemp("runs")
    return {
        # Several rank counts in one file: world of 3 plus packed sub-communicators of 2 and 3.
        "ranks": _run(folder / "ranks.h5", 3, ["--ranks", "2,3", "--placement", "world"]),
        "base": _run(folder / "base.h5", 3, ["--ranks", "2,3", "--placement", "world"]),
        "nofit": _run(folder / "nofit.h5", 2, ["--no-fit"]),
    }


@pytest.fixture(scope="session")
def links_file(tmp_path_factory):
    """A real `collbench links` file: every pair of 3 ranks on this machine, so every link is
    `intra` and named by rank. One pair at a time: the ranks share cores."""
    if not BINARY.exists():
        pytest.fail(f"{BINARY} is missing: build first (ci/setup)")
    path = tmp_path_factory.mktemp("links") / "links.h5"
    done = run_mpi(3, ["links", "--between", "ranks", "-b", "8", "-e", "64K", "-f", "8", "-w", "1",
                       "--min-samples", "6", "--max-time", "0.2", "--pairs-at-once", "1",
                       "--out", str(path)])
    assert done.returncode == 0, done.stderr
    # Three ranks on two cores: the scheduler can leave one link 20% below the others, and
    # `links` then names it slow (3 tests failed so in one run of a loaded VM). These tests judge
    # how the figure and report mark what the file names, so each plants the slow links it needs
    # in a file that names none.
    with h5py.File(path, "r+") as f:
        fits = f["link_fits"][()]
        fits["slow"][:] = 0
        f["link_fits"][...] = fits
        dtype = f["slow_hosts"].dtype
        del f["slow_hosts"]  # written whole, not resizable
        f.create_dataset("slow_hosts", shape=(0,), dtype=dtype)
    return path
