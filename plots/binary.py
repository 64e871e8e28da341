"""The collbench binary, asked for what it alone decides: a spec's rules and units, check's and
compare's verdicts. `collbench plot` sets COLLBENCH to itself; else the repository's build."""
import json
import os
import pathlib
import subprocess


class BinaryError(Exception):
    pass


def path():
    default = pathlib.Path(__file__).resolve().parents[1] / "build" / "harness" / "collbench"
    return os.environ.get("COLLBENCH") or str(default)


def run_json(args, accept=(0,)):
    """collbench ARGS --format json, parsed; BinaryError with its message on another exit code."""
    try:
        done = subprocess.run([path(), *map(str, args), "--format", "json"], capture_output=True,
                              text=True, timeout=300)
    except OSError as error:
        raise BinaryError(f"cannot run collbench ({path()}): {error}") from None
    if done.returncode not in accept:
        raise BinaryError(done.stderr.strip() or f"collbench {args[0]} exited {done.returncode}")
    return json.loads(done.stdout)
