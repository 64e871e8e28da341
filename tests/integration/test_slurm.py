"""collbench under a real Slurm: ci/slurm/local-cluster starts slurmctld, two slurmd (each an
emulated node: a network namespace with its own host name) and a private munged; the tests
submit the templates of ci/slurm/ with `sbatch --wait`, as a user would, and read the files
back. CI runs as root with Slurm installed (ci/setup), so these run there."""
import os
import pathlib
import re
import shutil
import subprocess

import h5py
import pytest

from conftest import BINARY, QUICK, ROOT, text

SLURM = ROOT / "ci" / "slurm"
SPEC = ROOT / "ci" / "acceptance" / "mpi-local.toml"
# A small sweep: the tests check the plumbing (Slurm fields, verdict files), not the numbers.
SWEEP = ["--backend", "mpi", "--ops", "allreduce", "-b", "8", "-e", "64K", "-f", "8", *QUICK]

missing = [tool for tool in ("slurmctld", "slurmd", "sbatch", "munged", "ip")
           if shutil.which(tool) is None]
pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="a local Slurm needs root (munge user, "
                       "network namespaces, slurmd)"),
    pytest.mark.skipif(bool(missing), reason=f"Slurm/munge not installed (no {', '.join(missing)}):"
                       " apt-get install slurmctld slurmd slurm-client munge, or run ci/setup"),
]


@pytest.fixture(scope="module")
def cluster():
    """A two-node local Slurm for the module; always stopped, also when a test fails."""
    started = subprocess.run([str(SLURM / "local-cluster"), "start", "--nodes", "2"],
                             capture_output=True, text=True, timeout=120)
    assert started.returncode == 0, started.stdout + started.stderr
    folder = started.stdout.strip().splitlines()[-1]
    try:
        exports = subprocess.run([str(SLURM / "local-cluster"), "env", "--dir", folder],
                                 capture_output=True, text=True, check=True).stdout
        env = dict(os.environ)
        for line in exports.splitlines():
            key, _, value = line.removeprefix("export ").partition("=")
            env[key] = value
        env.pop("SLURM_JOB_ID", None)  # a test run inside a Slurm job must not leak its own
        nodes = subprocess.run(["sinfo", "-h", "-N", "-o", "%N"], capture_output=True, text=True,
                               env=env, check=True).stdout.split()
        yield {"env": env, "nodes": sorted(set(nodes)), "dir": folder}
    finally:
        stopped = subprocess.run([str(SLURM / "local-cluster"), "stop", "--dir", folder],
                                 capture_output=True, text=True, timeout=120)
        assert stopped.returncode == 0, stopped.stderr
        assert not pathlib.Path(folder).exists()


def sbatch(cluster, workdir, template, options=(), args=(), **settings):
    """`sbatch --wait` a template from workdir with COLLBENCH_* settings in the environment;
    returns (exit status, job id, the job's output)."""
    env = dict(cluster["env"], COLLBENCH=str(BINARY), COLLBENCH_OUTDIR=str(workdir / "results"))
    env.update({f"COLLBENCH_{key.upper()}": value for key, value in settings.items()})
    if not any(option.startswith("--output") for option in options):
        options = [f"--output={workdir}/%x-%j.out", *options]
    done = subprocess.run(["sbatch", "--wait", "--parsable", "--partition=debug", "--time=5",
                           *options, str(SLURM / template),
                           *args], capture_output=True, text=True, env=env, cwd=workdir,
                          timeout=240)
    job = done.stdout.strip().split(";")[0]
    logs = "".join(p.read_text() for p in sorted(workdir.glob(f"*-{job}*.out")))
    return done.returncode, job, f"{done.stderr}\n{logs}"


def hostnames(nodelist, env):
    return subprocess.run(["scontrol", "show", "hostnames", nodelist], capture_output=True,
                          text=True, env=env, check=True).stdout.split()


def knows(subcommand):
    return subprocess.run([str(BINARY), subcommand, "--help"], capture_output=True,
                          timeout=60).returncode == 0


def nightly(cluster, workdir, **settings):
    return sbatch(cluster, workdir, "nightly.sbatch", ["--nodes=2", "--ntasks-per-node=2"],
                  args=(), ARGS=" ".join(SWEEP), **settings)


def result_of(workdir, job):
    files = sorted((workdir / "results").glob(f"*-{job}.h5"))
    assert len(files) == 1, list((workdir / "results").iterdir())
    return files[0]


def test_nightly_records_the_slurm_job(cluster, tmp_path):
    status, job, log = nightly(cluster, tmp_path)
    assert status == 0, log
    result = result_of(tmp_path, job)
    with h5py.File(result, "r") as f:
        attrs = {key: text(value) for key, value in f.attrs.items()}
        hosts = {text(row["host"]) for row in f["topology"][()]}
    assert attrs["slurm_job_id"] == job
    assert attrs["slurm_step_id"] == "0"  # the first srun step of the batch job
    assert sorted(hostnames(attrs["slurm_job_nodelist"], cluster["env"])) == cluster["nodes"]
    assert attrs["slurm_partition"] == "debug"
    assert "slurm_array_task_id" not in attrs
    assert int(attrs["nodes"]) == 2 and int(attrs["nranks"]) == 4
    assert hosts == set(cluster["nodes"])  # every node its own host name
    assert "--time-limit" in attrs["command_line"]  # sized to the job's window


def test_nightly_check_and_compare_against_a_baseline(cluster, tmp_path):
    if not knows("check") or not knows("compare"):
        pytest.skip("this collbench has no 'check'/'compare' subcommands yet")
    if not SPEC.exists():
        pytest.skip(f"no acceptance spec {SPEC.relative_to(ROOT)} yet")
    status, job, log = nightly(cluster, tmp_path)  # the first night is the baseline
    assert status == 0, log
    baseline = tmp_path / "baseline.h5"
    shutil.copy(result_of(tmp_path, job), baseline)

    status, job, log = nightly(cluster, tmp_path, SPEC=str(SPEC), BASELINE=str(baseline))
    stem = result_of(tmp_path, job).with_suffix("")
    verdicts = {line.split(":")[0]: int(line.rsplit(" ", 1)[1]) for line in log.splitlines()
                if line.startswith(("collbench check:", "collbench compare:", "collbench trend:"))}
    assert set(verdicts) == {"collbench check", "collbench compare", "collbench trend"}, log
    # The verdicts are the machine's business (a noisy 2-core VM may be slower); the template's
    # are that both ran on good input and that the job reports the worst of them.
    assert all(code in (0, 1) for code in verdicts.values()), log
    assert status == max(verdicts.values()), log
    for kind in ("check", "compare", "trend"):
        assert pathlib.Path(f"{stem}.{kind}.xml").stat().st_size > 0
    # One stable Prometheus file per job in the collector's folder, none dated.
    prom = stem.parent / "prom"
    assert sorted(p.name for p in prom.iterdir()) == [
        "collbench_check_mpi-local.prom", "collbench_compare.prom", "collbench_trend.prom"]
    assert all(p.stat().st_size > 0 for p in prom.iterdir())


def test_array_sweeps_node_counts_and_followup_finds_every_task(cluster, tmp_path):
    status, job, log = sbatch(cluster, tmp_path, "array.sbatch",
                              ["--array=0-1", "--nodes=2", "--ntasks-per-node=2",
                               f"--output={tmp_path}/%x-%A_%a.out"],
                              SWEEP="1 world;2 inter", ARGS=" ".join(SWEEP))
    assert status == 0, log
    files = sorted((tmp_path / "results").glob(f"*-{job}_*.h5"))
    assert [f.stem.rsplit("_", 1)[1] for f in files] == ["0", "1"], log
    for index, (path, nodes) in enumerate(zip(files, (1, 2))):
        with h5py.File(path, "r") as f:
            assert text(f.attrs["slurm_array_job_id"]) == job
            assert text(f.attrs["slurm_array_task_id"]) == str(index)
            assert int(f.attrs["nodes"]) == nodes
            assert text(f.attrs["placement"]) == ("world", "inter")[index]

    # Each array index has a history of its own: a folder, %a in COLLBENCH_BASELINE.
    for path in files:
        history = tmp_path / "baselines" / path.stem.rsplit("_", 1)[1]
        history.mkdir(parents=True)
        for night in ("1", "2"):
            shutil.copy(path, history / f"night{night}.h5")
    settings = {"BASELINE": str(tmp_path / "baselines" / "%a")}
    if knows("check") and SPEC.exists():
        settings["SPEC"] = str(SPEC)
    status, _, log = sbatch(cluster, tmp_path, "followup.sbatch", args=[job], **settings)
    assert status in (0, 1), log
    for path in files:
        index = path.stem.rsplit("_", 1)[1]
        assert f"collbench compare {tmp_path / 'baselines' / index} {path}: exit" in log, log
        assert path.with_suffix(".compare.xml").stat().st_size > 0
        if "SPEC" in settings:
            assert path.with_suffix(".check.xml").exists(), log


def test_site_hooks_run_before_the_sweep(cluster, tmp_path):
    """COLLBENCH_SETUP (module loads, a site script) runs first, COLLBENCH_SRUN_ARGS reach srun
    (here --label, which prefixes each task's lines), COLLBENCH_MPI names the plugin; a setup
    that fails ends the job with 2 before anything runs."""
    status, job, log = nightly(cluster, tmp_path, SETUP="echo site-setup-ran",
                               SRUN_ARGS="--label", MPI="pmix")
    assert status == 0, log
    assert "site-setup-ran" in log and re.search(r"^0: ", log, re.M), log
    failing = tmp_path / "failing"
    failing.mkdir()
    status, job, log = nightly(cluster, failing, SETUP="false")
    assert status == 2 and "COLLBENCH_SETUP failed" in log, log
    assert not (failing / "results").exists()


def test_submit_array_gives_each_task_only_the_nodes_it_uses(cluster, tmp_path):
    env = dict(cluster["env"], COLLBENCH=str(BINARY), COLLBENCH_OUTDIR=str(tmp_path / "results"),
               COLLBENCH_ARGS=" ".join(SWEEP), COLLBENCH_SWEEP="1 world;2 inter")
    done = subprocess.run([str(SLURM / "submit-array"), "--wait", "--partition=debug", "--time=5",
                           "--ntasks-per-node=2", f"--output={tmp_path}/%x-%A_%a.out"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    jobs = done.stdout.split()
    assert len(jobs) == 2, done.stdout  # one array per node count
    for job, nodes, placement in zip(jobs, (1, 2), ("world", "inter")):
        (path,) = (tmp_path / "results").glob(f"*-{job}_*.h5")
        with h5py.File(path, "r") as f:
            allocated = hostnames(text(f.attrs["slurm_job_nodelist"]), cluster["env"])
            assert len(allocated) == nodes and int(f.attrs["nodes"]) == nodes
            assert text(f.attrs["placement"]) == placement


def test_interleaved_launches_alternate_in_one_job(cluster, tmp_path):
    """The A/B template: A and B launched in turn by srun inside one allocation, the pairs
    judged by compare --interleaved, its JUnit file beside them."""
    status, job, log = sbatch(cluster, tmp_path, "interleaved.sbatch",
                              ["--nodes=2", "--ntasks-per-node=1"], ARGS=" ".join(SWEEP),
                              PAIRS="2 2", B_ENV="OMPI_MCA_coll_tuned_use_dynamic_rules=0",
                              INTERLEAVE=str(ROOT / "ci" / "interleave"))
    assert status in (0, 1), log
    results = tmp_path / "results"
    launches = {side: sorted((results / side).glob("*.h5")) for side in "AB"}
    assert [p.name for p in launches["A"]] == ["01.h5", "02.h5"], log
    assert [p.name for p in launches["B"]] == ["01.h5", "02.h5"], log
    step = {}
    for side, files in launches.items():
        for path in files:
            with h5py.File(path, "r") as f:
                assert text(f.attrs["slurm_job_id"]) == job
                assert int(f.attrs["nodes"]) == 2
                step[(side, path.stem)] = text(f.attrs["slurm_step_id"])
    # one srun step each, ABBA: A first in pair 1, B first in pair 2
    assert [step[("A", "01")], step[("B", "01")], step[("B", "02")], step[("A", "02")]] == \
        ["0", "1", "2", "3"], step
    assert "2 interleaved pairs of launches" in log, log
    assert re.search(r"^# verdict: (SAME|FASTER|SLOWER|NOISY|UNSURE) ", log, re.M), log
    assert (results / "compare.xml").stat().st_size > 0


def test_templates_are_shellcheck_clean():
    scripts = [*SLURM.glob("*.sbatch"), SLURM / "submit-array", SLURM / "local-cluster",
               SLURM.parent / "interleave"]
    done = subprocess.run(["shellcheck", "-S", "warning", *map(str, scripts)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout
