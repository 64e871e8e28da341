"""The table is a drop-in for nccl-tests' scrapers: the awk one-liners and ReFrame-style regular
expressions sites use read collbench's output as they read nccl-tests', and the same scrapers pass
on nccl-tests' own layout (a fixture written by hand from its documented columns)."""
import pathlib
import re
import subprocess

import pytest

from conftest import QUICK, run_mpi

FIXTURE = pathlib.Path(__file__).parent / "fixtures" / "nccl-tests-all_reduce.txt"

# The data rows as a ReFrame check of nccl-tests reads them: the 13 fields by position.
ROW = re.compile(r"^\s+(?P<size>\d+)\s+(?P<count>\d+)\s+(?P<type>\w+)\s+(?P<redop>\w+)\s+"
                 r"(?P<root>-?\d+)\s+(?P<time>\S+)\s+(?P<algbw>\S+)\s+(?P<busbw>\S+)\s+"
                 r"(?P<wrong>\S+)\s+(?P<time_ip>\S+)\s+(?P<algbw_ip>\S+)\s+(?P<busbw_ip>\S+)\s+"
                 r"(?P<wrong_ip>\S+)", re.M)
AVERAGE = re.compile(r"^# Avg bus bandwidth\s+:\s+(?P<busbw>\S+)", re.M)

# size, out-of-place busbw, in-place busbw, in-place #wrong: fields 1, 8, 12, 13.
AWK_ROWS = "!/^#/ && $1 ~ /^[0-9]+$/ { print $1, $8, $12, $13 }"
AWK_AVERAGE = "/# Avg bus bandwidth/ { print $NF }"


def awk(program, text):
    return subprocess.run(["awk", program], input=text, capture_output=True, text=True,
                          check=True, timeout=30).stdout.split("\n")[:-1]


def number_or_na(text):
    return text == "N/A" or float(text) >= 0


def check_scraped(text, in_place_measured):
    """What a site's scraper relies on, asserted field by field; the number of data rows."""
    rows = list(ROW.finditer(text))
    assert rows, text
    for row in rows:
        assert float(row["time"]) > 0 and float(row["busbw"]) >= 0
        assert row["wrong"] in ("0", "N/A"), row.group(0)
        if in_place_measured:
            assert float(row["time_ip"]) > 0 and float(row["busbw_ip"]) >= 0
            assert row["wrong_ip"] in ("0", "N/A"), row.group(0)
        else:
            assert (row["time_ip"], row["algbw_ip"], row["busbw_ip"], row["wrong_ip"]) == \
                ("N/A",) * 4, row.group(0)
    scraped = [line.split() for line in awk(AWK_ROWS, text)]
    assert [int(s[0]) for s in scraped] == [int(r["size"]) for r in rows]
    assert all(float(s[1]) >= 0 and number_or_na(s[2]) and s[3] in ("0", "N/A")
               for s in scraped), scraped
    averages = awk(AWK_AVERAGE, text)
    assert averages and all(float(a) >= 0 for a in averages), averages
    assert [float(m["busbw"]) for m in AVERAGE.finditer(text)] == [float(a) for a in averages]
    return len(rows)


def test_the_scrapers_read_nccl_tests_own_layout():
    assert check_scraped(FIXTURE.read_text(), in_place_measured=True) == 9


@pytest.mark.parametrize("in_place", [False, True])
def test_the_scrapers_read_collbench_as_they_read_nccl_tests(tmp_path, in_place):
    args = ["run", "--ops", "allreduce,allgather", "-b", "8", "-e", "64K", "-f", "8",
            "--out", str(tmp_path / "run.h5"), "--no-fit", *QUICK]
    result = run_mpi(2, args + (["--inplace"] if in_place else []))
    assert result.returncode == 0, result.stderr
    rows = check_scraped(result.stdout, in_place_measured=in_place)
    assert rows == 5 + 5  # 8 B to 32 KiB by 8, for each collective
    # One nccl-tests average per section, then one line naming each section's.
    averages = [float(a) for a in awk(AWK_AVERAGE, result.stdout)]
    assert len(averages) == 2
    summary = [l for l in result.stdout.splitlines()
               if l.startswith("# collbench avg bus bandwidth (GB/s) by section: ")]
    assert len(summary) == 1, result.stdout
    named = dict(item.split() for item in summary[0].split(": ", 1)[1].split(", "))
    assert list(named) == ["allreduce/world/2", "allgather/world/2"]
    assert [float(v) for v in named.values()] == averages
