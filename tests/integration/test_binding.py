"""How the ranks sit (docs/running.md, "Running it"): bound one a core and spinning, `run` says nothing;
unbound, sharing cores or yielding, it prints one warning line with the fix under the header
(stderr with --quiet) and keeps it, with a summary, in the file's provenance."""
import h5py
import pytest

from conftest import BOUND, QUICK, run_mpi, text

SWEEP = ["run", "--mode", "latency", "-b", "8", "-e", "64", "-f", "8", "--ops", "allreduce",
         *QUICK]


def warnings(output):
    return [line for line in output.splitlines() if line.startswith("# warning:")]


def binding(out):
    with h5py.File(out, "r") as f:
        return text(f.attrs["binding"]), text(f.attrs.get("binding_warning", ""))


def test_ranks_bound_one_a_core_and_spinning_get_no_warning(out):
    result = run_mpi(2, [*SWEEP, "--out", str(out)], env=BOUND)
    assert result.returncode == 0, result.stderr
    assert warnings(result.stdout + result.stderr) == []
    assert binding(out) == ("one core a rank, spinning", "")


@pytest.mark.parametrize("env, problem, fix", [
    ({"OMPI_MCA_hwloc_base_binding_policy": "none", "OMPI_MCA_mpi_yield_when_idle": "0"},
     "ranks are not bound to cores", "add --bind-to core (srun: --cpu-bind=cores)"),
    ({"OMPI_MCA_hwloc_base_binding_policy": "core", "OMPI_MCA_mpi_yield_when_idle": "1"},
     "ranks yield the CPU while they wait", "drop --mca mpi_yield_when_idle"),
])
def test_a_placement_that_misleads_is_warned_once_with_its_fix(out, env, problem, fix):
    result = run_mpi(2, [*SWEEP, "--out", str(out)], env=env)
    assert result.returncode == 0, result.stderr
    summary, warning = binding(out)
    assert summary.startswith(problem) and fix not in summary
    assert warnings(result.stdout) == [f"# warning: {warning}"]
    assert warning.startswith(problem) and warning.endswith(fix) and "will mislead" in warning
    header_end = result.stdout.index("# sweep:")
    assert result.stdout.index("# warning:") < header_end  # before any number it is about


def test_oversubscribed_ranks_are_told_and_a_quiet_run_says_it_on_stderr(out):
    result = run_mpi(3, [*SWEEP, "--quiet", "--out", str(out)])
    assert result.returncode == 0, result.stderr
    _, warning = binding(out)
    assert warning.startswith("oversubscribed (3 ranks on the ")
    assert "start at most one rank a core" in warning
    assert warnings(result.stderr) == [f"# warning: {warning}"]
    assert warnings(result.stdout) == []
