"""Integration tests: the real collbench binary under a real mpirun, files read back by h5py."""
import contextlib
import os
import pathlib
import subprocess

import h5py
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
INTERPOSE = ROOT / "tests" / "interpose"
BINARY = pathlib.Path(os.environ.get("COLLBENCH", ROOT / "build" / "harness" / "collbench")).resolve()

def listed_collectives():
    """Each collective and how it runs, as the binary lists them (`run --list-ops`)."""
    listed = subprocess.run([str(BINARY), "run", "--list-ops"], capture_output=True, text=True,
                            check=True).stdout
    return [tuple(line.split()) for line in listed.splitlines()]


def every_collective():
    return [name for name, _ in listed_collectives()]


def library_collectives():
    """The collectives the backends' libraries run."""
    return [name for name, runs in listed_collectives() if runs == "library"]


def schema_version():
    """The result files' schema version, as the binary writes it (`collbench --version`)."""
    version = subprocess.run([str(BINARY), "--version"], capture_output=True, text=True,
                             check=True).stdout
    return int(version.rsplit("result file schema ", 1)[1])


# Fast stopping knobs: tests check behaviour, not the machine's numbers. Six samples are the
# fewest with a 95% interval of the median, so quick points can still converge.
QUICK = ["-w", "1", "--min-samples", "6", "--min-time", "0", "--max-time", "0.05"]
# For sweeps that check what each point computed (validation, every type and op), not when it
# stopped: six samples each. On ranks sharing cores the stopping rule gives most points their
# whole --max-time: 1,104 validated points on 4 ranks took 30-34 s with QUICK, 4.6 s so.
FIXED_COUNT = ["-w", "1", "-n", "6"]

# Two ranks on two cores, as a user runs them (--bind-to core), for the tests that judge
# verdicts: under MPI_ENV's yielding ranks small-message latency flips between about 0.9 and
# 2.5 us from one point to the next, and which one a point gets is chance.
BOUND = {"OMPI_MCA_mpi_yield_when_idle": "0", "OMPI_MCA_hwloc_base_binding_policy": "core"}

MPI_ENV = {
    "OMPI_ALLOW_RUN_AS_ROOT": "1",
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    # More ranks than cores: ranks that spin instead of yielding starve each other.
    "OMPI_MCA_mpi_yield_when_idle": "1",
    "OMPI_MCA_rmaps_base_oversubscribe": "1",
    "OMPI_MCA_hwloc_base_binding_policy": "none",
    # The PML a plain mpirun picks here (Debian's openmpi-mca-params.conf excludes ucx), named so
    # that Open MPI does not open cm and probe its MTLs: a fifth of a second of every launch.
    "OMPI_MCA_pml": "ob1",
}


def mpirun_command(np_, args):
    return ["mpirun", "-np", str(np_), str(BINARY), *args]


def environment(extra=None):
    env = dict(os.environ, **MPI_ENV)
    env.update(extra or {})
    return env


def run_mpi(np_, args, timeout=300, env=None):
    """Runs collbench under mpirun and returns the CompletedProcess (text output)."""
    return subprocess.run(mpirun_command(np_, args), capture_output=True, text=True,
                          timeout=timeout, env=environment(env), cwd=ROOT)


@pytest.fixture(scope="session")
def interposer(tmp_path_factory):
    """Builds tests/interpose/NAME.c into a shared library and returns its path."""
    folder = tmp_path_factory.mktemp("interpose")

    def build(name):
        library = folder / f"{name}.so"
        if not library.exists():
            subprocess.run(["mpicc", "-shared", "-fPIC", "-O2", "-o", str(library),
                            str(INTERPOSE / f"{name}.c")], check=True, timeout=120)
        return library
    return build


def run_preloaded(np_, args, library, timeout=300, env=None, **settings):
    """collbench under mpirun, `library` preloaded into every rank (not into mpirun, which does
    not link MPI) with the COLLBENCH_TEST_* settings it reads; `env` as run_mpi's."""
    variables = {"LD_PRELOAD": library, **{f"COLLBENCH_TEST_{k}": v for k, v in settings.items()}}
    exported = [flag for name, value in variables.items() for flag in ("-x", f"{name}={value}")]
    return subprocess.run(["mpirun", "-np", str(np_), *exported, str(BINARY), *args],
                          capture_output=True, text=True, timeout=timeout, env=environment(env),
                          cwd=ROOT)


def run_plain(args, timeout=120):
    """Runs collbench without a launcher (report, bad usage)."""
    return subprocess.run([str(BINARY), *args], capture_output=True, text=True,
                          timeout=timeout, env=environment(), cwd=ROOT)


def table_rows(stdout):
    """nccl-tests-shaped data lines: whitespace-separated fields, first one a size."""
    return [line.split() for line in stdout.splitlines()
            if line.strip() and not line.startswith("#")]


JUNIT_SCHEMA = ROOT / "tests" / "integration" / "fixtures" / "junit.xsd"


def junit_suite(path):
    """The <testsuite> of a JUnit file, once the file validates against the JUnit schema Jenkins
    reads (fixtures/junit.xsd)."""
    from lxml import etree
    document = etree.parse(str(path))
    etree.XMLSchema(etree.parse(str(JUNIT_SCHEMA))).assertValid(document)
    return document.getroot().find("testsuite")


def prometheus_samples(path):
    """[(metric, labels, value)] of a textfile, read by prometheus_client's parser of the
    exposition format: a line it cannot read fails the test."""
    from prometheus_client.parser import text_string_to_metric_families
    return [(s.name, s.labels, s.value)
            for family in text_string_to_metric_families(path.read_text())
            for s in family.samples]


def points_frame(path):
    with h5py.File(path, "r") as f:
        return f["points"][()]


def text(value):
    return value.decode() if isinstance(value, bytes) else value


@pytest.fixture
def out(tmp_path):
    return tmp_path / "run.h5"


@pytest.fixture(scope="session", autouse=True)
def binary_exists():
    if not BINARY.exists():
        pytest.fail(f"{BINARY} is missing: build first (ci/setup)")


def one_host_state(files):
    """Gives every file the first one's host-state probe (/host_probe). Which real launches the
    host's moves put in one state is chance; a test of what the verdicts do with a change, not
    with the states, makes them one. What compare and trend do with states is tested where the
    states are drawn over many seeds (host_states_test, nightly_rates_test, trend_files_test)."""
    first, *others = files
    with h5py.File(first, "r") as source:
        for path in others:
            with h5py.File(path, "r+") as f:
                del f["host_probe"]
                source.copy(source["host_probe"], f)



@contextlib.contextmanager
def small_disk(folder, size):
    """A tmpfs of `size` (mount's units: 64k, 2m) at `folder`: a disk that fills up."""
    folder.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)]).returncode:
        pytest.skip("mounting a tmpfs needs root")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)
