"""results/SCHEMA.md says what a result file holds; these tables of it are checked against a file
the binary writes: every column, in the file's order, of the type the page gives it. A column
added to the code and not to the page, or the other way round, fails here. The CSV and JSON
`report` prints carry every /points column too, as the file holds it."""
import csv
import io
import json
import math
import re
import shutil

import h5py
import pytest

from conftest import FIXED_COUNT, ROOT, run_mpi, run_plain, text

SCHEMA_PAGE = ROOT / "results" / "SCHEMA.md"
NUMBER_TYPES = {"int8", "int32", "int64", "uint64", "float64"}


def documented_columns(table, stored_names):
    """(name, type) of each field the page's section on `table` lists, in its order. A row of the
    section's field table may name several: they share its type, or take one each where it
    lists as many; "`a` … `b`" names a, b and the stored columns between them; a row without a
    type refers to another table's."""
    page = SCHEMA_PAGE.read_text()
    heading = re.escape(f"`/{table}`")
    section = re.search(rf"^## [^\n]*{heading}[^\n]*$(.*?)(?=^## )", page, re.M | re.S).group(1)
    columns = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0].startswith("`"):
            continue
        names = []
        for part in cells[0].split("…"):
            found = re.findall(r"`([^`]+)`", part)
            if names and found:  # a range: the stored columns between its ends
                names += stored_names[stored_names.index(names[-1]) + 1:
                                      stored_names.index(found[0])]
            names += found
        types = [t.strip() for t in cells[1].split(",")]
        if len(types) != len(names) or not set(types) <= NUMBER_TYPES:
            types = [cells[1]] * len(names)
        columns += list(zip(names, types))
    return columns
def type_of(field):
    """The page's words for a column of numpy dtype `field`."""
    if field.kind == "S":
        return f"string, at most {field.itemsize - 1} bytes"
    return field.name


def disagreements(documented, dtype):
    """Where the page's (name, type) list and a table's numpy dtype differ; empty if nowhere."""
    names = [name for name, _ in documented]
    if names != list(dtype.names):
        return [f"the page lists {names}, the file holds {list(dtype.names)}"]
    found = []
    for name, words in documented:
        stored = type_of(dtype.fields[name][0])
        # "string(s)" alone: the page leaves the length to the code, which refuses longer names;
        # no type: the page refers to another table's.
        loose = words in ("string", "strings") and stored.startswith("string")
        if not (words.startswith(stored) or loose or words == ""):
            found.append(f"{name}: the page says {words!r}, the file holds {stored}")
    return found


@pytest.fixture(scope="module")
def result_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("schema") / "run.h5"
    result = run_mpi(2, ["run", "--ops", "allreduce", "-b", "8", "-e", "4K", "-f", "4",
                         *FIXED_COUNT, "--out", str(out)])
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def links_files(result_file):
    """A links file of the run's two ranks, and a copy of the run judged against it by
    `fit --links` (/link_bounds)."""
    links = result_file.with_name("links.h5")
    result = run_mpi(2, ["links", "--between", "ranks", "-b", "8", "-e", "64K", "-f", "64",
                         "-n", "5", "--out", str(links)])
    assert result.returncode == 0, result.stderr
    judged = result_file.with_name("judged.h5")
    shutil.copy(result_file, judged)
    result = run_plain(["fit", str(judged), "--links", str(links)])
    assert result.returncode == 0, result.stderr
    return {"links": links, "link_bounds": judged}


def stored_dtype(result_file, table):
    with h5py.File(result_file, "r") as f:
        return f[table].dtype


@pytest.mark.parametrize("table", ["points", "topology", "host_probe", "fits", "headlines"])
def test_the_page_lists_every_column_of_the_table_in_order_with_its_type(result_file, table):
    dtype = stored_dtype(result_file, table)
    assert disagreements(documented_columns(table, dtype.names), dtype) == []


@pytest.mark.parametrize("table", ["links", "link_bounds"])
def test_the_page_lists_every_column_of_the_links_tables(links_files, table):
    dtype = stored_dtype(links_files[table], table)
    assert disagreements(documented_columns(table, dtype.names), dtype) == []


def test_a_column_missing_from_the_page_or_typed_wrong_is_found(result_file):
    """The negative control: the page's /points less a column, or with a column's length
    wrong, disagrees with the file."""
    dtype = stored_dtype(result_file, "points")
    documented = documented_columns("points", dtype.names)
    assert disagreements([c for c in documented if c[0] != "sample_step_us"], dtype)
    retyped = [(n, "string, at most 14 bytes" if n == "mode" else t) for n, t in documented]
    assert disagreements(retyped, dtype) == [
        "mode: the page says 'string, at most 14 bytes', the file holds string, at most 15 bytes"]


# Where a printed field of a /points column's name means more than the column: the table's
# #wrong, the check that found more (the column: the one before timing, `wrong_before_timing`).
PRINTED_OTHERWISE = {"wrong"}


def cells_that_differ(stored_rows, printed_rows):
    """(row, column, stored, printed) for each /points column but point_id whose printed value
    is not the stored one; a column missing from the printed rows differs at every row."""
    found = []
    for index, (stored, printed) in enumerate(zip(stored_rows, printed_rows, strict=True)):
        for column in stored.dtype.names:
            if column == "point_id" or column in PRINTED_OTHERWISE:
                continue
            value, shown = stored[column], printed.get(column, "missing")
            shown = {"true": "1", "false": "0"}.get(shown, shown)  # in_place, a flag
            if isinstance(value, bytes):
                same = shown == text(value)
            elif shown in ("missing", None, "", "null"):
                same = shown != "missing" and math.isnan(value)
            else:
                same = float(shown) == pytest.approx(float(value), rel=1e-6, abs=0)
            if not same:
                found.append((index, column, value, shown))
    return found


def printed_rows(result_file, form):
    result = run_plain(["report", str(result_file), "--format", form])
    assert result.returncode == 0, result.stderr
    if form == "csv":
        return list(csv.DictReader(io.StringIO(result.stdout)))
    return [{k: (json.dumps(v) if isinstance(v, bool) else v) for k, v in point.items()}
            for point in json.loads(result.stdout)["points"]]


@pytest.mark.parametrize("form", ["csv", "json"])
def test_csv_and_json_carry_every_points_column_as_the_file_holds_it(result_file, form):
    with h5py.File(result_file, "r") as f:
        stored = f["points"][()]
    assert len(stored) > 0
    assert cells_that_differ(stored, printed_rows(result_file, form)) == []


def test_a_column_left_out_or_misprinted_is_found(result_file):
    """The negative control: the printed rows less a column, or with a time changed, differ."""
    with h5py.File(result_file, "r") as f:
        stored = f["points"][()]
    printed = printed_rows(result_file, "csv")
    for row in printed:
        del row["sample_step_us"]
    assert {c[1] for c in cells_that_differ(stored, printed)} == {"sample_step_us"}
    printed = printed_rows(result_file, "csv")
    printed[0]["time_median_us"] = str(float(printed[0]["time_median_us"]) * 1.01)
    assert [c[:2] for c in cells_that_differ(stored, printed)] == [(0, "time_median_us")]
