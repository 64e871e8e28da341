"""The busbw floors of an acceptance spec (ci/acceptance/*.toml), to draw as threshold lines.

The spec is parsed by the collbench binary (`collbench check --spec SPEC --format json`), so its
units and sizes mean here exactly what `collbench check` judges by."""
import json
import os
import pathlib
import subprocess


class SpecError(Exception):
    pass


def _binary():
    """The collbench that runs us (`collbench plot` sets COLLBENCH), else the repository's build."""
    default = pathlib.Path(__file__).resolve().parents[1] / "build" / "harness" / "collbench"
    return os.environ.get("COLLBENCH") or str(default)


def busbw_floors(path):
    """[{name, collective, placement, min_size, max_size, busbw_GBps}] of the spec's busbw_min
    rules; min_size and max_size in bytes, max_size inf when open."""
    try:
        done = subprocess.run([_binary(), "check", "--spec", str(path), "--format", "json"],
                              capture_output=True, text=True, timeout=60)
    except OSError as error:
        raise SpecError(f"{path}: cannot run collbench to read the spec: {error}") from None
    if done.returncode != 0:
        raise SpecError(done.stderr.strip() or f"{path}: collbench check exited {done.returncode}")
    floors = []
    for rule in json.loads(done.stdout)["rules"]:
        if rule["threshold"]["key"] != "busbw_min":
            continue
        selected = rule["selected"]
        high = selected["size_max_bytes"]
        floors.append({"name": rule["name"], "collective": selected["collective"],
                       "placement": selected["placement"], "min_size": selected["size_min_bytes"],
                       "max_size": float("inf") if high is None else high,
                       "busbw_GBps": rule["threshold"]["floor"]})
    return floors
