"""`collbench predict`: real runs at 2, 3 and 4 ranks predicted at rank counts not measured, the
largest measured one predicted out of sample, the file it writes read back by h5py, and bad input
refused with nothing written."""
import json
import math

import h5py
import numpy as np
import pytest

from conftest import QUICK, run_mpi, run_plain, schema_version, small_disk, text

SWEEP = ["-b", "1K", "-e", "1M", "-f", "4", "--ops", "allreduce", "-d", "float",
         "--mode", "latency", *QUICK]


@pytest.fixture(scope="module")
def ranks_234(tmp_path_factory):
    """One run of 4 ranks measuring sub-communicators of 2 and 3 as well: T(p) in one file."""
    out = tmp_path_factory.mktemp("predict") / "ranks-234.h5"
    result = run_mpi(4, ["run", *SWEEP, "--ranks", "2,3,4", "--out", str(out)])
    assert result.returncode == 0, result.stderr
    return out


def predict(files, *args, out):
    return run_plain(["predict", *map(str, files), *args, "--out", str(out)])


def rows_of(table, **where):
    return [row for row in table
            if all(text(row[field]) == value for field, value in where.items())]


def measured_medians(run):
    """{(nranks, size): median us} of the packed allreduce curves of a run file."""
    with h5py.File(run, "r") as f:
        points = f["points"][: f["points"].attrs["finished_rows"]]
    return {(int(p["nranks"]), float(p["size_bytes"])): float(p["time_median_us"])
            for p in points if text(p["placement"]) == "packed"}


def test_predicts_a_thousand_ranks_and_states_the_extrapolation(ranks_234, tmp_path):
    out = tmp_path / "predict.h5"
    result = predict([ranks_234], "--ranks", "512,1024", "--size", "25M", out=out)
    assert result.returncode == 0, result.stderr
    assert "measured at 2, 3, 4 ranks" in result.stdout
    assert "out of sample, fitted up to 3 ranks and predicting 4" in result.stdout
    assert "7.0 doublings past 4" in result.stdout and "8.0 doublings past 4" in result.stdout
    assert "size extrapolated: measured up to 1 MiB" in result.stdout
    with h5py.File(out, "r") as f:
        assert text(f.attrs["schema"]) == "collbench-predictions"
        assert f.attrs["schema_version"] == schema_version()
        assert [text(i) for i in f.attrs["inputs"]] == [str(ranks_234)]
        asked = f["predictions"][f["predictions"]["asked"] == 1]
    asked = rows_of(asked, placement="packed")
    assert sorted(row["ranks"] for row in asked) == [512, 1024]
    for row in asked:
        assert row["size_bytes"] == 25 * 2**20
        assert row["max_ranks_measured"] == 4
        assert row["doublings_outside"] == pytest.approx(math.log2(row["ranks"] / 4))
        assert row["time_us"] == pytest.approx(row["latency_us"] + row["bandwidth_us"])
        assert row["time_ci_low_us"] < row["time_us"] < row["time_ci_high_us"]
        # Widened by the out-of-sample error of each doubling past the measured rank counts.
        assert row["widening"] == pytest.approx(row["error_per_doubling"] *
                                                row["doublings_outside"])
        assert row["error_per_doubling"] > 0
        assert math.isnan(row["efficiency"])
    # More rank counts past the measured ones: a wider interval, relative to the time.
    spread = {row["ranks"]: row["time_ci_high_us"] / row["time_ci_low_us"] for row in asked}
    assert spread[1024] > spread[512]


def test_the_largest_rank_count_is_predicted_out_of_sample(ranks_234, tmp_path):
    out = tmp_path / "predict.h5"
    assert predict([ranks_234], out=out).returncode == 0
    medians = measured_medians(ranks_234)
    with h5py.File(out, "r") as f:
        checks = rows_of(f["prediction_checks"][()], placement="packed")
        measured = rows_of(f["predicted_from"][()], placement="packed")
    assert sorted(row["size_bytes"] for row in checks) == sorted(
        size for ranks, size in medians if ranks == 4)
    for row in checks:
        assert row["nranks"] == 4 and row["fitted_up_to"] == 3
        assert row["measured_us"] == pytest.approx(medians[(4, row["size_bytes"])])
        assert row["relative_error"] == pytest.approx(row["predicted_us"] / row["measured_us"] - 1)
        assert row["inside"] == (row["predicted_ci_low_us"] <= row["measured_us"] <=
                                 row["predicted_ci_high_us"])
    assert {(int(r["nranks"]), r["size_bytes"]): r["time_median_us"] for r in measured} == \
        pytest.approx(medians)


def measured_p99_over_median(run):
    """{(nranks, size): time_p99_us / time_median_us} of the packed curves of a run file."""
    with h5py.File(run, "r") as f:
        points = f["points"][: f["points"].attrs["finished_rows"]]
    return {(int(p["nranks"]), float(p["size_bytes"])): p["time_p99_us"] / p["time_median_us"]
            for p in points if text(p["placement"]) == "packed"}


def test_the_tail_of_the_latency_curves(ranks_234, tmp_path):
    out = tmp_path / "predict.h5"
    result = predict([ranks_234], "--ranks", "8,64", "--size", "4K", "--format", "json",
                     out=out)
    assert result.returncode == 0, result.stderr
    ratios = measured_p99_over_median(ranks_234)
    curve = next(c for c in json.loads(result.stdout)["curves"] if c["placement"] == "packed")
    tail = curve["sizes"][0]["tail"]
    assert tail["from_ranks"] == 4 and tail["from_bytes"] == 4096
    assert [m["ranks"] for m in tail["measured"]] == [2, 3, 4]
    for m in tail["measured"]:
        assert m["p99_over_median"] == pytest.approx(ratios[(m["ranks"], m["size_bytes"])])
    with h5py.File(out, "r") as f:
        asked = rows_of(f["predictions"][f["predictions"]["asked"] == 1], placement="packed")
        band = rows_of(f["predictions"][f["predictions"]["asked"] == 0], placement="packed")
        checks = rows_of(f["prediction_checks"][()], placement="packed")
    columns = ["tail_us", "tail_ci_low_us", "tail_ci_high_us", "p99_over_median",
               "p99_over_median_ci_low", "p99_over_median_ci_high"]
    for row in asked:
        assert all(math.isfinite(row[column]) for column in columns)
        assert row["tail_ci_low_us"] <= row["tail_ci_high_us"]
        # Not added into the time: the families' times hold the measured tail.
        assert row["time_us"] == pytest.approx(row["latency_us"] + row["bandwidth_us"])
    assert all(math.isnan(row["tail_us"]) for row in band)
    assert checks
    for row in checks:
        assert math.isfinite(row["predicted_p99_over_median"])
        assert row["predicted_slowest_us"] > 0
        assert row["measured_p99_over_median"] == pytest.approx(
            ratios[(4, row["size_bytes"])])
    table = predict([ranks_234], "--ranks", "8,64", "--size", "4K", out=tmp_path / "table.h5")
    assert "# tail: p99/median measured" in table.stdout
    assert "tail out of sample, from 3 ranks predicting 4: median error" in table.stdout


def test_bandwidth_curves_have_no_tail(tmp_path):
    """A bandwidth loop's samples are no single operation's per-rank times: no tail."""
    run = tmp_path / "bandwidth.h5"
    result = run_mpi(3, ["run", "-b", "1K", "-e", "16K", "-f", "4", "--ops", "allreduce",
                         "--mode", "bandwidth", "--ranks", "2,3", *QUICK, "--out", str(run)])
    assert result.returncode == 0, result.stderr
    out = tmp_path / "predict.h5"
    result = predict([run], "--ranks", "16", out=out)
    assert result.returncode == 0, result.stderr
    assert "# tail: no per-rank samples on the common clock" in result.stdout
    with h5py.File(out, "r") as f:
        assert all(math.isnan(row["tail_us"]) and math.isnan(row["p99_over_median"])
                   for row in f["predictions"])


def test_a_step_efficiency_from_compute_and_overlap(ranks_234, tmp_path):
    out = tmp_path / "predict.h5"
    result = predict([ranks_234], "--ranks", "8,64", "--compute-ms", "20", "--overlap", "0.25",
                     "--format", "json", out=out)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    curve = next(c for c in report["curves"] if c["placement"] == "packed")
    assert curve["measured_ranks"] == [2, 3, 4]
    for prediction in curve["sizes"][0]["predictions"]:
        exposed = 0.75 * prediction["time_us"]
        assert prediction["exposed_us"] == pytest.approx(exposed)
        assert prediction["efficiency"] == pytest.approx(20e3 / (20e3 + exposed))
        low, high = prediction["efficiency_ci"]
        assert low <= prediction["efficiency"] <= high
    with h5py.File(out, "r") as f:
        assert f.attrs["compute_ms"] == 20 and f.attrs["overlap"] == 0.25
        stored = rows_of(f["predictions"][f["predictions"]["asked"] == 1], placement="packed")
    assert [row["efficiency"] for row in stored] == pytest.approx(
        [p["efficiency"] for p in curve["sizes"][0]["predictions"]])
    table = predict([ranks_234], "--ranks", "8,64", "--compute-ms", "20", "--overlap", "0.25",
                    out=tmp_path / "table.h5")
    assert "from 8 to 64 ranks the" in table.stdout and "term grows most" in table.stdout


def test_files_of_single_rank_counts_pool_but_two_are_not_validated(tmp_path):
    files = []
    for nranks in (2, 3):
        files.append(tmp_path / f"world-{nranks}.h5")
        result = run_mpi(nranks, ["run", "-b", "1K", "-e", "64K", "-f", "8", "--ops", "allgather",
                                  "--mode", "latency", *QUICK, "--out", str(files[-1])])
        assert result.returncode == 0, result.stderr
    out = tmp_path / "predict.h5"
    result = predict(files, "--ranks", "16", out=out)
    assert result.returncode == 0, result.stderr
    assert "measured at 2, 3 ranks; not validated out of sample" in result.stdout
    with h5py.File(out, "r") as f:
        assert len(f["prediction_checks"]) == 0
        asked = f["predictions"][f["predictions"]["asked"] == 1]
    assert len(asked) == 1 and math.isnan(asked[0]["widening"])
    assert math.isnan(asked[0]["error_per_doubling"])


@pytest.mark.parametrize("args, message", [
    (["--ranks", "1"], "--ranks: '1' is not a rank count of 2 or more"),
    (["--ranks", "64x"], "--ranks: '64x' is not a rank count"),
    (["--size", "12Q"], "--size"),
    (["--overlap", "0.5"], "--overlap needs --compute-ms"),
    (["--compute-ms", "10", "--overlap", "1.5"],
     "--overlap: '1.5' is neither a fraction from 0 to 1 nor 'measured'"),
    (["--compute-ms", "0"], "--compute-ms"),
    (["--format", "csv"], "--format: unknown format 'csv'"),
])
def test_bad_options_exit_2_and_write_nothing(ranks_234, tmp_path, args, message):
    out = tmp_path / "predict.h5"
    result = predict([ranks_234], *args, out=out)
    assert result.returncode == 2, result.stdout
    assert message in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_bad_files_exit_2_naming_them(ranks_234, tmp_path):
    single = tmp_path / "single.h5"
    assert run_mpi(2, ["run", "-b", "1K", "-e", "4K", "--ops", "allreduce", "--mode", "latency",
                       *QUICK, "--out", str(single)]).returncode == 0
    out = tmp_path / "predict.h5"
    result = predict([single], out=out)
    assert result.returncode == 2
    assert f"no curve of {single} was measured at two rank counts or more" in result.stderr
    assert predict([tmp_path / "missing.h5"], out=out).returncode == 2
    assert not out.exists()
    assert predict([ranks_234], out=out).returncode == 0
    again = predict([ranks_234], out=out)
    assert again.returncode == 2 and "exists (--force replaces it)" in again.stderr
    # A predictions file is not a run's: predict, report and fit refuse it by name.
    for command in (["predict", str(out), "--out", str(tmp_path / "p2.h5")],
                    ["report", str(out)], ["fit", str(out)]):
        refused = run_plain(command)
        assert refused.returncode == 2
        assert "a file of `collbench predict`, not a run's" in refused.stderr
    assert np.all([p.name in ("single.h5", "predict.h5") for p in tmp_path.iterdir()])


def test_an_out_directory_that_is_missing_is_bad_input(ranks_234, tmp_path):
    result = predict([ranks_234], out=tmp_path / "missing" / "predict.h5")
    assert result.returncode == 2
    assert f"--out: {tmp_path / 'missing'} is not a directory" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_exits_3_and_leaves_nothing(ranks_234, tmp_path):
    """A 16 KiB tmpfs holds no predictions file (its objects start on 4 KiB pages)."""
    with small_disk(tmp_path / "disk", "16k") as disk:
        result = predict([ranks_234], out=disk / "predict.h5")
        assert result.returncode == 3, result.stderr
        assert f"writing {disk / 'predict.h5'} failed: No space left on device; nothing written" in result.stderr
        assert list(disk.iterdir()) == []


@pytest.fixture(scope="module")
def two_widths(tmp_path_factory):
    """double and float allreduce at 2 and 3 ranks: the what-if of halving a gradient's width."""
    out = tmp_path_factory.mktemp("widths") / "double-float.h5"
    result = run_mpi(3, ["run", "-b", "4K", "-e", "4M", "-f", "4", "--ops", "allreduce",
                         "-d", "double,float", "--mode", "latency", *QUICK, "--ranks", "2,3",
                         "--out", str(out)])
    assert result.returncode == 0, result.stderr
    return out


def test_a_narrower_datatype_predicts_the_same_gradient_in_fewer_bytes(two_widths, tmp_path):
    out = tmp_path / "p.h5"
    result = predict([two_widths], "--ranks", "64,1024", "--size", "2M", "--format", "json",
                     out=out)
    assert result.returncode == 0, result.stderr
    curves = {c["datatype"]: c for c in json.loads(result.stdout)["curves"]}
    wide = curves["double"]["sizes"]
    assert [s["size_bytes"] for s in wide] == [2 * 2**20]
    narrow = {s["size_bytes"]: s for s in curves["float"]["sizes"]}
    assert narrow[2 * 2**20]["same_elements_as"] is None
    mirrored = narrow[2**20]
    assert mirrored["same_elements_as"] == "double"
    [what_if] = wide[0]["narrower"]
    assert what_if["datatype"] == "float" and what_if["size_bytes"] == 2**20
    expected = [n["time_us"] / w["time_us"]
                for n, w in zip(mirrored["predictions"], wide[0]["predictions"])]
    assert what_if["time_ratio"] == pytest.approx(expected)
    assert curves["float"]["sizes"][0]["narrower"] == []  # nothing narrower than float here
    with h5py.File(out, "r") as f:
        rows = f["predictions"][f["predictions"]["asked"] == 1]
    floats = rows_of(rows, datatype="float")
    assert sorted({float(r["size_bytes"]) for r in floats}) == [2**20, 2 * 2**20]


def test_the_table_names_the_smaller_gradient(two_widths, tmp_path):
    result = predict([two_widths], "--ranks", "1024", "--size", "2M", out=tmp_path / "p.h5")
    assert result.returncode == 0, result.stderr
    assert "# smaller gradients, the same 262144 elements: as float (1 MiB) " in result.stdout
    assert "not asked for: a double size's elements, as float" in result.stdout


def test_gather_fits_its_rank_family_and_sendrecv_says_it_has_none(tmp_path):
    """A gather's time grows with p by its linear family (the reference: nccl-tests' bus factor,
    and p*); a sendrecv's, one step at any p, has no family: fitted in message size only, and
    `predict` names it as having nothing to predict rather than extrapolating a family."""
    run = tmp_path / "rooted-and-ring.h5"
    result = run_mpi(4, ["run", "--ops", "gather,sendrecv", "-b", "1K", "-e", "1M", "-f", "4",
                         "-d", "float", "--mode", "latency", "--ranks", "2,3,4", *QUICK,
                         "--out", str(run)])
    assert result.returncode == 0, result.stderr
    fit = run_plain(["fit", str(run), "--format", "json"])
    assert fit.returncode == 0, fit.stderr
    report = json.loads(fit.stdout)
    assert {c["collective"] for c in report["curves"]} == {"gather", "sendrecv"}
    assert {f["collective"] for f in report["families"]} == {"gather"}
    assert {fit["family"] for f in report["families"] for fit in f["fits"]} == {"linear"}
    assert {c["collective"] for c in report["crossovers"]} == {"gather"}
    result = predict([run], "--ranks", "8", "--size", "64K", "--format", "json",
                     out=tmp_path / "predicted.h5")
    assert result.returncode == 0, result.stderr
    predicted = json.loads(result.stdout)
    assert {c["collective"] for c in predicted["curves"]} == {"gather"}
    assert {c["collective"] for c in predicted["no_rank_family"]} == {"sendrecv"}
    table = predict([run], "--ranks", "8", "--size", "64K", out=tmp_path / "table.h5")
    assert "sendrecv" in table.stdout and "no family of p; nothing to predict" in table.stdout
