"""The busbw floors of an acceptance spec (ci/acceptance/*.toml), to draw as threshold lines.

The spec is parsed by the collbench binary (`collbench check --spec SPEC --format json`), so its
units and sizes mean here exactly what `collbench check` judges by."""
from plots import binary


class SpecError(Exception):
    pass


def busbw_floors(path):
    """[{name, collective, placement, min_size, max_size, busbw_GBps}] of the spec's busbw_min
    rules; min_size and max_size in bytes, max_size inf when open."""
    try:
        rules = binary.run_json(["check", "--spec", path])["rules"]
    except binary.BinaryError as error:
        raise SpecError(str(error)) from None
    floors = []
    for rule in rules:
        if rule["threshold"]["key"] != "busbw_min":
            continue
        selected = rule["selected"]
        high = selected["size_max_bytes"]
        floors.append({"name": rule["name"], "collective": selected["collective"],
                       "placement": selected["placement"], "min_size": selected["size_min_bytes"],
                       "max_size": float("inf") if high is None else high,
                       "busbw_GBps": rule["threshold"]["floor"]})
    return floors
