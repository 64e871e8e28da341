"""The run report's section against the fabric's links, on a real run judged by a real links file
(`collbench fit RUN --links LINKS`): its rows against /link_bounds read by h5py."""
import re
import subprocess

import h5py
import pytest

from conftest import BINARY, environment, run_mpi
from plots import resultfile
from plots.sizes import format_size
from test_plots import plot

SECTION = "Against the fabric's links ("


@pytest.fixture(scope="session")
def judged_run(tmp_path_factory):
    """A 2-rank allreduce judged by the links between the same 2 ranks: both on this machine, so
    every point is judged by intra links. One pair at a time: the ranks share cores."""
    if not BINARY.exists():
        pytest.fail(f"{BINARY} is missing: build first (ci/setup)")
    folder = tmp_path_factory.mktemp("judged")
    links, run = folder / "L.h5", folder / "R.h5"
    for args in (["links", "--between", "ranks", "-b", "8", "-e", "64K", "-f", "8", "-w", "1",
                  "--min-samples", "6", "--max-time", "0.2", "--pairs-at-once", "1",
                  "--out", str(links)],
                 ["run", "--backend", "mpi", "--ops", "allreduce", "-d", "float", "-b", "8",
                  "-e", "64K", "-f", "8", "--max-time", "0.2", "--quiet", "--out", str(run)]):
        done = run_mpi(2, args)
        assert done.returncode == 0, done.stderr
    done = subprocess.run([str(BINARY), "fit", str(run), "--links", str(links)],
                          capture_output=True, text=True, timeout=120, env=environment())
    assert done.returncode == 0, done.stderr
    return run, links


def cells_of_table(page, first_header):
    """The rows' cells of the table whose first headers are `first_header`."""
    start = page.index(f"<table><tr><th>{first_header}")
    body = page[start:page.index("</table>", start)]
    return [re.findall(r"<td>(.*?)</td>", row) for row in re.findall(r"<tr>(<td>.*?)</tr>", body)]


def bounds_of(run):
    """(/link_bounds rows, their points' mode and size, the table's two attributes); every point
    of the run is judged."""
    with h5py.File(run, "r") as f:
        bounds, points = f["link_bounds"][()], f["points"][()]
        attributes = {k: f["link_bounds"].attrs[k].decode() for k in ("links_file", "links_start_utc")}
    assert sorted(bounds["point_id"]) == list(range(len(points)))
    modes = [points["mode"][b["point_id"]].decode() for b in bounds]
    sizes = [int(points["size_bytes"][b["point_id"]]) for b in bounds]
    return bounds, modes, sizes, attributes


def test_the_report_shows_the_files_link_bounds(judged_run, tmp_path):
    run, links = judged_run
    done = plot(run, "-o", tmp_path, "--figures", "busbw", "--report")
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "R-report.html").read_text()
    bounds, modes, sizes, attributes = bounds_of(run)
    assert set(bounds["kind"]) == {b"intra"}
    assert attributes["links_file"] == str(links)
    # After the summary, before the figures: the answer first.
    order = [page.index(m) for m in ('id="summary"', SECTION, 'id="figures"')]
    assert order == sorted(order), order
    assert f"{SECTION}{links}, measured {attributes['links_start_utc']})" in page

    points = cells_of_table(page, "curve</th><th>size</th>")
    assert len(points) == len(bounds)
    expected = {(mode, format_size(size)): b for b, mode, size in zip(bounds, modes, sizes)}
    for curve, size, kind, algorithm, _, _, predicted, measured, ratio in points:
        b = expected.pop((curve.rsplit(" · ", 1)[1], size))
        assert (kind, algorithm) == ("intra", b["algorithm"].decode())
        assert predicted == f"{b['predicted_us']:.2f}" and ratio == f"{b['ratio']:.2f}"
        assert measured == f"{b['measured_us']:.2f}"
    assert not expected

    curves = cells_of_table(page, "curve</th><th>points</th>")
    assert sorted(c[0].rsplit(" · ", 1)[1] for c in curves) == ["bandwidth", "latency"]
    for curve, count, _, largest, _ in curves:
        mode = curve.rsplit(" · ", 1)[1]
        ours = [i for i, m in enumerate(modes) if m == mode]
        last = max(ours, key=lambda i: sizes[i])
        assert int(count) == len(ours)
        assert largest == f"{bounds['ratio'][last]:.2f} at {format_size(sizes[last])}"


def test_a_run_never_judged_has_no_such_section(files, tmp_path):
    assert resultfile.load(files["nofit"]).link_bounds == resultfile.LinkBounds()
    done = plot(files["nofit"], "-o", tmp_path, "--figures", "busbw", "--report")
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "nofit-report.html").read_text()
    assert 'id="summary"' in page and "fabric" not in page and "link-bounds" not in page
