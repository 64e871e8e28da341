"""Placements and rank-count sweeps under a real mpirun on one machine (one node). The
inter-node half of placement runs on the virtual cluster: test_vcluster.py."""
import h5py
import pytest

from conftest import FIXED_COUNT, points_frame, run_mpi, text

SMALL = ["--ops", "allreduce", "-b", "8", "-e", "64K", "-f", "4", *FIXED_COUNT]


def curves(path):
    """(placement, nranks, mode) of every fitted curve in the file."""
    with h5py.File(path, "r") as f:
        fits = f["fits"][()]
    return {(text(r["placement"]), int(r["nranks"]), text(r["mode"])) for r in fits}


def test_rank_count_sweep_gives_one_curve_per_rank_count(tmp_path):
    out = tmp_path / "ranks.h5"
    result = run_mpi(4, ["run", *SMALL, "--ranks", "2,3,4", "--out", str(out)])
    assert result.returncode == 0, result.stderr
    points = points_frame(out)
    assert sorted({int(n) for n in points["nranks"]}) == [2, 3, 4]
    assert {text(p) for p in points["placement"]} == {"packed"}
    for mode in ("latency", "bandwidth"):
        assert {(n) for (pl, n, m) in curves(out) if m == mode and pl == "packed"} == {2, 3, 4}
    with h5py.File(out, "r") as f:
        families = f["families"][()]
        assert len(families) > 0, "rank-count families need the three curves"
        # Each point's samples hold exactly its ranks' columns: packed takes ranks 0..k-1.
        for i, row in enumerate(f["points"][()]):
            samples = f["samples"][f"{i:06d}"]
            assert samples.shape[1] == row["nranks"]
            assert list(samples.attrs["world_ranks"]) == list(range(row["nranks"]))


def test_spread_subsets_are_stored_as_spread(tmp_path):
    out = tmp_path / "spread.h5"
    result = run_mpi(3, ["run", *SMALL, "--ranks", "2", "--spread", "spread", "--out", str(out)])
    assert result.returncode == 0, result.stderr
    points = points_frame(out)
    assert {text(p) for p in points["placement"]} == {"spread"}
    assert set(points["nranks"]) == {2}


def test_inter_on_one_node_is_skipped_with_a_line_not_an_error(tmp_path):
    out = tmp_path / "all.h5"
    result = run_mpi(3, ["run", *SMALL, "--placement", "all", "--out", str(out)])
    assert result.returncode == 0, result.stderr
    assert "placement inter skipped: the job runs on one node" in result.stdout
    points = points_frame(out)
    placements = {text(p) for p in points["placement"]}
    assert placements == {"world", "intra"}
    # One node: intra is one group of every rank, measured on its own communicator.
    assert set(points["nranks"]) == {3}
    assert (points["wrong"] == 0).all()


def test_table_groups_points_by_placement_and_rank_count(tmp_path):
    out = tmp_path / "table.h5"
    result = run_mpi(4, ["run", *SMALL, "--placement", "world", "--ranks", "2",
                         "--out", str(out)])
    assert result.returncode == 0, result.stderr
    headers = [line for line in result.stdout.splitlines() if "| placement" in line]
    assert any("placement world | 4 ranks" in h for h in headers), headers
    assert any("placement packed | 2 ranks" in h for h in headers), headers


@pytest.mark.parametrize("bad, message", [
    (["--placement", "rack"], "--placement: unknown value 'rack'"),
    (["--ranks", "1"], "--ranks: '1' is not a rank count of 2 or more"),
    (["--spread", "wide", "--ranks", "2"], "--spread: unknown value 'wide'"),
])
def test_bad_placement_options_exit_2_and_write_nothing(tmp_path, bad, message):
    out = tmp_path / "bad.h5"
    result = run_mpi(2, ["run", *SMALL, *bad, "--out", str(out)])
    assert result.returncode == 2
    assert message in result.stderr
    assert not out.exists()


def test_a_rank_count_beyond_the_job_is_skipped(tmp_path):
    out = tmp_path / "big.h5"
    result = run_mpi(2, ["run", *SMALL, "--ranks", "2,8", "--out", str(out)])
    assert result.returncode == 0, result.stderr
    assert "placement packed skipped: 8 ranks asked, the job has 2" in result.stdout
    assert set(points_frame(out)["nranks"]) == {2}


def test_topo_prints_every_rank_of_the_job():
    result = run_mpi(3, ["topo"])
    assert result.returncode == 0, result.stderr
    lines = [line.split() for line in result.stdout.splitlines() if not line.startswith("#")]
    assert [int(fields[0]) for fields in lines] == [0, 1, 2]
    assert {fields[1] for fields in lines} == {"0"}  # one node
    assert [int(fields[2]) for fields in lines] == [0, 1, 2]  # local ranks
    assert "3 ranks on 1 node" in result.stdout
