"""Bad input: exit 2, a message that names what was wrong, and no file left behind."""
import h5py
import pytest

from conftest import QUICK, run_mpi, run_plain

# Options read before MPI starts, alike in every rank: one process without a launcher shows each.
BAD_OPTIONS = [
    (["--no-such-flag"], "--no-such-flag"),
    (["-b", "1Q"], "-b/--minbytes"),
    (["-b", "1M", "-e", "1K"], "below -b/--minbytes"),
    (["-f", "0"], "-f/--stepfactor"),
    (["-f", "-2"], "-f/--stepfactor"),
    (["-f", "1"], "-f/--stepfactor"),
    (["-o", "mean"], "'mean'"),
    (["-d", "float17"], "'float17'"),
    (["--ops", "no_such_collective"], "'no_such_collective'"),
    (["-r", "-1"], "-r/--root"),
    (["--mode", "fast"], "--mode"),
    (["-n", "0"], "-n/--iters"),
    # nccl-tests' flags where they mean something collbench does not: what to type instead.
    (["-g", "8"], "one rank per GPU; start 8 ranks per node"),
    (["-t", "2"], "one rank per process"),
    (["-a", "1"], "slowest rank's"),
]


@pytest.mark.parametrize("args,named", BAD_OPTIONS, ids=[" ".join(a) for a, _ in BAD_OPTIONS])
def test_bad_option_exits_2_naming_the_problem(out, args, named):
    result = run_plain(["run", *args, "--out", str(out), *QUICK])
    assert result.returncode == 2, result.stdout + result.stderr
    assert named in result.stderr
    assert not out.exists()


def test_bad_option_under_mpirun_exits_2_said_once(out):
    """Every rank reads the options; rank 0 alone says what was wrong, and mpirun exits 2."""
    result = run_mpi(2, ["run", "-b", "1Q", "--out", str(out), *QUICK])
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.count("'1Q' is not a size") == 1, result.stderr
    assert not out.exists()


def test_a_size_too_large_for_the_memory_exits_2(out):
    """Known only once the job runs: each host's memory against its ranks' buffers."""
    result = run_mpi(2, ["run", "-e", "1T", "--out", str(out), *QUICK])
    assert result.returncode == 2, result.stdout + result.stderr
    assert "-e/--maxbytes: the largest size needs 2 TiB per rank" in result.stderr
    assert not out.exists()


def test_one_rank_without_a_launcher_is_refused_unless_asked_for(tmp_path):
    """A lone process measures no communication (busbw 0): exit 2 and no file, unless
    --allow-single-rank, which runs it."""
    out = tmp_path / "alone.h5"
    args = ["run", "--backend", "mpi", "-e", "64", "--out", str(out), *QUICK]
    result = run_plain(args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "started without mpirun/srun?" in result.stderr and "--np" in result.stderr
    assert not out.exists()
    alone = run_plain(args + ["--allow-single-rank"])
    assert alone.returncode == 0, alone.stderr
    assert h5py.File(out, "r").attrs["nranks"] == 1


def test_nccl_tests_flags_meaning_what_collbench_does_are_taken(out):
    """-g 1 -t 1 -a 3, as site scripts pass them to nccl-tests, and -e 1.5K as nccl-tests reads
    it (1536 B)."""
    result = run_mpi(2, ["run", "-g", "1", "-t", "1", "-a", "3", "--ops", "allreduce", "-b",
                         "1.5K", "-e", "1.5K", "--out", str(out), "--no-fit", *QUICK])
    assert result.returncode == 0, result.stderr
    sizes = set(h5py.File(out, "r")["points"]["size_bytes"])
    assert sizes == {1536}


def test_unknown_subcommand():
    result = run_plain(["frobnicate"])
    assert result.returncode == 2
    assert "frobnicate" in result.stderr


def test_existing_file_is_never_overwritten_silently(out):
    out.write_bytes(b"precious")
    result = run_mpi(2, ["run", "-e", "64", "--out", str(out), *QUICK])
    assert result.returncode == 2
    assert "--force" in result.stderr
    assert out.read_bytes() == b"precious"
    forced = run_mpi(2, ["run", "-e", "64", "--out", str(out), "--force", *QUICK])
    assert forced.returncode == 0, forced.stderr
    assert h5py.File(out, "r").attrs["complete"] == 1


def test_missing_output_folder(tmp_path):
    out = tmp_path / "no" / "such" / "dir" / "run.h5"
    result = run_mpi(2, ["run", "-e", "64", "--out", str(out), *QUICK])
    assert result.returncode == 2
    assert "no" in result.stderr and "--out" in result.stderr


@pytest.mark.parametrize("kind", ["missing", "text", "foreign", "format"])
def test_report_rejects_what_it_cannot_read(tmp_path, kind):
    path = tmp_path / "input.h5"
    args = ["report", str(path)]
    if kind == "text":
        path.write_text("size count type\n")
    elif kind == "foreign":
        with h5py.File(path, "w") as f:
            f["data"] = [1, 2, 3]
    elif kind == "format":
        with h5py.File(path, "w") as f:
            f.attrs["schema"] = "collbench-results"
        args += ["--format", "yaml"]
    result = run_plain(args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert (str(path) in result.stderr) or ("yaml" in result.stderr)
