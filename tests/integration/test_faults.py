"""Faults: a killed or hung rank, or an interrupted run, keeps every finished point in a file
that h5py opens, and exits 3 (or the launcher's own code) naming what failed."""
import collections
import concurrent.futures
import faulthandler
import os
import pathlib
import random
import re
import shutil
import signal
import subprocess
import time

import h5py
import pytest

from conftest import BINARY, ROOT, environment, mpirun_command, run_mpi, run_plain, small_disk

# Built beside collbench (tests/helpers): appends points to a file until killed.
APPEND_UNTIL_KILLED = BINARY.parents[1] / "tests" / "append_until_killed"

LONG_SWEEP = ["run", "-b", "8", "-e", "256K", "-f", "2", "-w", "1", "--min-samples", "5",
              "--min-time", "0.02", "--max-time", "0.05", "-d", "all", "-o", "all"]


def rank_pids(out):
    """PIDs of the collbench ranks writing `out`, by rank, from /proc."""
    pids = {}
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            if str(BINARY).encode() not in cmdline[0] or str(out).encode() not in cmdline:
                continue
            env = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        for item in env:
            if item.startswith(b"OMPI_COMM_WORLD_RANK="):
                pids[int(item.split(b"=")[1])] = int(entry.name)
    return pids


def start(nranks, out, extra=()):
    return subprocess.Popen(mpirun_command(nranks, [*LONG_SWEEP, "--out", str(out), *extra]),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=environment(), start_new_session=True)


def wait_for_rows(process, rows):
    """Reads the table until `rows` data lines have been printed (each one is in the file)."""
    seen = 0
    for line in process.stdout:
        if line.strip() and not line.startswith("#"):
            seen += 1
            if seen >= rows:
                return seen
    raise AssertionError("the run ended before printing enough rows")


def finish(process, timeout=60):
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        raise AssertionError("the job did not end after the fault: " + stderr)
    return process.returncode, stderr


def finish_frozen(process, pid, timeout=60):
    """Freezes one rank (SIGSTOP: alive to mpirun, silent to its peers), waits for the job's
    watchdog to end it, then kills the frozen rank, which nothing else would."""
    os.kill(pid, signal.SIGSTOP)
    try:
        return finish(process, timeout=timeout)
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def finished_points(out):
    """How many points the killed run finished, and its `complete`, once h5py has read every
    finished row whole and each one's samples (a killed run's last row may be unfinished, its
    text missing from the file), `collbench report` has read the file and `collbench fit` has
    fitted it and stored its models in it."""
    finished, complete = read_finished_rows(out)
    collbench_reads(out, finished, complete)
    return finished, complete


def read_finished_rows(out):
    """h5py's reading of `out`: its finished rows whole, each one's samples, and `complete`."""
    # HDF5 1.10 loops forever on a torn heap; the timer must not outlive a failed assertion.
    faulthandler.dump_traceback_later(60, exit=True)
    try:
        with h5py.File(out, "r") as f:
            finished = int(f["points"].attrs["finished_rows"])
            rows = f["points"][:finished]
            assert list(rows["point_id"]) == list(range(finished))
            for row in rows:
                assert row["collective"] and row["mode"]
                assert f["samples"][f"{row['point_id']:06d}"][()].shape[1] == row["nranks"]
            return finished, int(f.attrs["complete"])
    finally:
        faulthandler.cancel_dump_traceback_later()


def collbench_reads(out, finished, complete):
    """`collbench report` reads `out` and `collbench fit` fits it, each naming an unfinished
    run's finished points."""
    report = subprocess.run([str(BINARY), "report", str(out)], capture_output=True, text=True,
                            env=environment(), timeout=60)
    assert report.returncode == 0, report.stderr
    if complete == 0:  # the unfinished tail is left out in a line of its own
        assert f"holds the {finished} points finished before it stopped" in report.stderr
    fit = subprocess.run([str(BINARY), "fit", str(out), "--bootstrap", "20"], capture_output=True,
                         text=True, env=environment(), timeout=120)
    assert fit.returncode == 0, fit.stderr
    if complete == 0:
        assert f"holds the {finished} points finished before it stopped; fitted those" in fit.stderr


# 5 in the suite; COLLBENCH_RUN_KILLS=20 for the acceptance count.
@pytest.mark.parametrize("trial", range(int(os.environ.get("COLLBENCH_RUN_KILLS", "5"))))
def test_kill_9_of_the_writing_rank_at_a_random_moment(tmp_path, trial):
    out = tmp_path / "killed.h5"
    process = start(2, out)
    rows = wait_for_rows(process, 1 + trial)
    time.sleep(random.Random(trial).uniform(0, 0.3))
    os.kill(rank_pids(out)[0], signal.SIGKILL)
    code, _ = finish(process)
    assert code != 0
    points, complete = finished_points(out)
    assert complete == 0
    assert points >= rows  # each printed row has 2 points (latency and bandwidth)
    every_other_command_reads(out, points)


def every_other_command_reads(out, points):
    """check, compare and plot read a killed run's file as report and fit do, each saying once
    that the run did not finish: a verdict (1 is a failed rule), never an unreadable file."""
    note = f"holds the {points} points finished before it stopped"
    check = run_plain(["check", str(out), "--spec", str(ROOT / "ci/acceptance/mpi-local.toml")])
    assert check.returncode in (0, 1), check.stderr
    assert f"only its {points} finished points were judged" in check.stderr
    compare = run_plain(["compare", str(out), str(out)])
    assert compare.returncode == 0, compare.stderr
    assert "is from a run that did not finish" in compare.stdout + compare.stderr
    plot = run_plain(["plot", str(out), "--report"])
    assert plot.returncode == 0, plot.stderr
    assert note in plot.stderr and out.with_name("killed-report.html").exists()


# 100 in the suite; COLLBENCH_KILLS=1000 for the acceptance count.
KILLS = int(os.environ.get("COLLBENCH_KILLS", "100"))


def test_a_writer_killed_at_random_moments_keeps_every_finished_point(tmp_path):
    """A flush writes HDF5's blocks in no fixed order, and a kill stops a write between pages:
    the last row's text, its chunk, or the superblock that covers them may miss the disk, and a
    rewritten block may be left half new. Killed in a tight append loop, as many kills land in
    a flush as the loop spends there, past the table's first chunks (64 rows each); every point
    it finished must read, and none be counted unfinished."""
    random_moment = random.Random(42)
    # collbench's readers of a trial's file run beside the next trial's writer, two trials at
    # most: each trial writes a file of its own, removed once read.
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as readers:
        reading = collections.deque()
        for trial in range(KILLS):
            if len(reading) == 2:
                reading.popleft().result()
            out = tmp_path / f"killed{trial}.h5"
            writer = subprocess.Popen([str(APPEND_UNTIL_KILLED), str(out), str(trial)],
                                      stdout=subprocess.PIPE, text=True)
            appended = random_moment.randint(1, 140)
            for line in writer.stdout:
                if int(line) + 1 >= appended:
                    break
            time.sleep(random_moment.uniform(0, 0.05))
            writer.kill()
            appended += len(writer.stdout.read().split())
            writer.wait()
            finished, complete = read_finished_rows(out)
            assert complete == 0
            assert appended <= finished <= appended + 1, f"trial {trial}"
            reading.append(readers.submit(collbench_reads_and_removes, out, finished))
        for trial_read in reading:
            trial_read.result()


def collbench_reads_and_removes(out, finished):
    collbench_reads(out, finished, complete=0)
    out.unlink()


def test_killed_peer_rank_ends_the_job_and_keeps_the_points(tmp_path):
    out = tmp_path / "peer.h5"
    process = start(3, out)
    rows = wait_for_rows(process, 2)
    os.kill(rank_pids(out)[2], signal.SIGKILL)
    code, stderr = finish(process)
    assert code != 0
    assert "rank 2" in stderr  # mpirun names the rank that died
    points, complete = finished_points(out)
    assert points >= rows and complete == 0


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_interrupted_run_exits_3_with_its_points(tmp_path, sig):
    out = tmp_path / "interrupted.h5"
    process = start(2, out)
    rows = wait_for_rows(process, 2)
    os.kill(rank_pids(out)[0], sig)
    code, stderr = finish(process)
    assert code == 3, stderr
    assert "rank 0" in stderr and ("SIGTERM" in stderr or "SIGINT" in stderr)
    points, complete = finished_points(out)
    assert points >= rows and complete == 0


def test_hung_rank_times_out_with_exit_3(tmp_path):
    out = tmp_path / "hung.h5"
    process = start(2, out, ["-T", "2"])
    rows = wait_for_rows(process, 2)
    code, stderr = finish_frozen(process, rank_pids(out)[1])
    assert code == 3, stderr
    assert "timeout" in stderr and "rank 0" in stderr
    # The message names the wait and the point: "(-T) in <stage> at <point>".
    assert re.search(r"\(-T\) in [a-z][a-z0-9' -]+ at (allreduce|allgather|reduce_scatter) ",
                     stderr), stderr
    points, _ = finished_points(out)
    assert points >= rows


def test_a_full_disk_at_the_start_exits_3_naming_the_file_and_leaves_nothing(tmp_path):
    """The first flush of a result file writes more than 64 KiB: run and links find the disk
    full before any point, every rank exits 3, and the file is gone. HDF5 1.10, its flush
    failed, crashed at exit closing the file (exit 139); run called it bad input (exit 2)."""
    with small_disk(tmp_path / "disk", "64k") as disk:
        for command in (["run", "-b", "8", "-e", "8", "--no-fit"], ["links"]):
            out = disk / f"{command[0]}.h5"
            result = run_mpi(2, [*command, "--out", str(out)], timeout=120)
            assert result.returncode == 3, result.stdout + result.stderr
            assert (f"collbench {command[0]}: writing {out} failed: No space left on device; "
                    "nothing written") in result.stderr
            assert list(disk.iterdir()) == []


def test_a_disk_that_fills_mid_run_exits_3_naming_the_file_and_keeps_the_points(tmp_path):
    """2 MiB hold the long sweep's file only part way (each point's samples start on a page of
    their own): the writing rank ends the job, exit 3, naming the file and the system's reason,
    and every point finished before it reads back, from a copy off the full disk (fit stores
    its models in the file it reads)."""
    with small_disk(tmp_path / "disk", "2m") as disk:
        out = disk / "full.h5"
        process = start(2, out)
        rows = wait_for_rows(process, 2)
        code, stderr = finish(process, timeout=180)
        copy = tmp_path / "full.h5"
        shutil.copy(out, copy)
    assert code == 3, stderr
    assert re.search(rf"rank 0 on .*: fault at .*: writing {re.escape(str(out))} failed: No "
                     rf"space left on device; every finished point is in {re.escape(str(out))}",
                     stderr), stderr
    points, complete = finished_points(copy)
    assert points >= rows and complete == 0
