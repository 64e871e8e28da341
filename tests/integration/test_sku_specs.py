"""The per-SKU acceptance specs (ci/acceptance/{h100,h200,a100}-hgx.toml), found by name, each
held against files whose points sit just above and just below every one of its thresholds: a
real run's file, its point rewritten (h5py) to each rule's collective, placement, ranks and size
with the bus bandwidth wanted."""
import json
import shutil
import tomllib

import h5py
import numpy as np
import pytest

from conftest import FIXED_COUNT, ROOT, run_mpi, run_plain

ACCEPTANCE = ROOT / "ci" / "acceptance"
SKUS = ["h100-hgx", "h200-hgx", "a100-hgx"]
GIB = 1 << 30


def rules_of(sku):
    """[(name, placement, nranks, bytes, busbw floor GB/s)] of the spec's busbw rules."""
    spec = tomllib.loads((ACCEPTANCE / f"{sku}.toml").read_text())
    rules = []
    for rule in spec["rule"]:
        value, unit = rule["busbw_min"].split()
        assert unit == "GB/s" and rule["sizes"].endswith("G"), rule
        rules.append((rule["name"], rule["placement"], rule.get("nranks", 2),
                      int(rule["sizes"][:-1]) * GIB, float(value)))
    return rules


@pytest.fixture(scope="module")
def one_point(tmp_path_factory):
    out = tmp_path_factory.mktemp("sku") / "one.h5"
    result = run_mpi(2, ["run", "--ops", "allreduce", "-b", "1K", "-e", "1K", "--mode",
                         "bandwidth", "--no-fit", "--out", str(out), *FIXED_COUNT])
    assert result.returncode == 0, result.stderr
    return out


def with_points(one_point, path, wanted):
    """A copy of the one-point file holding a point per (placement, nranks, bytes, busbw GB/s):
    allreduce's time for that busbw (nccl-tests' bus factor 2(n-1)/n), its interval that time."""
    shutil.copy(one_point, path)
    with h5py.File(path, "r+") as f:
        template = f["points"][()][0]
        rows = np.repeat(template[np.newaxis], len(wanted))
        for i, (placement, nranks, size, busbw) in enumerate(wanted):
            algbw = busbw / (2 * (nranks - 1) / nranks)
            seconds = size / (algbw * 1e9)
            row = rows[i]
            row["point_id"] = i
            row["placement"], row["nranks"] = placement.encode(), nranks
            row["size_bytes"], row["count"] = size, size // 4
            row["busbw_GBps"], row["algbw_GBps"] = busbw, algbw
            for column in ("time_median_us", "time_median_ci_low_us", "time_median_ci_high_us"):
                row[column] = seconds * 1e6
        f["points"].resize((len(rows),))
        f["points"][...] = rows
    return path


def verdicts(path, sku):
    check = run_plain(["check", str(path), "--spec", sku, "--format", "json"])
    assert check.returncode in (0, 1), check.stderr
    return check.returncode, {r["name"]: r["verdict"].lower() for r in json.loads(check.stdout)["rules"]}


@pytest.mark.parametrize("sku", SKUS)
def test_each_threshold_passes_just_above_and_fails_just_below(one_point, tmp_path, sku):
    rules = rules_of(sku)
    above = [(placement, n, size, floor * 1.01) for _, placement, n, size, floor in rules]
    code, judged = verdicts(with_points(one_point, tmp_path / "above.h5", above), sku)
    # Within the spec's 5%: passing, and said to be close.
    assert code == 0 and judged == {name: "warn" for name, *_ in rules}, judged
    for failing, (name, *_) in enumerate(rules):
        below = [(p, n, size, busbw * (0.99 / 1.01 if i == failing else 1))
                 for i, (p, n, size, busbw) in enumerate(above)]
        code, judged = verdicts(with_points(one_point, tmp_path / f"below-{name}.h5", below), sku)
        assert code == 1 and judged[name] == "fail", judged
        assert all(v == "warn" for other, v in judged.items() if other != name), judged


def test_a_one_node_file_skips_the_optional_nic_rule(one_point, tmp_path):
    rules = rules_of("h100-hgx")
    intra = [(p, n, size, floor * 1.2) for _, p, n, size, floor in rules if p == "intra"]
    code, judged = verdicts(with_points(one_point, tmp_path / "node.h5", intra), "h100-hgx")
    assert code == 0 and judged == {"nvlink-allreduce-busbw": "pass",
                                    "nic-allreduce-busbw": "skip"}, judged


def test_a_spec_name_not_shipped_is_refused_naming_the_shipped_ones(one_point):
    check = run_plain(["check", str(one_point), "--spec", "h900-hgx"])
    assert check.returncode == 2
    assert "--spec h900-hgx: no spec of that name" in check.stderr
    assert all(sku in check.stderr for sku in SKUS)
