"""tests/standin/CONFORMANCE.md covers what collbench calls: every CUDA runtime and NCCL function
its executable imports has a row, and every test a row names exists. A call added without its
row (what CUDA and NCCL really do, from their source, and what the stand-in plays) fails here."""
import re
import subprocess

import pytest

from conftest import BINARY, ROOT

TABLE = ROOT / "tests" / "standin" / "CONFORMANCE.md"
# CUDA's runtime and driver (cuda*, cu*, nvcc's __cuda*) and NCCL.
LIBRARY_CALL = re.compile(r"^(__cuda\w+|cuda[A-Z]\w*|cu[A-Z]\w*|nccl[A-Z]\w*)$")


def imported_library_calls():
    listing = subprocess.run(["nm", "-D", "--undefined-only", str(BINARY)], capture_output=True,
                             text=True, check=True).stdout
    names = {line.split()[-1].split("@")[0] for line in listing.splitlines() if line.strip()}
    return {name for name in names if LIBRARY_CALL.match(name)}


def table_rows():
    """(functions, tests) of each row of the table: the backticked names of its first and last
    cells."""
    rows = []
    for line in TABLE.read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0].startswith("`"):
            rows.append((re.findall(r"`(\w+)`", cells[0]), re.findall(r"`([^`]+)`", cells[4])))
    return rows


def test_every_cuda_and_nccl_function_collbench_imports_has_a_row():
    imported = imported_library_calls()
    if not any(name.startswith("nccl") for name in imported):
        pytest.skip("this collbench was built without the NCCL backend")
    listed = {name for functions, _ in table_rows() for name in functions}
    assert imported - listed == set(), f"calls with no row in {TABLE}"


def test_every_row_names_a_test_that_exists():
    sources = {path: path.read_text() for path in (ROOT / "tests").rglob("*")
               if path.suffix in (".cpp", ".py") and path.is_file()}
    rows = table_rows()
    assert len(rows) > 50
    for functions, tests in rows:
        assert tests, f"{functions}: no test named"
        for test in tests:
            if "::" in test:
                file, name = test.split("::")
                found = any(path.name == file and re.search(rf"^def {name}\(", text, re.M)
                            for path, text in sources.items())
            else:
                suite, name = test.split(".")
                found = any(re.search(rf"^TEST(_F)?\({suite}, {name}\)", text, re.M)
                            for text in sources.values())
            assert found, f"{functions}: {test} is no test under tests/"
