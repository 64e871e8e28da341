"""`collbench check`: a real mpirun sweep judged against acceptance specs; exit codes, the
terminal table, JSON, and the JUnit and Prometheus files read back."""
import json
import re
import subprocess

import h5py
import pytest

from conftest import (BINARY, QUICK, ROOT, environment, junit_suite, prometheus_samples,
                      run_mpi, run_plain, text)

ACCEPTANCE = ROOT / "ci" / "acceptance"


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    """collbench's default sweep (every collective, 8 B to 64 MiB, both modes, fits) on 2 ranks."""
    out = tmp_path_factory.mktemp("check") / "run.h5"
    run = run_mpi(2, ["run", *QUICK, "--quiet", "--out", str(out)])
    assert run.returncode == 0, run.stderr
    return out


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


FAILING = """
title = "too-fast"
[[rule]]
name = "passes"
collective = "allreduce"
sizes = "1M-64M"
busbw_min = "1 MB/s"

[[rule]]
name = "impossible-busbw"
collective = "allgather"
sizes = "1M-64M"
busbw_min = "100 TB/s"

[[rule]]
name = "not-measured"
collective = "allreduce"
nranks = 64
busbw_min = "1 GB/s"

[[rule]]
name = "optional-not-measured"
collective = "allreduce"
nranks = 64
latency_max = "1 s"
optional = true
"""

def prometheus(path):
    """{(metric, rule name): (labels, value)}, and the run's timestamp under (metric, None)."""
    series = {}
    for metric, labels, value in prometheus_samples(path):
        assert metric.startswith("collbench_check_"), metric
        assert "verdict" not in labels  # the verdict is the severity's value, not a label
        series[(metric, labels.get("name"))] = (labels, value)
    return series


def test_the_local_acceptance_spec_passes(result, tmp_path):
    junit, prom = tmp_path / "check.xml", tmp_path / "check.prom"
    check = run_plain(["check", str(result), "--spec", str(ACCEPTANCE / "mpi-local.toml"),
                       "--junit", str(junit), "--prom", str(prom)])
    assert check.returncode == 0, check.stdout + check.stderr
    verdicts = [line.split()[0] for line in check.stdout.splitlines() if not line.startswith("#")]
    assert len(verdicts) == 6 and set(verdicts) <= {"PASS", "WARN"}, check.stdout
    assert re.search(r"^# check: 6 rules, \d+ pass, \d+ warn, 0 fail, 0 skip: (PASS|WARN)$",
                     check.stdout, re.M), check.stdout
    suite = junit_suite(junit)
    assert suite.get("name") == "mpi-local" and suite.get("failures") == "0"
    assert len(suite.findall("testcase")) == 6
    with h5py.File(result, "r") as f:  # the judged run's start, UTC, without the zone
        assert suite.get("timestamp") == text(f.attrs["start_utc"]).rstrip("Z")
    series = prometheus(prom)
    labels, value = series[("collbench_check_bytes_per_second", "allreduce-busbw")]
    assert labels["collective"] == "allreduce" and labels["nranks"] == "2"
    assert value > 10e6  # bytes per second, above the spec's 10 MB/s floor
    latency = [v for (m, _), (_, v) in series.items() if m == "collbench_check_seconds"]
    assert latency and all(0 < v < 5e-3 for v in latency)  # seconds, under the 5000 us ceiling
    assert series[("collbench_check_severity", "allreduce-busbw")][1] == 0
    assert series[("collbench_check_run_timestamp_seconds", None)][1] > 1.7e9


def test_a_failing_spec_exits_1_with_a_fail_line_per_failed_rule(result, tmp_path):
    spec = write(tmp_path, "failing.toml", FAILING)
    junit, prom = tmp_path / "failing.xml", tmp_path / "failing.prom"
    check = run_plain(["check", str(result), "--spec", str(spec), "--junit", str(junit),
                       "--prom", str(prom)])
    assert check.returncode == 1, check.stdout + check.stderr
    lines = {line.split()[1]: line for line in check.stdout.splitlines()
             if not line.startswith("#")}
    assert lines["passes"].startswith("PASS")
    assert lines["impossible-busbw"].startswith("FAIL") and "below the floor" in lines["impossible-busbw"]
    assert lines["not-measured"].startswith("FAIL") and "no matching points" in lines["not-measured"]
    assert lines["optional-not-measured"].startswith("SKIP")
    assert "# check: 4 rules, 1 pass, 0 warn, 2 fail, 1 skip: FAIL" in check.stdout

    # JUnit: one test case per rule, a <failure> for each FAIL with the measured value
    suite = junit_suite(junit)
    assert suite.get("name") == "too-fast"
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("4", "2", "1")
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    assert set(cases) == {"passes", "impossible-busbw", "not-measured", "optional-not-measured"}
    failure = cases["impossible-busbw"].find("failure")
    assert failure is not None and failure.get("type") == "FAIL"
    assert re.search(r"busbw [\d.e+-]+ TB/s \[", failure.get("message")), failure.get("message")
    assert cases["passes"].find("failure") is None
    assert cases["optional-not-measured"].find("skipped") is not None

    # Prometheus: severity per rule, a value where something was measured
    series = prometheus(prom)
    assert series[("collbench_check_severity", "impossible-busbw")][1] == 2
    assert series[("collbench_check_severity", "not-measured")][1] == 2
    assert series[("collbench_check_severity", "optional-not-measured")][1] == 0
    assert ("collbench_check_bytes_per_second", "not-measured") not in series
    labels, value = series[("collbench_check_bytes_per_second", "impossible-busbw")]
    assert labels["metric"] == "busbw" and 0 < value < 1e14


def test_json_output(result, tmp_path):
    spec = write(tmp_path, "failing.toml", FAILING)
    check = run_plain(["check", str(result), "--spec", str(spec), "--format", "json"])
    assert check.returncode == 1, check.stderr
    document = json.loads(check.stdout)
    assert document["verdict"] == "FAIL" and document["title"] == "too-fast"
    rules = {rule["name"]: rule for rule in document["rules"]}
    impossible = rules["impossible-busbw"]
    assert impossible["verdict"] == "FAIL" and impossible["unit"] == "GB/s"
    assert impossible["threshold"]["floor"] == pytest.approx(1e5)
    measured = impossible["measured"]
    assert measured["collective"] == "allgather" and measured["nranks"] == 2
    assert 1 << 20 <= measured["size_bytes"] <= 64 << 20
    assert measured["ci_low"] <= measured["value"] <= measured["ci_high"]
    assert rules["not-measured"]["measured"] is None
    assert rules["optional-not-measured"]["verdict"] == "SKIP"


def test_a_bad_spec_exits_2_naming_the_line_and_writes_nothing(result, tmp_path):
    spec = write(tmp_path, "typo.toml", '[[rule]]\ncollective = "allreduce"\n'
                                        'bussbw_min = "300 GB/s"\n')
    junit, prom = tmp_path / "typo.xml", tmp_path / "typo.prom"
    check = run_plain(["check", str(result), "--spec", str(spec), "--junit", str(junit),
                       "--prom", str(prom)])
    assert check.returncode == 2
    assert f"{spec}:3: rule 1: unknown key 'bussbw_min' (did you mean 'busbw_min'?)" in check.stderr
    assert check.stdout == ""
    assert not junit.exists() and not prom.exists()
    assert list(tmp_path.iterdir()) == [spec]  # no temporary files either


@pytest.mark.parametrize("text, message", [
    ('[[rule]]\nbusbw_min = "300 Gb/s"\n', ":2: rule 1: busbw_min: '300 Gb/s' has unknown unit"),
    ('[[rule]]\ncollective = "allreduse"\nbusbw_min = "1 GB/s"\n', ":2: rule 1: collective"),
    ('[[rule]]\nsizes = "1G-8G"\nbusbw_min = "1 GB/s"\n[[rule]]\nsizes = "4G-16G"\n'
     'busbw_min = "2 GB/s"\n', ":4: rule 2: overlaps rule 1 (line 1)"),
    ('[[rule]]\nbusbw_min = "1 GB/s"\nlatency_max = "1 ms"\n', "rule 1: two thresholds"),
])
def test_spec_errors_exit_2(result, tmp_path, text, message):
    spec = write(tmp_path, "bad.toml", text)
    check = run_plain(["check", str(result), "--spec", str(spec)])
    assert check.returncode == 2 and message in check.stderr, check.stderr


def test_a_bad_file_or_option_exits_2(tmp_path):
    spec = ACCEPTANCE / "mpi-local.toml"
    missing = run_plain(["check", str(tmp_path / "missing.h5"), "--spec", str(spec)])
    assert missing.returncode == 2 and "missing.h5" in missing.stderr
    not_hdf5 = write(tmp_path, "not.h5", "plain text")
    assert run_plain(["check", str(not_hdf5), "--spec", str(spec)]).returncode == 2
    no_spec = run_plain(["check", str(not_hdf5), "--spec", str(tmp_path / "none.toml")])
    assert no_spec.returncode == 2 and "none.toml" in no_spec.stderr
    assert run_plain(["check", str(not_hdf5)]).returncode == 2  # --spec is required


@pytest.mark.parametrize("name", ["mpi-local.toml", "vcluster-1gbit.toml", "h100-ib-ndr.toml",
                                  "links-vcluster.toml"])
def test_the_example_specs_parse(result, name):
    """Every example parses; the H100 one fails on this machine (nothing is an H100 here), the
    links one too (a run's file has no links)."""
    check = run_plain(["check", str(result), "--spec", str(ACCEPTANCE / name)])
    assert check.returncode in (0, 1), check.stderr


def test_one_stable_file_per_spec_in_the_collectors_folder(result, tmp_path):
    """--prom-dir, or COLLBENCH_PROM_DIR: the same file replaced night after night (what
    node_exporter's textfile collector reads), never a new dated one, and nothing else left."""
    folder = tmp_path / "textfiles"
    folder.mkdir()
    spec = ACCEPTANCE / "mpi-local.toml"
    first = run_plain(["check", str(result), "--spec", str(spec), "--prom-dir", str(folder)])
    assert first.returncode == 0, first.stderr
    stable = folder / "collbench_check_mpi-local.prom"
    assert sorted(folder.iterdir()) == [stable]
    written = stable.stat().st_mtime_ns
    second = subprocess.run([str(BINARY), "check", str(result), "--spec", str(spec)],
                            capture_output=True, text=True, timeout=60,
                            env={**environment(), "COLLBENCH_PROM_DIR": str(folder)})
    assert second.returncode == 0, second.stderr
    assert sorted(folder.iterdir()) == [stable] and stable.stat().st_mtime_ns >= written
    assert any(m == "collbench_check_severity" for m, _, _ in prometheus_samples(stable))
    missing = run_plain(["check", str(result), "--spec", str(spec), "--prom-dir",
                         str(tmp_path / "absent")])
    assert missing.returncode == 2 and "--prom-dir" in missing.stderr
