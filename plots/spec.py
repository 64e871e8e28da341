"""The busbw floors of an acceptance spec (ci/acceptance/*.toml), to draw as threshold lines."""
import re
import tomllib

from plots.sizes import parse_size

_RATES = {"b/s": 1e-9 / 8, "kb/s": 1e-6 / 8, "mb/s": 1e-3 / 8, "gb/s": 1 / 8,
          "B/s": 1e-9, "KB/s": 1e-6, "MB/s": 1e-3, "GB/s": 1.0, "TB/s": 1e3}


class SpecError(Exception):
    pass


def _rate_GBps(text):
    match = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([KMGT]?B/s|[kmg]?b/s)\s*", str(text))
    if not match:
        raise SpecError(f"busbw_min {text!r}: expected a rate like '400 GB/s'")
    return float(match.group(1)) * _RATES[match.group(2)]


def _size_range(text):
    """'1G-8G' -> (1 GiB, 8 GiB); '8G' -> (8 GiB, 8 GiB); None -> every size."""
    if text is None:
        return 0, float("inf")
    low, _, high = str(text).partition("-")
    return parse_size(low) if low else 0, (parse_size(high) if high else
                                           (parse_size(low) if not _ else float("inf")))


def busbw_floors(path):
    """[{name, collective, placement, nranks, min_size, max_size, busbw_GBps}] of the spec."""
    try:
        with open(path, "rb") as f:
            spec = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise SpecError(f"{path}: {error}") from None
    floors = []
    for rule in spec.get("rule", []):
        if "busbw_min" not in rule:
            continue
        low, high = _size_range(rule.get("sizes"))
        floors.append({"name": rule.get("name", "rule"), "collective": rule.get("collective"),
                       "placement": rule.get("placement"), "nranks": rule.get("nranks"),
                       "min_size": low, "max_size": high,
                       "busbw_GBps": _rate_GBps(rule["busbw_min"])})
    return floors
