"""plots/collbench_plot.py on a real `collbench links` file: the links figure's matrices against
h5py, the slow links and hosts it marks, the links file's report, and which figures a links file
and a run file take."""
import shutil

import h5py
import numpy as np
import pytest

from plots import resultfile
from plots.figures import FIGURES
from plots.figures.common import FigureSkipped, Options
from test_plots import plot


def link_fits(path):
    with h5py.File(path, "r") as f:
        return f["link_fits"][()]


def links_figure(path):
    """(the links figure's data, its title: the line naming the slow links and hosts in it)."""
    import matplotlib.pyplot as plt
    drawn = FIGURES["links"](resultfile.load(path), Options())
    title = "\n".join(text.get_text() for text in drawn.figure.texts)
    plt.close(drawn.figure)
    return drawn.data, title


def with_a_slow_link(links_file, tmp_path):
    """A copy of the file whose second link is slow and that link's second end a slow host, named
    as `collbench links` names it."""
    copy = tmp_path / "slow.h5"
    shutil.copy(links_file, copy)
    with h5py.File(copy, "r+") as f:
        fits = f["link_fits"][()]
        fits["slow"][1] = 1
        f["link_fits"][...] = fits
        host = f"rank {fits['second_rank'][1]} on {fits['second_host'][1].decode()}"
        dtype = f["slow_hosts"].dtype
        del f["slow_hosts"]   # written whole, not resizable
        f.create_dataset("slow_hosts", data=np.array([(host, "intra", 1.0, 7.0)], dtype=dtype))
    return copy, fits[1], host


def test_links_figure_draws_the_files_link_fits(links_file):
    """Every link's bandwidth and latency in both of its cells, the diagonal blank; on one machine
    every link is `intra` between ranks of one host, so rows are ranks; none is slow here."""
    data, title = links_figure(links_file)
    fits = link_fits(links_file)
    host = fits["first_host"][0].decode()
    assert len(fits) == 3 and set(fits["kind"]) == {b"intra"}
    assert data["ranks"] == [0, 1, 2]
    assert data["labels"] == [f"rank {r} on {host}" for r in range(3)]
    for column in ("bandwidth_GBps", "alpha_us"):
        matrix = data[column]
        np.testing.assert_array_equal(matrix, matrix.T)
        assert np.isnan(np.diag(matrix)).all()
        assert np.isfinite(matrix[~np.eye(3, dtype=bool)]).all()
        for fit in fits:
            assert matrix[fit["first_rank"], fit["second_rank"]] == fit[column]
    assert not fits["slow"].any() and data["slow_links"] == [] and data["slow_hosts"] == []
    assert "No slow link or host" in title


def test_slow_links_and_hosts_are_marked_and_named(links_file, tmp_path):
    slow, fit, host = with_a_slow_link(links_file, tmp_path)
    data, title = links_figure(slow)
    pair = (f"rank {fit['first_rank']} on {fit['first_host'].decode()}",
            f"rank {fit['second_rank']} on {fit['second_host'].decode()}")
    assert data["slow_links"] == [pair] and data["slow_hosts"] == [host]
    assert host in title and " <-> ".join(pair) in title
    done = plot(slow, "-o", tmp_path, "--report")
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "slow-report.html").read_text()
    answer = page[:page.index('id="figures"')]
    assert f"Slow host: {host} (intra)" in answer
    assert f"Slow link: {pair[0]} &lt;-&gt; {pair[1]} (intra)" in answer
    assert "No slow link or host" not in page and page.count("<td>SLOW</td>") == 1


def test_links_report_answers_first_then_the_figure_the_table_and_provenance(links_file,
                                                                            tmp_path):
    done = plot(links_file, "-o", tmp_path, "--report")
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "links-report.html").read_text()
    assert page.count("data:image/png;base64,") == 1
    order = [page.index(marker) for marker in (
        "No slow link or host", '<img alt="links"', "<th>bidirectional (GB/s)</th>",
        '<details id="provenance"', "<td>ucx_TLS</td>", "<td>ucx_NET_DEVICES</td>")]
    assert order == sorted(order), order
    for header in ("pair", "kind", "transport", "alpha (us)", "bandwidth (GB/s)",
                   "forward (GB/s)", "backward (GB/s)", "slow"):
        assert f"<th>{header}</th>" in page
    for fit in link_fits(links_file):
        pair = (f"rank {fit['first_rank']} on {fit['first_host'].decode()} &lt;-&gt; "
                f"rank {fit['second_rank']} on {fit['second_host'].decode()}")
        assert (f"<td>{pair}</td><td>intra</td><td>{fit['transport'].decode()}</td>"
                f"<td>{fit['alpha_us']:.2f}</td><td>{fit['bandwidth_GBps']:.3f}</td>") in page


def test_a_links_file_draws_the_links_figure_alone_by_default(links_file, tmp_path):
    done = plot(links_file, "-o", tmp_path)
    assert done.returncode == 0, done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["links-links.png"]
    assert done.stdout.splitlines() == [str(tmp_path / "links-links.png")]


@pytest.mark.parametrize("case", ["links-of-a-run", "busbw-of-links", "baseline-with-links"])
def test_figures_asked_of_the_wrong_kind_of_file_exit_2(files, links_file, tmp_path, case):
    target, extra = {"links-of-a-run": (files["ranks"], ["--figures", "links"]),
                     "busbw-of-links": (links_file, ["--figures", "links,busbw"]),
                     "baseline-with-links": (links_file, ["--baseline", files["base"]])}[case]
    done = plot(target, "-o", tmp_path, *extra, "--report")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert list(tmp_path.iterdir()) == []
    expected = ("holds no links" if case == "links-of-a-run"
                else "is a file of `collbench links`, whose one figure is 'links'")
    assert expected in done.stderr


def test_a_run_file_skips_the_links_figure(files):
    with pytest.raises(FigureSkipped):
        FIGURES["links"](resultfile.load(files["ranks"]), Options())


def test_a_killed_links_file_keeps_its_finished_points_and_has_no_models(links_file, tmp_path):
    """Killed between rounds: /link_fits is written at the end, so it is missing, and only the
    rows counted in finished_rows are read. The figure steps aside; the report says why."""
    killed = tmp_path / "killed.h5"
    shutil.copy(links_file, killed)
    with h5py.File(killed, "r+") as f:
        f.attrs["complete"] = 0
        f["links"].attrs["finished_rows"] = 20
        del f["link_fits"], f["slow_hosts"]
    result = resultfile.load(killed)
    assert result.is_links and result.point_count() == 0
    assert len(result.links.points["mode"]) == 20 and result.links.fits == {}
    done = plot(killed, "-o", tmp_path, "--report")
    assert done.returncode == 0, done.stderr
    assert "# note:" in done.stdout and "holds no link models" in done.stdout
    page = (tmp_path / "killed-report.html").read_text()
    assert "No link models" in page and "20 link points kept" in page
    assert not (tmp_path / "killed-links.png").exists()
