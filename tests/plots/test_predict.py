"""plots/collbench_plot.py on a real `collbench predict` file, made from a real run at 2, 3 and 4
ranks. The predict figure's artists are checked against the file read with h5py: the band, the
rank counts asked for, the measured medians, where measurement ends, the ring's p* and the
out-of-sample check. Also which figures a predictions file and a run file take."""
import shutil
import struct
import subprocess

import h5py
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import PolyCollection
from matplotlib.container import ErrorbarContainer

from conftest import BINARY, QUICK, run_mpi
from plots import resultfile
from plots.figures import FIGURES
from plots.figures.common import FigureError, Options
from plots.sizes import format_size
from test_plots import plot

# 64 KiB is measured; 2 MiB is not, so its panel shows the nearest size measured, 1 MiB.
PREDICTED = {65536: 65536, 2 * 1024 ** 2: 1024 ** 2}
ASKED = [8, 1000]


@pytest.fixture(scope="module")
def run_file(tmp_path_factory):
    """Allreduce on packed communicators of 2, 3 and 4 ranks: three rank counts, the fewest
    that `collbench predict` checks out of sample (4 predicted from 2 and 3)."""
    path = tmp_path_factory.mktemp("predict") / "run.h5"
    done = run_mpi(4, ["run", "--ops", "allreduce", "-b", "1K", "-e", "1M", "-f", "4",
                       "--ranks", "2,3,4", "--placement", "world", "--mode", "latency",
                       "--quiet", *QUICK, "--out", str(path)])
    assert done.returncode == 0, done.stderr
    return path


@pytest.fixture(scope="module")
def predictions_file(run_file):
    path = run_file.with_name("pred.h5")
    done = subprocess.run([str(BINARY), "predict", str(run_file), "--out", str(path),
                           "--size", ",".join(map(str, PREDICTED)),
                           "--ranks", ",".join(map(str, ASKED))],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return path


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def table(path, name):
    """/NAME as {column: array}, text decoded (h5py returns it as bytes)."""
    with h5py.File(path, "r") as f:
        rows = f[name][()]
    return {c: np.array([v.decode() for v in rows[c]]) if rows.dtype[c].kind in "OS" else rows[c]
            for c in rows.dtype.names}


def where(columns, **wanted):
    """Indexes of the rows whose columns equal `wanted`."""
    chosen = np.ones(len(next(iter(columns.values()))), dtype=bool)
    for column, value in wanted.items():
        chosen &= columns[column] == value
    return np.flatnonzero(chosen)


def title_of(p, row):
    return (f"{p['collective'][row]} {p['datatype'][row]} {p['redop'][row]} · "
            f"{p['placement'][row]} · {p['mode'][row]} · {format_size(p['size_bytes'][row])}")


def panels(path, size=None):
    """{panel title: axes} of the predict figure drawn from `path`."""
    figure = FIGURES["predict"](resultfile.load(path), Options(size=size)).figure
    return {axis.get_title(): axis for axis in figure.axes if axis.get_visible()}


def labelled(artists, start):
    [artist] = [a for a in artists if a.get_label().startswith(start)]
    return artist


def errorbar(axis, start):
    """(x, y, [(low, high)]) of the error-bar series whose label begins with `start`."""
    bars = labelled([c for c in axis.containers if isinstance(c, ErrorbarContainer)], start)
    data_line, _, (vertical,) = bars.lines
    spans = [(segment[0][1], segment[1][1]) for segment in vertical.get_segments()]
    return data_line.get_xdata(), data_line.get_ydata(), spans


def vertical_lines(axis):
    """{x: linestyle} of the lines across the whole height (axvline)."""
    return {line.get_xdata()[0]: line.get_linestyle() for line in axis.get_lines()
            if list(line.get_ydata()) == [0, 1]}


def texts(axis):
    return " | ".join(text.get_text() for text in axis.texts)


def png_size(path):
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", header[16:24])


def edited_copy(path, tmp_path, edit):
    """A copy of the predictions file with edit(h5py file) applied."""
    copy = tmp_path / "edited.h5"
    shutil.copy(path, copy)
    with h5py.File(copy, "r+") as f:
        edit(f)
    return copy


def test_a_predictions_file_draws_the_predict_figure_alone(predictions_file, tmp_path):
    done = plot(predictions_file, "-o", tmp_path)
    assert done.returncode == 0, done.stderr
    image = tmp_path / "pred-predict.png"
    assert [p.name for p in tmp_path.iterdir()] == [image.name]
    assert done.stdout.splitlines() == [str(image)]
    width, height = png_size(image)
    # Two panels side by side (one curve, two sizes), each 6.4 x 5.4 inches at 110 dpi.
    assert 1200 < width < 1600 and 500 < height < 700, (width, height)


def test_a_panel_per_curve_and_size_with_its_band_and_asked_rank_counts(predictions_file):
    p = table(predictions_file, "predictions")
    drawn = panels(predictions_file)
    assert set(drawn) == {title_of(p, row) for row in range(len(p["size_bytes"]))}
    assert len(drawn) == len(PREDICTED)
    for title, axis in drawn.items():
        rows = [r for r in range(len(p["size_bytes"])) if title_of(p, r) == title]
        band = sorted((r for r in rows if not p["asked"][r]), key=lambda r: p["ranks"][r])
        median = labelled(axis.get_lines(), "predicted median")
        np.testing.assert_allclose(median.get_xdata(), p["ranks"][band])
        np.testing.assert_allclose(median.get_ydata(), p["time_us"][band])
        interval = labelled([c for c in axis.collections if isinstance(c, PolyCollection)],
                            "95% interval")
        x, y = interval.get_paths()[0].vertices.T
        assert x.min() == pytest.approx(p["ranks"][band].min())
        assert x.max() == pytest.approx(p["ranks"][band].max())
        assert y.min() == pytest.approx(p["time_ci_low_us"][band].min())
        assert y.max() == pytest.approx(p["time_ci_high_us"][band].max())
        asked = [r for r in rows if p["asked"][r]]
        x, y, spans = errorbar(axis, "asked for")
        assert list(x) == ASKED and list(p["ranks"][asked]) == ASKED
        np.testing.assert_allclose(y, p["time_us"][asked])
        np.testing.assert_allclose(spans, np.stack([p["time_ci_low_us"][asked],
                                                    p["time_ci_high_us"][asked]], axis=1))
        assert axis.get_xscale() == "log" and axis.get_yscale() == "log"


def test_measured_medians_of_the_nearest_size_at_every_rank_count(predictions_file):
    measured = table(predictions_file, "predicted_from")
    for size, nearest in PREDICTED.items():
        [axis] = [a for title, a in panels(predictions_file).items()
                  if title.endswith(f"· {format_size(size)}")]
        points = labelled(axis.get_lines(), "measured median")
        assert points.get_label() == f"measured median, {format_size(nearest)}"
        rows = sorted(where(measured, size_bytes=nearest, placement="packed"),
                      key=lambda r: measured["nranks"][r])
        assert list(measured["nranks"][rows]) == [2, 3, 4]
        np.testing.assert_array_equal(points.get_xdata(), [2, 3, 4])
        np.testing.assert_allclose(points.get_ydata(), measured["time_median_us"][rows])


def test_measured_range_crossover_and_out_of_sample_check(predictions_file):
    p = table(predictions_file, "predictions")
    checks = table(predictions_file, "prediction_checks")
    assert set(p["max_ranks_measured"]) == {4} and set(checks["nranks"]) == {4}
    for size, nearest in PREDICTED.items():
        title = title_of(p, where(p, size_bytes=size)[0])
        axis = panels(predictions_file)[title]
        lines = vertical_lines(axis)
        assert 4 in lines and "measured up to 4" in texts(axis)
        [extrapolated] = [patch for patch in axis.patches
                          if patch.get_xy()[:, 0].min() == pytest.approx(4)]
        assert extrapolated.get_xy()[:, 0].max() == pytest.approx(axis.get_xlim()[1])
        row = where(p, size_bytes=size)[0]
        p_star = p["crossover_ranks"][row]
        left, right = axis.get_xlim()
        if left < p_star < right:
            assert lines.get(p_star) == "--"
        else:
            assert "--" not in lines.values() and "off scale" in texts(axis)
        [check] = where(checks, size_bytes=nearest)
        x, y, spans = errorbar(axis, "out of sample at 4: ")
        assert f"{checks['relative_error'][check]:+.0%} error" in labelled(
            axis.containers, "out of sample").get_label()
        assert list(x) == [4] and y[0] == pytest.approx(checks["predicted_us"][check])
        assert spans[0] == pytest.approx((checks["predicted_ci_low_us"][check],
                                          checks["predicted_ci_high_us"][check]))


def test_crossover_inside_the_axis_is_a_dashed_line_and_outside_is_said(predictions_file,
                                                                        tmp_path):
    def crossover_at(value, low, high):
        def edit(f):
            rows = f["predictions"][()]
            rows["crossover_ranks"], rows["crossover_ranks_ci_low"] = value, low
            rows["crossover_ranks_ci_high"] = high
            f["predictions"][...] = rows
        return edit
    inside = edited_copy(predictions_file, tmp_path, crossover_at(16.0, 8.0, 32.0))
    for axis in panels(inside).values():
        assert vertical_lines(axis)[16.0] == "--"
        assert "ring p* = 16 [8, 32]" in texts(axis)
    below = edited_copy(predictions_file, tmp_path, crossover_at(1.0, 0.5, 1.5))
    for axis in panels(below).values():
        assert "--" not in vertical_lines(axis).values()
        assert "ring p* = 1 [0, 2]: off scale" in texts(axis)


def test_without_a_check_the_band_says_it_is_not_validated(predictions_file, tmp_path):
    """Two rank counts measured: `collbench predict` writes no check and no error per
    doubling, so nothing out of sample is drawn and the band is the fit's alone."""
    def as_from_two_rank_counts(f):
        dtype = f["prediction_checks"].dtype
        del f["prediction_checks"]
        f.create_dataset("prediction_checks", shape=(0,), dtype=dtype)
        rows = f["predictions"][()]
        rows["error_per_doubling"] = np.nan
        f["predictions"][...] = rows
    for axis in panels(edited_copy(predictions_file, tmp_path, as_from_two_rank_counts)).values():
        labels = [c.get_label() for c in axis.containers]
        assert not any(label.startswith("out of sample") for label in labels)
        assert labelled(axis.collections, "95% interval").get_label() == (
            "95% interval of the fit alone: not validated out of sample")


def test_size_picks_one_panel(predictions_file, tmp_path):
    [title] = panels(predictions_file, size=2 * 1024 ** 2)
    assert title.endswith("· 2 MiB")
    done = plot(predictions_file, "-o", tmp_path, "--size", "8K")
    assert done.returncode == 2 and list(tmp_path.iterdir()) == []
    assert "predicts no size 8 KiB; it predicts 64 KiB, 2 MiB" in done.stderr
    with pytest.raises(FigureError):
        FIGURES["predict"](resultfile.load(predictions_file), Options(size=8192))


@pytest.mark.parametrize("case", ["predict-of-a-run", "latency-of-predictions",
                                  "report-of-predictions", "baseline-with-predictions"])
def test_figures_asked_of_the_wrong_kind_of_file_exit_2(run_file, predictions_file, tmp_path,
                                                        case):
    target, extra, expected = {
        "predict-of-a-run": (run_file, ["--figures", "predict"], "holds no predictions"),
        "latency-of-predictions": (predictions_file, ["--figures", "latency"],
                                   "figure 'latency' needs a run's points"),
        "report-of-predictions": (predictions_file, ["--report"], "has no report"),
        "baseline-with-predictions": (predictions_file, ["--baseline", run_file],
                                      "--baseline needs a run's points")}[case]
    done = plot(target, "-o", tmp_path, *extra)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert str(target) in done.stderr and expected in done.stderr
    if target == predictions_file:
        assert "is a file of `collbench predict`" in done.stderr
    assert list(tmp_path.iterdir()) == []
