"""`collbench trend FILES|DIR`: a nightly history per point with its change points, on real
runs: six nights, the last three with rank 1's collectives returning nine times their own time
late (the test-only interposer delay_collectives), 10x slower: beyond the host's own states,
which move small sizes by 2.2x over minutes here, where a twofold slowdown was found at only 5 of
10 points in one CI run. How small a step is found is change_points_test's business, how often
an unchanged history alerts nightly_rates_test's. The change is found where it was planted,
judged as the newest level against the nights before it, and is no verdict once its level is
old; the verdict files parse back, with the host-state record; the trend figure and the report's
section are drawn from the JSON, and bad input exits 2.

Every night's host-state probe is the first night's (conftest.one_host_state): in two CI runs
the newest night shared its state with none of the five before it, then with only some of the
slowed ones."""
import json
import re
import shutil

import pytest

from conftest import (BOUND, QUICK, junit_suite, one_host_state, prometheus_samples, run_mpi,
                      run_plain, run_preloaded)

NIGHTS = 6
SLOWED_FROM = 3  # nights 4, 5 and 6 (run indexes 3..5)
SWEEP = ["--backend", "mpi", "--ops", "allreduce,allgather", "-b", "8", "-e", "4K", "-f", "4",
         *QUICK, "--no-fit"]


@pytest.fixture(scope="module")
def nights(tmp_path_factory, interposer):
    folder = tmp_path_factory.mktemp("nights")
    for night in range(NIGHTS):
        args = ["run", *SWEEP, "--out", str(folder / f"2026-12-{night + 1:02d}.h5")]
        if night >= SLOWED_FROM:
            result = run_preloaded(2, args, interposer("delay_collectives"), env=BOUND,
                                   DELAY_RANK="1", DELAY_FRACTION="9", DELAY_WHAT="data")
        else:
            result = run_mpi(2, args, env=BOUND)
        assert result.returncode == 0, result.stdout + result.stderr
    one_host_state(sorted(folder.iterdir()))
    return folder


def trend(*args, timeout=120):
    return run_plain(["trend", *map(str, args)], timeout=timeout)


def test_the_planted_slowdown_is_a_change_point_where_it_was_planted(nights, tmp_path):
    junit, prom = tmp_path / "trend.xml", tmp_path / "trend.prom"
    result = trend(nights, "--format", "json", "--junit", junit, "--prom", prom)
    assert result.returncode == 1, result.stdout + result.stderr  # something got slower
    report = json.loads(result.stdout)
    assert len(report["runs"]) == NIGHTS and report["runs"] == sorted(report["runs"])
    allreduce = [p for p in report["points"] if p["collective"] == "allreduce"]
    assert len(allreduce) == 10  # 8 B to 2 KiB by 4x: 5 sizes, 2 modes
    found = [p for p in allreduce
             if p["verdict"] == "SLOWER" and [c["run"] for c in p["changes"]] == [SLOWED_FROM]]
    print(f"allreduce slowed from night {SLOWED_FROM + 1}: change found there at "
          f"{len(found)}/{len(allreduce)} points;",
          {p["size_bytes"]: [round(c["change"], 2) for c in p["changes"]] for p in allreduce
           if p["mode"] == "latency"})
    assert len(found) >= 0.9 * len(allreduce)
    for point in found:
        assert len(point["median_us"]) == NIGHTS
        assert point["changes"][0]["change"] > 1.5  # 10x, less the host's 2.2x at worst
        assert point["runs_at_level"] == NIGHTS - SLOWED_FROM
        assert point["changes"][0]["p_value"] <= 0.05
        # the verdict: the three slowed nights against the three before them
        assert point["judged_runs"] == NIGHTS - SLOWED_FROM and point["ratio_ci"][0] > 1.05
    summary = report["summary"]
    assert summary["slower"] == sum(p["verdict"] == "SLOWER" for p in report["points"])
    assert report["alerts"] and summary["alerts"] == len(report["alerts"])
    assert report["host_state"]["status"] == "matched"  # one probe, copied to every night
    assert report["host_state"]["launches_in_state"] == NIGHTS - 1

    suite = junit_suite(junit)
    assert int(suite.get("tests")) == len(report["points"]) + 2  # the host state, the night
    assert int(suite.get("failures")) == summary["slower"] + (report["night"]["verdict"] == "SLOWER")
    samples = [(m, v) for m, labels, v in prometheus_samples(prom)
               if labels.get("kind") == "point"]
    severities = sorted(v for m, v in samples if m == "collbench_trend_severity")
    assert severities == sorted({"SAME": 0, "FASTER": 0, "UNSURE": 1, "NOISY": 1,
                                 "SLOWER": 2}[p["verdict"]] for p in report["points"])
    ratios = [v for m, v in samples if m == "collbench_trend_ratio"]
    assert len(ratios) == len(report["points"]) and max(ratios) > 3  # 50 us on 1-4 us


def test_the_table_names_the_night_of_the_change(nights):
    result = trend(*sorted(nights.iterdir()))  # files instead of the folder: the same
    assert result.returncode == 1, result.stderr
    lines = [l for l in result.stdout.splitlines() if l.startswith("  allreduce")]
    assert len(lines) == 10
    slower = [l for l in lines if " SLOWER " in l]
    assert len(slower) >= 9
    assert all(f"run {SLOWED_FROM + 1} (2026-12-{SLOWED_FROM + 1:02d}.h5)" in l for l in slower)
    assert re.search(r"^# trend: 20 points over 6 runs: \d+ same, \d+ faster, \d+ slower, "
                     r"\d+ unsure, \d+ noisy; [1-9]\d* alerts$", result.stdout, re.M)
    assert re.search(r"^# alert: allreduce .*: SLOWER at \d+ sizes", result.stdout, re.M)


def test_the_trend_figure_and_the_reports_section(nights, tmp_path):
    data = tmp_path / "trend.json"
    data.write_text(trend(nights, "--format", "json").stdout)
    newest = sorted(nights.iterdir())[-1]
    result = run_plain(["plot", str(newest), "-o", str(tmp_path), "--figures", "trend",
                        "--trend", str(data), "--report"], timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    figure = tmp_path / f"{newest.stem}-trend.png"
    assert figure.stat().st_size > 10_000
    page = (tmp_path / f"{newest.stem}-report.html").read_text()
    assert '<h2 id="trend">Trend</h2>' in page
    assert page.count("<td>4</td>") >= 9  # the night of each change, one row per change


def test_an_old_change_is_the_normal_level_not_a_verdict(nights, tmp_path):
    """With --recent 2 the three slowed nights are a level that has held longer than a change is
    news: listed, the newest night judged alone against that level, not SLOWER, and the exit
    status says nothing got slower. The level is the first slowed night three times: the real
    slowed nights are the straggler's own time nine times over, so the host's moves are
    multiplied too, and one CI run found the newest night 2.7x slower than the two before it at
    two sizes, a change trend rightly called SLOWER. Against a level it equals, the newest night
    has nothing to be news of but the old change."""
    settled = tmp_path / "settled"
    settled.mkdir()
    files = sorted(nights.iterdir())
    for night, source in enumerate(files[:SLOWED_FROM + 1] + [files[SLOWED_FROM]] * 2):
        shutil.copy(source, settled / f"2026-12-{night + 1:02d}.h5")
    result = trend(settled, "--recent", "2", "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["recent"] == 2 and not report["alerts"]
    assert report["night"]["verdict"] != "SLOWER" and report["night"]["ratio"] == pytest.approx(1)
    changed = [p for p in report["points"]
               if [c["run"] for c in p["changes"]] == [SLOWED_FROM]]
    assert len(changed) >= 0.9 * 20
    assert all(p["verdict"] != "SLOWER" and p["runs_at_level"] == 3 for p in changed)
    judged = [p for p in changed if p["judged_runs"]]
    assert judged and all(p["judged_runs"] == 1 and p["ratio"] == pytest.approx(1)
                          for p in judged)
    table = trend(settled, "--recent", "2")
    assert "its level has held 3 runs: the normal now" in table.stdout


def test_too_few_runs_are_unsure_and_bad_input_exits_2(nights, tmp_path):
    first, second = sorted(nights.iterdir())[:2]
    two = json.loads(trend(first, second, "--format", "json").stdout)
    assert {p["verdict"] for p in two["points"]} == {"UNSURE"}
    junit = tmp_path / "t.xml"
    for args, named in [([first], "at least two runs"),
                        ([nights, "--alpha", "2"], "--alpha"),
                        ([nights, "--recent", "1"], "--recent"),
                        ([nights, "--threshold", "x"], "--threshold"),
                        ([nights, tmp_path / "missing.h5"], "missing.h5"),
                        ([tmp_path, first], "without .h5")]:
        result = trend(*args, "--junit", junit)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert named in result.stderr, (args, result.stderr)
        assert result.stdout == "" and not junit.exists()
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    result = run_plain(["plot", str(first), "-o", str(tmp_path), "--figures", "trend",
                        "--trend", str(bad)])
    assert result.returncode == 2 and "--trend" in result.stderr
