"""A result file that another process (h5py, a plot) holds open: the commands that only read it
work as if it were closed; `fit`, which must write into it, exits 3 naming the file and leaves it
as it was (HDF5's lock: readers share the file, a writer needs it alone)."""
import shutil
import subprocess
import sys

import h5py
import pytest

from conftest import QUICK, ROOT, run_mpi, run_plain

# Opens the file the way a notebook or the plot script does, says so, and keeps it open.
HOLD = "import h5py, sys, time; f = h5py.File(sys.argv[1], sys.argv[2]); " \
       "print('open', flush=True); time.sleep(120)"


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """A small run of 2 and 3 ranks (so that predict has a T(p)), with its fits."""
    out = tmp_path_factory.mktemp("held") / "measured.h5"
    run = run_mpi(3, ["run", "-b", "8", "-e", "1K", "-f", "4", "--ops", "allreduce", "--ranks",
                      "2,3", "--quiet", "--out", str(out), *QUICK])
    assert run.returncode == 0, run.stderr
    return out


@pytest.fixture
def result(measured, tmp_path):
    copy = tmp_path / "run.h5"
    shutil.copy(measured, copy)
    return copy


class Holder:
    """A real h5py process that has `path` open until the block ends."""

    def __init__(self, path, mode="r"):
        self.path = path
        self.mode = mode

    def __enter__(self):
        self.process = subprocess.Popen([sys.executable, "-c", HOLD, str(self.path), self.mode],
                                        stdout=subprocess.PIPE, text=True)
        assert self.process.stdout.readline().strip() == "open"
        return self

    def __exit__(self, *_):
        self.process.kill()
        self.process.wait()


def contents(path):
    """Every dataset of the file, its rows as h5py reads them (repr: NaN reads equal), and the
    attributes of the root."""
    found = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, item: found.__setitem__(name, repr(item[()].tolist()))
                     if isinstance(item, h5py.Dataset) else None)
        found["/"] = repr(sorted((key, repr(value)) for key, value in f.attrs.items()))
    return found


def test_fit_on_a_file_held_open_exits_3_naming_it_and_leaves_it_as_it_was(result):
    before_bytes, before_contents = result.read_bytes(), contents(result)
    with Holder(result):
        fit = run_plain(["fit", str(result)])
    assert fit.returncode == 3, fit.stdout + fit.stderr
    assert fit.stderr.startswith(f"collbench fit: {result} is open in another process"), fit.stderr
    assert "HDF5's lock" in fit.stderr and "the file is as it was" in fit.stderr
    assert "Close it there and run again" in fit.stderr
    assert fit.stdout == ""
    assert result.read_bytes() == before_bytes
    assert contents(result) == before_contents
    # Closed, the same command stores its fits.
    again = run_plain(["fit", str(result)])
    assert again.returncode == 0, again.stderr
    with h5py.File(result, "r") as f:
        assert len(f["fits"]) > 0


def predict_args(tmp_path, result):
    return ["predict", str(result), "--ranks", "8", "--size", "1K",
            "--out", str(tmp_path / "predicted.h5"), "--force"]


READERS = {
    "report": lambda tmp_path, result: ["report", str(result)],
    "check": lambda tmp_path, result: ["check", str(result), "--spec",
                                       str(ROOT / "ci" / "acceptance" / "mpi-local.toml")],
    "compare": lambda tmp_path, result: ["compare", str(result), str(result)],
    "trend": lambda tmp_path, result: ["trend", str(result), str(result)],
    "predict": predict_args,
    "plot": lambda tmp_path, result: ["plot", str(result), "--figures", "busbw",
                                      "--out", str(tmp_path)],
}


@pytest.mark.parametrize("command", READERS)
def test_a_command_that_only_reads_works_on_a_file_held_open(result, tmp_path, command):
    args = READERS[command](tmp_path, result)
    closed = run_plain(args)
    with Holder(result):
        held = run_plain(args)
    assert held.returncode == closed.returncode, held.stderr
    assert closed.returncode in (0, 1), closed.stderr  # 1: a verdict, not a failure to read
    assert "lock" not in held.stderr
    assert held.stdout == closed.stdout


def test_a_file_being_written_elsewhere_is_a_fault_of_the_moment_named_for_every_reader(result):
    """A writer (a run still going, h5py in r+ mode) holds the lock alone: no reader can open the
    file, and each says why and what to do, exit 3, instead of calling the file invalid."""
    with Holder(result, "r+"):
        report = run_plain(["report", str(result)])
        check = run_plain(["check", str(result), "--spec",
                           str(ROOT / "ci" / "acceptance" / "mpi-local.toml")])
    for refused, command in ((report, "report"), (check, "check")):
        assert refused.returncode == 3, refused.stderr
        assert refused.stderr.startswith(
            f"collbench {command}: {result} is being written by another process"), refused.stderr
        assert "HDF5_USE_FILE_LOCKING=FALSE" in refused.stderr and refused.stdout == ""
