"""What ci/compare-osu and ci/compare-reprompi share: sizes, launching, reading collbench."""
import csv
import io
import shlex
import subprocess
import sys


def parse_bytes(text):
    text = text.strip().upper().rstrip("B")
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    return int(float(text[:-1] if scale > 1 else text) * scale)


def fmt_bytes(n):
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return str(n)


def run(cmd, env, timeout, echo=True):
    if echo:
        print("$ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    try:
        res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except (subprocess.TimeoutExpired, OSError) as err:
        sys.exit(f"FAILED: {' '.join(cmd)}\n{err}")
    if res.returncode != 0:
        sys.exit(f"FAILED (rc {res.returncode}): {' '.join(cmd)}\n"
                 f"--- stdout ---\n{res.stdout[-4000:]}\n--- stderr ---\n{res.stderr[-4000:]}")
    return res.stdout


def mpirun_prefix(np_, cores):
    cmd = ["mpirun", "-np", str(np_)]
    if np_ > cores:
        # Open MPI 4.1.4 refuses more ranks than cores without --oversubscribe,
        # and refuses plain `--bind-to core` once cores are overloaded; the
        # overload-allowed qualifier binds ranks round-robin to cores. Yielding
        # keeps busy-polling ranks from starving the ones sharing their core.
        return cmd + ["--oversubscribe", "--bind-to", "core:overload-allowed",
                      "--mca", "mpi_yield_when_idle", "1"]
    return cmd + ["--bind-to", "core"]


def parse_report(text, field="time_median_us", mode="latency"):
    """{size: field} of the out-of-place rows of `mode` of `collbench report --format csv`;
    sizes where the field is null (not stated) are left out."""
    return {int(r["size_bytes"]): float(r[field])
            for r in csv.DictReader(io.StringIO(text))
            if r["mode"] == mode and r.get("in_place", "false") == "false"
            and r.get(field, "null") not in ("", "null")}


def h5py_python():
    for exe in (sys.executable, "/usr/bin/python3"):
        if subprocess.run([exe, "-c", "import h5py"], capture_output=True).returncode == 0:
            return exe
    return None
