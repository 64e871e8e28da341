"""plots/collbench_plot.py on files from real runs: every figure, the report, the plotted data
against h5py, and bad input."""
import gzip
import os
import pathlib
import re
import shutil
import subprocess
import xml.etree.ElementTree as ElementTree

import h5py
import numpy as np
import pytest

from conftest import BINARY, FIXED_COUNT, QUICK, environment, schema_version
from plots import resultfile
from plots.figures import FIGURES
from plots.figures.common import Options

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "plots" / "collbench_plot.py"
PYTHON = "/usr/bin/python3"


def plot(*args):
    return subprocess.run([PYTHON, str(SCRIPT), *map(str, args)], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "COLLBENCH": str(BINARY)})


def test_the_plotter_knows_the_schema_the_binary_writes():
    assert resultfile.SCHEMA_VERSION == schema_version()


def test_every_figure_png_and_report(files, tmp_path):
    done = plot(files["ranks"], "-o", tmp_path, "--report", "--baseline", files["base"],
                "--spec", ROOT / "ci" / "acceptance" / "mpi-local.toml")
    assert done.returncode == 0, done.stderr
    # 'trend' needs a history with a change: tests/integration/test_trend.py draws it from one;
    # 'links' a file of `collbench links`: test_links.py draws it; 'predict' a file of
    # `collbench predict`: test_predict.py.
    drawn = [name for name in FIGURES if name not in ("trend", "links", "predict")]
    for name in drawn:
        image = tmp_path / f"ranks-{name}.png"
        assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert image.stat().st_size > 5000
        assert str(image) in done.stdout
    page = (tmp_path / "ranks-report.html").read_text()
    assert "<html" in page and page.count("data:image/png;base64,") == len(drawn)
    for section in ('id="provenance"', 'id="points"', 'id="headlines"', 'id="fits"',
                    'id="crossovers"', "busbw (GB/s)", "#wrong", "latency p99", "1/beta",
                    "n½: latency dominates below", "misfit", "Open MPI", "p* [95% CI]"):
        assert section in page
    assert "http://" not in page and "https://" not in page and 'src="file' not in page
    # The answer first: the summary with the spec's and the baseline's verdicts, then the
    # figures, then the tables; the provenance last, folded away.
    order = [page.index(marker) for marker in ('id="summary"', "Acceptance (mpi-local): ",
                                               "Against ", 'id="figures"', 'id="points"',
                                               '<details id="provenance"')]
    assert order == sorted(order), order
    assert "peak busbw (GB/s)" in page
    # Intervals read low to high; a bandwidth's open end is "unbounded", never a negative end.
    intervals = re.findall(r"\[(-?[\d.e+]+), (-?[\d.e+]+)\]", page)
    assert intervals and all(float(low) <= float(high) for low, high in intervals), intervals
    from plots import report
    assert report._bandwidth(141.7, -1 / 255.2, 1 / 43.6) == "141.7 [43.6, unbounded]"


def test_svg_parses(files, tmp_path):
    done = plot(files["ranks"], "-o", tmp_path, "--format", "svg", "--figures", "busbw,heatmap",
                "--report")
    assert done.returncode == 0, done.stderr
    for name in ("busbw", "heatmap"):
        ElementTree.parse(tmp_path / f"ranks-{name}.svg")
    assert "<svg" in (tmp_path / "ranks-report.html").read_text()


def test_default_output_folder_is_the_files(files):
    done = plot(files["ranks"], "--figures", "busbw")
    assert done.returncode == 0, done.stderr
    assert (files["ranks"].parent / "ranks-busbw.png").exists()


def test_a_missing_output_folder_is_made_and_a_file_is_refused(files, tmp_path):
    out = tmp_path / "new" / "report"
    done = plot(files["ranks"], "-o", out, "--figures", "busbw", "--report")
    assert done.returncode == 0, done.stderr
    assert (out / "ranks-busbw.png").exists() and (out / "ranks-report.html").exists()
    refused = tmp_path / "refused" / "report"  # refused before anything is drawn or made
    done = plot(files["ranks"], "-o", refused, "--figures", "nosuch")
    assert done.returncode == 2 and not (tmp_path / "refused").exists()
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    done = plot(files["ranks"], "-o", a_file, "--figures", "busbw")
    assert done.returncode == 2 and f"-o {a_file}: not a folder" in done.stderr


def test_a_failed_write_removes_the_folders_it_made(tmp_path):
    """The second file cannot be written (its folder is a file): the first is not left behind,
    nor the folder made for it."""
    from plots.collbench_plot import write_all
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    with pytest.raises(NotADirectoryError):
        write_all([(tmp_path / "new" / "deeper" / "first.png", b"first"),
                   (a_file / "second.png", b"second")])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def expected_asymptotes(result, mode):
    """The trusted headlines' bandwidth times nccl-tests' bus factor (2(p-1)/p for allreduce,
    (p-1)/p for the others), by the busbw figure's labels."""
    from plots.figures.common import label
    from plots.resultfile import curves, key_dict
    expected = {}
    for key, rows in curves(result.headlines, mode).items():
        if result.headlines["trusted"][rows[0]]:
            k = key_dict(key)
            p = k["nranks"]
            factor = (2 if k["collective"] == "allreduce" else 1) * (p - 1) / p
            expected[label(key)] = result.headlines["bandwidth_GBps"][rows[0]] * factor
    return expected


def with_headlines(files, tmp_path, change):
    """A copy of the "ranks" file whose /headlines rows `change` rewrote, loaded."""
    copy = tmp_path / "headlines.h5"
    copy.write_bytes(files["ranks"].read_bytes())
    with h5py.File(copy, "r+") as f:
        rows = f["headlines"][()]
        change(rows)
        f["headlines"][...] = rows
    return resultfile.load(copy)


def test_busbw_draws_only_trusted_headlines(files, tmp_path):
    """This machine's curves are mostly untrusted; with every headline marked trusted, and its
    1/β interval open upwards, every curve gets its asymptote, at the headline's bandwidth."""
    def trusted(rows):
        rows["trusted"] = 1
        rows["beta_ci_low_ns_per_byte"] = 0
    result = with_headlines(files, tmp_path, trusted)
    busbw = FIGURES["busbw"](result, Options()).data
    assert len(busbw["asymptotes"]) == len(busbw["lines"])
    assert busbw["asymptotes"] == expected_asymptotes(result, busbw["mode"])
    assert busbw["withheld"] == {}


def largest_sizes_bandwidth(result, mode):
    """Per busbw label: the highest bus bandwidth among a curve's 3 largest sizes, and its bus
    factor (busbw / algbw)."""
    from plots.figures.common import label
    from plots.resultfile import curves
    points, out = result.points, {}
    for key, rows in curves(points, mode).items():
        largest = np.argsort(points["size_bytes"][rows])[-3:]
        factor = np.median(points["busbw_GBps"][rows] / points["algbw_GBps"][rows])
        out[label(key)] = (points["busbw_GBps"][rows][largest].max(), factor)
    return out


@pytest.mark.parametrize("times_plateau,drawn", [(0.25, False), (0.8, False), (1.2, True)])
def test_busbw_withholds_an_asymptote_below_the_measured_plateau(files, tmp_path, times_plateau,
                                                                 drawn):
    """The report's complaint: a fitted asymptote of 1.1 GB/s under a 4.8 GB/s plateau. A
    trusted headline whose whole 1/β interval (here ±10%) lies below what the largest sizes
    measured describes another regime: it is not drawn, and the figure says why."""
    from plots.figures.common import label
    from plots.resultfile import curves
    result = resultfile.load(files["ranks"])
    mode = FIGURES["busbw"](result, Options()).data["mode"]
    plateaus = largest_sizes_bandwidth(result, mode)

    def placed(rows):
        for row in range(len(rows)):
            key = tuple(value.decode() if isinstance(value, bytes) else value.item()
                        for value in (rows[k][row] for k in resultfile.CURVE_KEY))
            plateau, factor = plateaus.get(label(key), (None, None))
            if plateau is None:
                continue
            bandwidth = times_plateau * plateau / factor  # algbw-like, as the file keeps 1/β
            rows["trusted"][row] = 1
            rows["bandwidth_GBps"][row] = bandwidth
            rows["beta_ns_per_byte"][row] = 1 / bandwidth
            rows["beta_ci_low_ns_per_byte"][row] = 1 / (1.1 * bandwidth)
            rows["beta_ci_high_ns_per_byte"][row] = 1 / (0.9 * bandwidth)
    busbw = FIGURES["busbw"](with_headlines(files, tmp_path, placed), Options()).data
    headlined = {label(key) for key in curves(result.headlines, mode)}
    assert headlined and headlined <= set(busbw["lines"])
    if drawn:
        assert set(busbw["asymptotes"]) == headlined and busbw["withheld"] == {}
    else:
        assert busbw["asymptotes"] == {}
        assert set(busbw["withheld"]) == headlined
        assert set(busbw["withheld"].values()) == {"fit below the largest sizes' measured bandwidth"}


def test_plotted_data_equals_the_file(files):
    result = resultfile.load(files["ranks"])
    with h5py.File(files["ranks"], "r") as f:
        points = f["points"][()]
        medians = f["rank_median_us"][()]
        busbw = FIGURES["busbw"](result, Options()).data
        for line in busbw["lines"].values():
            np.testing.assert_array_equal(line["busbw_GBps"],
                                          points["busbw_GBps"][line["point_id"]])
        assert busbw["asymptotes"] == expected_asymptotes(result, busbw["mode"])
        heat = FIGURES["heatmap"](result, Options()).data
        for panel in heat.values():
            rows = medians[panel["point_id"]][:, panel["world_ranks"]]
            assert len(panel["rows"]) == len(panel["world_ranks"])  # a rank each up to 32
            np.testing.assert_allclose(panel["ratio"].T, rows / rows.min(axis=1, keepdims=True))
        latency = FIGURES["latency"](result, Options()).data
        headlines = f["headlines"][()]
        for panel in latency.values():
            np.testing.assert_array_equal(panel["time_median_us"],
                                          points["time_median_us"][panel["point_id"]])
            # The shading's n½ is the stored headline's of the panel's curve.
            first = points[panel["point_id"][0]]
            row = headlines[(headlines["collective"] == first["collective"]) &
                            (headlines["placement"] == first["placement"]) &
                            (headlines["nranks"] == first["nranks"]) &
                            (headlines["mode"] == b"latency")]
            assert len(row) == 1 and panel["half_size_bytes"] == row["half_size_bytes"][0]
            # Only trusted segments are drawn, and only under a trusted headline.
            fits = f["fits"][()]
            drawn = {(s["min_size_bytes"], s["max_size_bytes"]) for s in panel["segments"]}
            same_curve = fits[(fits["collective"] == first["collective"]) &
                              (fits["placement"] == first["placement"]) &
                              (fits["nranks"] == first["nranks"]) & (fits["mode"] == b"latency") &
                              (fits["segments"] > 0)]
            assert drawn == {(r["min_size_bytes"], r["max_size_bytes"])
                             for r in same_curve if r["trusted"] and row["trusted"][0]}
        dist = FIGURES["ranks-distribution"](result, Options()).data
        for panel in dist.values():
            np.testing.assert_array_equal(panel["samples_us"],
                                          f[f"samples/{panel['point_id']:06d}"][()])
        ranks = FIGURES["ranks"](result, Options()).data
        for panel in ranks.values():
            for curve in panel.values():
                assert len(curve["nranks"]) >= 2
                np.testing.assert_array_equal(curve["time_median_us"],
                                              points["time_median_us"][curve["point_id"]])


def test_frames_are_decoded_and_match_what_a_reader_types(files):
    from plots import frames
    points = frames.table(files["ranks"])
    with h5py.File(files["ranks"], "r") as f:
        stored = f["points"][()]
        text = h5py.check_string_dtype(f["points"].dtype["collective"])
    assert (text.encoding, text.length) == ("utf-8", 16)  # fixed-length UTF-8 in the file
    assert isinstance(stored["collective"][0], bytes)  # which h5py 3 returns as bytes
    assert list(points["collective"]) == [c.decode() for c in stored["collective"]]
    allreduce = (points["collective"] == "allreduce").sum()
    assert allreduce == (stored["collective"] == b"allreduce").sum() > 0
    assert len(frames.table(files["ranks"], "families")["family"]) > 0
    with pytest.raises(ValueError):
        frames.table(files["ranks"], "samples")


def test_a_killed_runs_unfinished_row_is_left_out(files, tmp_path):
    """The state a kill inside a point's second flush can leave: its row numbered, not yet
    counted in finished_rows. Before schema 10 nothing counted the rows: the last one is left
    out, as it may be unfinished and h5py cannot read its point_id without its text."""
    complete = resultfile.load(files["ranks"])
    rows = complete.point_count()
    killed = tmp_path / "killed.h5"
    shutil.copy(files["ranks"], killed)
    with h5py.File(killed, "r+") as f:
        assert f["points"].attrs["finished_rows"] == rows == len(f["points"])
        f.attrs["complete"] = 0
        f["points"].attrs["finished_rows"] = rows - 2
    read = resultfile.load(killed)
    assert list(read.points["point_id"]) == list(range(rows - 2))
    assert len(read.rank_median_us) == rows - 2
    with h5py.File(killed, "r+") as f:
        del f["points"].attrs["finished_rows"]
        f.attrs["schema_version"] = 9
    assert resultfile.load(killed).point_count() == rows - 1


def test_frames_decode_the_fixed_length_text_of_a_schema_7_file(tmp_path):
    from plots import frames
    path = tmp_path / "schema7.h5"
    fixture = pathlib.Path(__file__).parents[1] / "integration" / "fixtures" / "schema7-mpi.h5.gz"
    with gzip.open(fixture) as packed, open(path, "wb") as unpacked:
        shutil.copyfileobj(packed, unpacked)
    with h5py.File(path, "r") as f:
        assert h5py.check_string_dtype(f["points"].dtype["collective"]).length == 16
        stored_low = f["points"]["time_ci_low_us"]  # the name before schema 16
    points = frames.table(path)
    np.testing.assert_array_equal(points["time_median_ci_low_us"], stored_low)
    assert "time_ci_low_us" not in points
    assert len(points["point_id"]) == 30
    assert set(points["collective"]) == {"allreduce", "allgather"}
    assert set(frames.table(path, "topology")["host"]) == {"vm"}
    assert set(frames.table(path, "families")["family"]) == {"ring", "tree"}


def test_busbw_is_linear_by_default_and_heatmap_labels_stay_few(files):
    """A plateau reads as flat on a linear axis; past a dozen sizes or ranks the heatmap labels
    every n-th, so they never overprint."""
    from plots.figures.common import every_nth
    result = resultfile.load(files["ranks"])
    assert FIGURES["busbw"](result, Options()).figure.axes[0].get_yscale() == "linear"
    logged = FIGURES["busbw"](result, Options(busbw_scale="log")).figure.axes[0]
    assert logged.get_yscale() == "log"
    assert every_nth(8) == list(range(8))
    assert every_nth(24) == list(range(0, 24, 2))
    assert len(every_nth(1024)) <= 12 and every_nth(1024)[0] == 0


def test_spec_units_mean_the_same_to_check_and_plot(files, tmp_path, monkeypatch):
    """One unit table: a floor in Gbit/s, KiB sizes and a rate in MiB/s pass `collbench check`
    and are drawn by `plot --spec` at the same GB/s (40 Gbit/s = 5 GB/s)."""
    spec = tmp_path / "bits.toml"
    spec.write_text('title = "bits"\n'
                    '[[rule]]\nname = "bits"\ncollective = "allreduce"\nsizes = "64K-1M"\n'
                    'busbw_min = "40 Gbit/s"\noptional = true\n'
                    '[[rule]]\nname = "mebibytes"\nbusbw_min = "1000 MiB/s"\noptional = true\n'
                    '[[rule]]\nname = "latency"\nlatency_max = "1 s"\noptional = true\n')
    checked = subprocess.run([str(BINARY), "check", str(files["ranks"]), "--spec", str(spec)],
                             capture_output=True, text=True, timeout=60)
    assert checked.returncode in (0, 1), checked.stderr
    done = plot(files["ranks"], "-o", tmp_path, "--figures", "busbw", "--spec", spec)
    assert done.returncode == 0, done.stderr
    from plots import spec as specfile
    monkeypatch.setenv("COLLBENCH", str(BINARY))
    floors = {f["name"]: f for f in specfile.busbw_floors(spec)}
    assert set(floors) == {"bits", "mebibytes"}  # the latency rule draws no floor
    assert floors["bits"]["busbw_GBps"] == pytest.approx(5.0)
    assert (floors["bits"]["min_size"], floors["bits"]["max_size"]) == (64 * 1024, 1024 * 1024)
    assert floors["bits"]["collective"] == "allreduce"
    assert floors["mebibytes"]["busbw_GBps"] == pytest.approx(1000 * 2**20 / 1e9)
    assert floors["mebibytes"]["max_size"] == float("inf")


@pytest.mark.parametrize("case", ["missing", "not-hdf5", "foreign", "no-fits", "unknown",
                                  "no-baseline", "one-rank-count"])
def test_bad_input_exits_2_and_writes_nothing(files, tmp_path, case):
    out = tmp_path / "out"
    out.mkdir()
    target, extra = files["ranks"], []
    if case == "missing":
        target = tmp_path / "absent.h5"
    elif case == "not-hdf5":
        target = tmp_path / "junk.h5"
        target.write_text("not hdf5")
    elif case == "foreign":
        target = tmp_path / "foreign.h5"
        with h5py.File(target, "w") as f:
            f.attrs["schema"] = "something-else"
    elif case == "no-fits":
        target, extra = files["nofit"], ["--figures", "latency"]
    elif case == "unknown":
        extra = ["--figures", "busbw,nope"]
    elif case == "no-baseline":
        extra = ["--figures", "compare"]
    elif case == "one-rank-count":
        target, extra = files["nofit"], ["--figures", "ranks"]
    done = plot(target, "-o", out, *extra, "--report")
    assert done.returncode == 2
    assert done.stderr.startswith("collbench plot: ") and done.stderr.count("\n") == 1
    assert list(out.iterdir()) == []
    if case == "no-fits":
        assert "collbench fit" in done.stderr
    if case == "unknown":
        assert "busbw" in done.stderr and "heatmap" in done.stderr


def test_no_fits_by_default_skips_fit_figures_with_a_note(files, tmp_path):
    done = plot(files["nofit"], "-o", tmp_path)
    assert done.returncode == 0, done.stderr
    assert "# note:" in done.stdout
    assert (tmp_path / "nofit-busbw.png").exists() and (tmp_path / "nofit-heatmap.png").exists()


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("ip") is None,
                    reason="the virtual cluster needs root and iproute2's ip")
def test_past_a_few_dozen_ranks_the_per_rank_figures_show_a_host_each(tmp_path):
    """A real run of 36 ranks on 4 virtual hosts (ci/vcluster, 9 oversubscribed ranks a host):
    every rank is in the file, and the heatmap and the distribution show a row and a box per
    host, each the slowest of its ranks; up to 32 ranks they show a rank each (the tests above)."""
    from plots.figures.common import RANKS_SHOWN_ONE_BY_ONE
    out = tmp_path / "hosts.h5"
    done = subprocess.run(
        [str(ROOT / "ci" / "vcluster"), "run", "--hosts", "4", "--slots", "9", "--",
         "mpirun", "-np", "36", str(BINARY), "run", "--backend", "mpi", "--ops",
         "allreduce,allgather", "-b", "8", "-e", "4K", "-f", "8", "--quiet", *FIXED_COUNT,
         "--out", str(out)],
        capture_output=True, text=True, timeout=600, env=environment(), cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 36 > RANKS_SHOWN_ONE_BY_ONE
    result = resultfile.load(out)
    with h5py.File(out, "r") as f:
        hosts = {int(r["rank"]): r["host"].decode() for r in f["topology"][()]}
        assert len(set(hosts.values())) == 4 and len(hosts) == 36
        points = f["points"][()]
        assert (points["wrong"] == 0).all() and (points["nranks"] == 36).all()
        medians = f["rank_median_us"][()]
        assert medians.shape == (len(points), 36) and np.isfinite(medians).all()
        heat = FIGURES["heatmap"](result, Options()).data
        dist = FIGURES["ranks-distribution"](result, Options()).data
        for collective, panel in heat.items():
            assert len(panel["rows"]) == 4 and all("(9 ranks)" in row for row in panel["rows"])
            by_rank = medians[panel["point_id"]]
            by_rank = by_rank / by_rank.min(axis=1, keepdims=True)
            for row, ranks in enumerate(panel["row_ranks"]):
                assert {hosts[int(r)] for r in ranks} == {panel["rows"][row].split(" ")[0]}
                np.testing.assert_allclose(panel["ratio"][row], by_rank[:, ranks].max(axis=1))
            box = dist[collective]
            raw = f[f"samples/{box['point_id']:06d}"][()].astype(np.float64)
            columns = list(f[f"samples/{box['point_id']:06d}"].attrs["world_ranks"])
            assert raw.shape[1] == 36
            for b, ranks in enumerate(box["box_ranks"]):
                np.testing.assert_array_equal(
                    box["samples_us"][:, b], raw[:, [columns.index(r) for r in ranks]].max(axis=1))
    assert sorted(r for panel in heat.values() for ranks in panel["row_ranks"] for r in ranks) == \
        sorted(list(range(36)) * len(heat))


def test_the_report_marks_implausible_points_and_keeps_them_out_of_the_peak(files, tmp_path):
    """A point planted implausible (the mark `run` gives a collective that did not do its work)
    shows its mark in its row and a warning above the tables, and its busbw is no peak; a check
    that failed after timing shows in #wrong. The unplanted file says neither."""
    path = tmp_path / "planted.h5"
    shutil.copy(files["nofit"], path)
    with h5py.File(path, "r+") as f:
        points = f["points"][()]
        bandwidth = np.flatnonzero((points["collective"] == b"allreduce")
                                   & (points["mode"] == b"bandwidth"))
        fastest = bandwidth[np.argmax(points["busbw_GBps"][bandwidth])]
        peak = points["busbw_GBps"][fastest]
        points["busbw_GBps"][fastest] = 7395.59
        points["implausible"][fastest] = b"busbw_above_copy"
        points["wrong_after_timing"][bandwidth[0]] = 7777
        f["points"][...] = points
    for file, planted in ((path, True), (files["nofit"], False)):
        done = plot(file, "-o", tmp_path, "--report")
        assert done.returncode == 0, done.stderr
        page = (tmp_path / f"{file.stem}-report.html").read_text()
        assert ("1 points are implausible" in page) == planted
        assert ("<td>busbw above copy</td>" in page) == planted
        assert ("<td>7777</td>" in page) == planted
        # The text above the tables, not the figures' base64 (where "7396" occurs by chance).
        text_above = re.sub(r"base64,[A-Za-z0-9+/=]+", "", page.split('id="points"')[0])
        assert "7396" not in text_above, "an implausible busbw as the peak"
    assert f"<td>{peak:.3g}</td>" in (tmp_path / "planted-report.html").read_text()
