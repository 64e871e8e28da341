"""Figures never contradict their own words: a model line only where the panel calls the fit
trusted, and of the mode it names; an error bar only where it is a precision, else what it spans
said; a per-rank figure of a run that warned of its binding says so, and so does the report.
On copies of a real run's file, rewritten with h5py where a case needs what this machine's runs
do not reliably give."""
import html
import os
import subprocess

import h5py
import matplotlib.text
import numpy as np
import pytest

from conftest import BINARY
from plots import resultfile
from plots.figures import FIGURES, errorbars
from plots.figures.common import Options
from test_plots import PYTHON, SCRIPT

@pytest.fixture(autouse=True)
def closed_figures():
    """Figures drawn in the test process are closed after each test: pyplot keeps them."""
    yield
    import matplotlib.pyplot
    matplotlib.pyplot.close("all")


def rewritten(files, tmp_path, change):
    """A copy of the "ranks" file that `change(f)` rewrote, loaded."""
    copy = tmp_path / "rewritten.h5"
    copy.write_bytes(files["ranks"].read_bytes())
    with h5py.File(copy, "r+") as f:
        change(f)
    return resultfile.load(copy)


def trust(f, headlines, segments):
    for name, trusted in (("headlines", headlines), ("fits", segments)):
        rows = f[name][()]
        rows["trusted"] = trusted
        f[name][...] = rows


def model_lines(axis):
    return [line for line in axis.get_lines() if "fit" in line.get_label()]


def panel_words(axis):
    """The panel's words, as one line: its notes wrap to the axis' width."""
    return " ".join(" ".join(text.get_text().split()) for text in axis.texts)


def test_an_untrusted_headline_draws_no_model_line_under_its_words(files, tmp_path):
    """The demo's contradiction: every segment trusted on its own, the curve's headline not (its
    misfit). The panel says the fit is untrusted, so it draws no line, segment or not."""
    result = rewritten(files, tmp_path, lambda f: trust(f, headlines=0, segments=1))
    plot = FIGURES["latency"](result, Options())
    assert plot.data
    for axis, (name, panel) in zip(plot.figure.axes, plot.data.items()):
        assert model_lines(axis) == [], name
        assert panel["segments"] == [] and panel["trusted"] is False
        said = panel["notes"][0]
        assert said.startswith("latency-mode fit untrusted (") and \
            said.endswith("): no model drawn"), panel["notes"]
        assert said in panel_words(axis)


def test_a_trusted_fit_is_drawn_and_named_by_its_mode(files, tmp_path):
    result = rewritten(files, tmp_path, lambda f: trust(f, headlines=1, segments=1))
    plot = FIGURES["latency"](result, Options())
    for axis, panel in zip(plot.figure.axes, plot.data.values()):
        assert [line.get_label() for line in model_lines(axis)] == ["latency-mode fit α + β·n"]
        assert panel["segments"] and "untrusted" not in panel_words(axis)
    busbw = FIGURES["busbw"](result, Options())
    labels = busbw.figure.axes[0].get_legend_handles_labels()[1]
    assert f"{busbw.data['mode']}-mode fit's asymptote (1/β × bus factor)" in labels
    ranks = FIGURES["ranks"](result, Options())
    labels = [line.get_label() for axis in ranks.figure.axes for line in axis.get_lines()]
    assert any(", latency-mode fit (dashed: extrapolated)" in text for text in labels), labels


def split_in_two_segments(f):
    """Every curve's one segment as two, the first trusted and the second not, the headlines
    trusted: the case of a headline whose middle or last regime is flagged."""
    trust(f, headlines=1, segments=1)
    fits = f["fits"][()]
    assert (fits["segments"] == 1).all()
    first, second = fits.copy(), fits.copy()
    first["segments"] = second["segments"] = 2
    second["segment"] = 1
    middle = np.sqrt(fits["min_size_bytes"] * fits["max_size_bytes"].astype(float))
    first["max_size_bytes"] = second["min_size_bytes"] = middle.astype(np.uint64)
    second["trusted"] = 0
    second["flags"] = b"beta not significant"
    del f["fits"]
    f.create_dataset("fits", data=np.concatenate([first, second]))


def test_an_untrusted_segment_of_a_trusted_headline_is_said_and_not_drawn(files, tmp_path):
    result = rewritten(files, tmp_path, split_in_two_segments)
    plot = FIGURES["latency"](result, Options())
    for axis, panel in zip(plot.figure.axes, plot.data.values()):
        lines = model_lines(axis)
        assert len(lines) == 1 and len(panel["segments"]) == 1
        drawn = panel["segments"][0]
        assert lines[0].get_xdata().max() == pytest.approx(drawn["max_size_bytes"])
        assert drawn["max_size_bytes"] < panel["size_bytes"].max()
        said = "latency-mode segment 2 of 2 untrusted (beta not significant): not drawn"
        assert said in panel["notes"] and said in panel_words(axis), panel_words(axis)


def round_medians_in(f, point_id):
    """Lowest and highest round median of a point, from its raw samples and round_starts."""
    stored = f[f"samples/{point_id:06d}"]
    slowest = stored[()].astype(np.float64).max(axis=1)
    starts = list(stored.attrs["round_starts"]) + [len(slowest)]
    medians = [np.median(slowest[a:b]) for a, b in zip(starts, starts[1:]) if b > a]
    return min(medians), max(medians)


def test_a_bar_is_the_95_ci_only_where_that_is_a_precision(files, tmp_path):
    """Three latency points lose their usable interval: one's stretched to ten times its median
    (the demo's ci of 340-596%), one stopped at --max-time, one stretched and without samples.
    The first two span their rounds' medians, the third p5-p95; every other point whose
    interval is usable keeps it, and no bar drawn as a 95% CI is wider than its median."""
    with h5py.File(files["ranks"], "r") as f:
        points = f["points"][()]
        latency = np.flatnonzero(points["mode"] == b"latency")
        assert len(latency) >= 3
        stretched, stopped, bare = (int(points["point_id"][i]) for i in latency[:3])
        assert all(len(f[f"samples/{p:06d}"].attrs["round_starts"]) >= 2
                   for p in (stretched, stopped))

    def change(f):
        rows = f["points"][()]
        for p in (stretched, bare):
            rows["time_median_ci_high_us"][p] = 10 * rows["time_median_us"][p]
        rows["stop_reason"][stopped] = b"max_time"
        f["points"][...] = rows
        del f[f"samples/{bare:06d}"]
    result = rewritten(files, tmp_path, change)
    plot = FIGURES["latency"](result, Options())
    seen = {}
    with h5py.File(result.path, "r") as f:
        stored = f["points"][()]
        for axis, panel in zip(plot.figure.axes, plot.data.values()):
            for i, p in enumerate(panel["point_id"]):
                p, kind = int(p), panel["error_kind"][i]
                seen[p] = kind
                drawn = (panel["err_low_us"][i], panel["err_high_us"][i])
                row = stored[p]
                if p in (stretched, stopped):
                    assert kind == "rounds" and drawn == round_medians_in(f, p)
                elif p == bare:
                    assert kind == "spread"
                    assert drawn == (row["time_p5_us"], row["time_p95_us"])
                elif kind == "ci":
                    assert drawn == (row["time_median_ci_low_us"], row["time_median_ci_high_us"])
                    assert row["stop_reason"] in (b"converged", b"fixed_count")
                    assert errorbars.relative_ci(row["time_median_us"], *drawn) <= 1
            labels = axis.get_legend_handles_labels()[1]
            for kind in set(panel["error_kind"]):
                assert f"median ({errorbars.KINDS[kind]})" in labels
            if set(panel["error_kind"]) != {"ci"}:
                assert f"hollow, {errorbars.UNUSABLE}" in panel_words(axis)
    assert {stretched, stopped, bare} <= set(seen)


def plot_report(path, out, *extra):
    return subprocess.run([PYTHON, str(SCRIPT), str(path), "-o", str(out), "--report", *extra],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "COLLBENCH": str(BINARY)})


def figure_texts(figure):
    return [t.get_text() for t in figure.findobj(matplotlib.text.Text)]


@pytest.mark.parametrize("recorded", ["as run", "empty", "absent"])
def test_a_binding_warning_is_on_the_per_rank_figures_and_the_report(files, tmp_path, recorded):
    """The fixture's runs are unbound and yielding (more ranks than cores): `run` records its
    warning, which the per-rank figures and the report's per-rank section repeat. Emptied or
    deleted (a bound run's file), nothing warns."""
    with h5py.File(files["ranks"], "r") as f:
        warning = f.attrs["binding_warning"].decode()
    assert "ranks are not bound to cores" in warning

    def change(f):
        if recorded == "empty":
            f.attrs["binding_warning"] = ""
        elif recorded == "absent":
            del f.attrs["binding_warning"]
    result = rewritten(files, tmp_path, change)
    warned = recorded == "as run"
    for name in ("heatmap", "ranks-distribution"):
        plot = FIGURES[name](result, Options())
        said = [t for t in figure_texts(plot.figure) if "Measured with a warning" in t]
        assert plot.warning == (warning if warned else "")
        assert len(said) == warned, (name, figure_texts(plot.figure))
        if warned:   # wrapped to the figure's width, the words all there
            assert " ".join(said[0].split()) == f"Measured with a warning: {warning}"
    latency = FIGURES["latency"](result, Options())
    assert not [t for t in figure_texts(latency.figure) if "Measured with a warning" in t]
    done = plot_report(result.path, tmp_path, "--figures", "busbw,heatmap,ranks-distribution")
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "rewritten-report.html").read_text()
    section = page.index('id="per-rank"')
    assert page.index('id="figures"') < page.index('alt="busbw"') < section
    first_per_rank = min(page.index('alt="ranks-distribution"'), page.index('alt="heatmap"'))
    assert section < first_per_rank < page.index('id="points"')
    escaped = html.escape(warning)
    if warned:
        said = page.index(f"Measured with a warning:</b> {escaped}.")
        assert section < said < first_per_rank
        assert f"<td>binding_warning</td><td>{escaped}</td>" in page   # the provenance
    else:
        assert 'class="warning"' not in page
    assert "No rank or host finished last or started late more often than chance" in page or \
        "<th>straggler</th>" in page
