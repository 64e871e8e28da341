"""`cmake --install`: bin/collbench and share/collbench (plots, acceptance specs, Slurm scripts)
under a prefix that is then moved; the moved binary runs a sweep, draws the report and checks
the run against a shipped spec by name, each found from the binary's own place."""
import json
import shutil
import subprocess

from conftest import BINARY, FIXED_COUNT, environment

BUILD = BINARY.parents[1]


def test_a_moved_install_runs_plots_and_checks(tmp_path):
    first = tmp_path / "first"
    done = subprocess.run(["cmake", "--install", str(BUILD), "--prefix", str(first)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    share = first / "share" / "collbench"
    assert (first / "bin" / "collbench").is_file()
    assert (share / "plots" / "collbench_plot.py").is_file()
    assert (share / "acceptance" / "h100-hgx.toml").is_file()
    assert (share / "slurm" / "nightly.sbatch").stat().st_mode & 0o111  # still a script
    moved = tmp_path / "moved"
    shutil.move(first, moved)
    collbench = str(moved / "bin" / "collbench")
    env = environment()
    out = tmp_path / "run.h5"
    run = subprocess.run(["mpirun", "-np", "2", collbench, "run", "-e", "64K", "--out", str(out),
                          *FIXED_COUNT], capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr
    plotted = subprocess.run([collbench, "plot", str(out), "--report", "-o", str(tmp_path / "plots"),
                              "--figures", "busbw"], capture_output=True, text=True, timeout=120,
                             env=env)
    assert plotted.returncode == 0, plotted.stderr
    assert (tmp_path / "plots" / "run-report.html").is_file()
    check = subprocess.run([collbench, "check", str(out), "--spec", "mpi-local", "--format",
                            "json"], capture_output=True, text=True, timeout=120, env=env)
    assert check.returncode in (0, 1), check.stderr
    assert json.loads(check.stdout)["spec"] == str(moved / "share/collbench/acceptance/mpi-local.toml")
