"""A damaged result file is bad input: every command that reads one exits 0 (the damage missed
what it reads), 1 (a verdict) or 2 with a message naming the file, never a signal. Copies of a
finished, fitted run (fixtures/schema21-mpi.h5.gz, written at schema 21: no variable-length data)
with bits flipped at random and cut short. Some damage makes HDF5 1.10 itself read out of bounds
(a compound's member offsets, an attribute message; 8 copies of 1,000 with 16 bits flipped); the
reader then ends with exit 2 naming the file (store/damaged_file_guard.h), which takes effect
because these commands gave UCX's crash handlers back (UCX keeps the signals it took from any
later sigaction). The control: the copies tried must include such ones, else the test would
pass without the guard; without it, they end in SIGSEGV."""
import gzip
import random
import shutil
import subprocess

import pytest

from conftest import BINARY, ROOT, environment

FIXTURE = ROOT / "tests" / "integration" / "fixtures" / "schema21-mpi.h5.gz"
FLIPPED_BITS = 16
SEEDS = 150
CRASHED_HDF5 = "damaged: HDF5 crashed reading it"


@pytest.fixture(scope="module")
def intact(tmp_path_factory):
    path = tmp_path_factory.mktemp("intact") / "run.h5"
    with gzip.open(FIXTURE) as packed, open(path, "wb") as out:
        shutil.copyfileobj(packed, out)
    return path


def damaged_copy(intact, folder, seed):
    data = bytearray(intact.read_bytes())
    rng = random.Random(seed)
    for _ in range(FLIPPED_BITS):
        bit = rng.randrange(len(data) * 8)
        data[bit // 8] ^= 1 << (bit % 8)
    path = folder / f"damaged{seed}.h5"
    path.write_bytes(data)
    return path


def collbench(*args):
    # Damaged text may print as bytes that are not UTF-8.
    return subprocess.run([str(BINARY), *map(str, args)], capture_output=True, text=True,
                          errors="replace", timeout=120, env=environment(), cwd=ROOT)


def commands(damaged, intact, folder):
    spec = ROOT / "ci" / "acceptance" / "mpi-local.toml"
    return {"report": ["report", damaged],
            "check": ["check", damaged, "--spec", spec],
            "compare": ["compare", intact, damaged],
            "trend": ["trend", intact, intact, damaged],
            "predict": ["predict", damaged, "--ranks", "64", "--bootstrap", "20",
                        "--out", folder / "predicted.h5", "--force"],
            "fit": ["fit", damaged, "--bootstrap", "20"]}  # last: it writes into the copy


def assert_clean_end(result, damaged, what):
    assert 0 <= result.returncode <= 2, (what, result.returncode, result.stderr[-2000:])
    if result.returncode == 2:
        assert damaged.name in result.stderr, (what, result.stderr[-2000:])


def test_flipped_bits_end_every_reader_with_an_exit_code(intact, tmp_path):
    crashed = []
    for seed in range(SEEDS):
        damaged = damaged_copy(intact, tmp_path, seed)
        result = collbench("report", damaged)
        assert_clean_end(result, damaged, f"report, seed {seed}")
        if CRASHED_HDF5 in result.stderr:
            crashed.append(seed)
            assert result.returncode == 2 and result.stdout == ""
    print(f"{len(crashed)} of {SEEDS} copies crashed HDF5: seeds {crashed}")
    assert len(crashed) >= 2  # the control: damage that a reader without the guard dies of
    # Every command on those, and on as many other copies.
    others = [seed for seed in range(SEEDS) if seed not in crashed][:len(crashed)]
    for seed in crashed + others:
        damaged = damaged_copy(intact, tmp_path, seed)
        for name, args in commands(damaged, intact, tmp_path).items():
            result = collbench(*args)
            assert_clean_end(result, damaged, f"{name}, seed {seed}")
            if seed in crashed:
                assert CRASHED_HDF5 in result.stderr, (name, seed, result.stderr[-2000:])


@pytest.mark.parametrize("kept", [0.01, 0.1, 0.3, 0.5, 0.9, 0.999])
def test_a_cut_file_is_bad_input_naming_it(intact, tmp_path, kept):
    cut = tmp_path / "cut.h5"
    data = intact.read_bytes()
    cut.write_bytes(data[:int(len(data) * kept)])
    for name, args in commands(cut, intact, tmp_path).items():
        result = collbench(*args)
        assert result.returncode == 2, (name, kept, result.stderr[-2000:])
        assert cut.name in result.stderr, (name, result.stderr)
