"""results/SCHEMA.md says what a result file holds; these tables of it are checked against a file
the binary writes: every column, in the file's order, of the type the page gives it. A column
added to the code and not to the page, or the other way round, fails here."""
import re

import h5py
import pytest

from conftest import FIXED_COUNT, ROOT, run_mpi

SCHEMA_PAGE = ROOT / "results" / "SCHEMA.md"
NUMBER_TYPES = {"int8", "int32", "int64", "uint64", "float64"}


def documented_columns(table):
    """(name, type) of each field the page's section on `table` lists, in its order: a row of
    the section's field table may name several, which share its type."""
    page = SCHEMA_PAGE.read_text()
    section = re.search(rf"^## `/{table}`.*?$(.*?)(?=^## )", page, re.M | re.S).group(1)
    columns = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0].startswith("`"):
            columns += [(name, cells[1]) for name in re.findall(r"`([^`]+)`", cells[0])]
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
        # "string" alone: the page leaves the length to the code, which refuses longer names.
        if not (words.startswith(stored) or (words == "string" and stored.startswith("string"))):
            found.append(f"{name}: the page says {words!r}, the file holds {stored}")
    return found


@pytest.fixture(scope="module")
def result_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("schema") / "run.h5"
    result = run_mpi(2, ["run", "--ops", "allreduce", "-b", "8", "-e", "64", "-f", "8",
                         *FIXED_COUNT, "--no-fit", "--out", str(out)])
    assert result.returncode == 0, result.stderr
    return out


def stored_dtype(result_file, table):
    with h5py.File(result_file, "r") as f:
        return f[table].dtype


@pytest.mark.parametrize("table", ["points", "topology", "host_probe"])
def test_the_page_lists_every_column_of_the_table_in_order_with_its_type(result_file, table):
    assert disagreements(documented_columns(table), stored_dtype(result_file, table)) == []


def test_a_column_missing_from_the_page_or_typed_wrong_is_found(result_file):
    """The negative control: the page's /points less a column, or with a column's length
    wrong, disagrees with the file."""
    documented, dtype = documented_columns("points"), stored_dtype(result_file, "points")
    assert disagreements([c for c in documented if c[0] != "sample_step_us"], dtype)
    retyped = [(n, "string, at most 14 bytes" if n == "mode" else t) for n, t in documented]
    assert disagreements(retyped, dtype) == [
        "mode: the page says 'string, at most 14 bytes', the file holds string, at most 15 bytes"]
