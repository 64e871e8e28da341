"""`collbench check` with [[link]] rules: a real links file (three ranks of this machine, so its
links are intra-node and named by rank) judged; exit codes, the table and the JUnit file."""
import re

import h5py
import pytest

from conftest import ROOT, junit_suite, run_mpi, run_plain, text

ACCEPTANCE = ROOT / "ci" / "acceptance"


@pytest.fixture(scope="module")
def links(tmp_path_factory):
    """The links file and its models: {host, smallest bandwidth (GB/s), smallest alpha (us)}."""
    out = tmp_path_factory.mktemp("check_links") / "links.h5"
    result = run_mpi(3, ["links", "--between", "ranks", "-b", "8", "-e", "64K", "-f", "8",
                         "-w", "1", "--min-samples", "6", "--max-time", "0.2",
                         "--pairs-at-once", "1", "--out", str(out)])
    assert result.returncode == 0, result.stderr
    with h5py.File(out, "r") as f:
        fits = f["link_fits"][()]
    assert len(fits) == 3 and {text(k) for k in fits["kind"]} == {"intra"}
    hosts = {text(h) for h in fits["first_host"]} | {text(h) for h in fits["second_host"]}
    assert len(hosts) == 1
    return out, {"host": hosts.pop(), "bandwidth": float(fits["bandwidth_GBps"].min()),
                 "alpha": float(fits["alpha_us"].min())}


def check(file, spec, *options):
    return run_plain(["check", str(file), "--spec", str(spec), *options])


def verdict_lines(stdout):
    """{rule name: its table line}."""
    return {line.split()[1]: line for line in stdout.splitlines() if not line.startswith("#")}


def test_a_floor_a_tenth_of_the_slowest_link_passes(links, tmp_path):
    out, model = links
    spec = tmp_path / "floor.toml"
    spec.write_text(f"""
[[link]]
name = "host-floor"
kind = "intra"
host = "{model['host']}"
bandwidth_min = "{model['bandwidth'] / 10:.6g} GB/s"
""")
    result = check(out, spec)
    assert result.returncode == 0, result.stdout + result.stderr
    line = verdict_lines(result.stdout)["host-floor"]
    assert line.startswith("PASS") and "3 links judged" in line, line


def test_a_ceiling_below_the_fastest_alpha_fails_naming_the_link(links, tmp_path):
    out, model = links
    spec = tmp_path / "ceiling.toml"
    spec.write_text(f"""
title = "links-too-fast"
[[link]]
name = "latency-ceiling"
latency_max = "{model['alpha'] / 2:.6g} us"

[[link]]
name = "inter-floor"
kind = "inter"
bandwidth_min = "1 GB/s"
optional = true

[[rule]]
name = "points"
collective = "allreduce"
busbw_min = "1 GB/s"
""")
    junit = tmp_path / "ceiling.xml"
    result = check(out, spec, "--junit", str(junit))
    assert result.returncode == 1, result.stdout + result.stderr
    lines = verdict_lines(result.stdout)
    host = re.escape(model["host"])
    assert lines["latency-ceiling"].startswith("FAIL"), lines
    assert re.search(rf"above the ceiling at rank \d on {host} <-> rank \d on {host}$",
                     lines["latency-ceiling"]), lines["latency-ceiling"]
    assert lines["inter-floor"].startswith("SKIP") and "no matching links" in lines["inter-floor"]
    assert lines["points"].startswith("FAIL") and "no matching points" in lines["points"]

    suite = junit_suite(junit)
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "2", "1")
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    assert set(cases) == {"latency-ceiling", "inter-floor", "points"}
    failure = cases["latency-ceiling"].find("failure")
    assert failure is not None and re.search(r"^FAIL: alpha [\d.]+ us \(threshold <= ",
                                             failure.get("message")), failure.get("message")


def test_a_bad_link_rule_exits_2_naming_the_line(links, tmp_path):
    out, _ = links
    spec = tmp_path / "typo.toml"
    spec.write_text('[[link]]\nkind = "intra"\nbandwith_min = "1 GB/s"\n')
    junit = tmp_path / "typo.xml"
    result = check(out, spec, "--junit", str(junit))
    assert result.returncode == 2
    assert (f"{spec}:3: rule 1: unknown key 'bandwith_min' (did you mean 'bandwidth_min'?)"
            in result.stderr), result.stderr
    assert result.stdout == "" and not junit.exists()


def test_the_example_links_spec_parses_and_judges_inter_links_only(links):
    out, _ = links
    spec = ACCEPTANCE / "links-vcluster.toml"
    printed = run_plain(["check", "--spec", str(spec)])
    assert printed.returncode == 0, printed.stderr
    assert "inter links  bandwidth >= 0.3 GB/s" in printed.stdout, printed.stdout
    result = check(out, spec)  # this machine's links are intra-node: nothing to judge
    assert result.returncode == 1 and result.stdout.count("no matching links") == 2, result.stdout
