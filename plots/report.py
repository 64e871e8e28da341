"""One self-contained HTML page, the answer first: a summary per curve (peak bus bandwidth and
where it is reached, the latency at the smallest size, the crossover n½) and the verdicts of a
spec or a baseline when given; measured over predicted from the fabric's links when `fit --links`
judged the run; then the figures, inline (SVG) or as base64 PNG, the per-rank ones beside the
stragglers named and the run's binding warning (when it recorded one); then the tables
(points as nccl-tests prints them, each curve's headline, the segments, the crossovers); the
provenance last, folded. It can be mailed or attached to a ticket. A links file has its own page
(link_report.py) around the same table, figure and provenance helpers."""
import base64
import html

import numpy as np

from plots import link_bounds
from plots.figures import PER_RANK
from plots.figures.common import binding_warning, headline_row, label, preferred_mode
from plots.resultfile import CURVE_KEY, curves, key_dict
from plots.sizes import format_size

_PROVENANCE = ("command_line", "collbench_version", "git_revision", "backend", "backend_version",
               "hosts", "nranks", "nodes", "ranks_per_node", "placement", "start_utc", "end_utc",
               "complete", "slurm_job_id", "slurm_step_id", "slurm_job_nodelist",
               "slurm_partition", "slurm_array_job_id", "slurm_array_task_id",
               "nccl_version_library", "cuda_runtime_version", "cuda_driver_version", "gpu_name",
               "bootstrap", "between", "memory", "ucx_TLS", "ucx_NET_DEVICES",
               "binding", "binding_warning")


def table(header, rows):
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>"
                   for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _g(value, digits=4):
    if np.isposinf(value):
        return "unbounded"
    return f"{value:.{digits}g}" if np.isfinite(value) else "–"


def _bandwidth(value_GBps, beta_ci_low, beta_ci_high):
    """1/beta with its interval: the ends swap under the inversion, and a beta interval that
    reaches 0 leaves the bandwidth unbounded above (never a negative upper end)."""
    high = 1 / beta_ci_low if beta_ci_low > 0 else np.inf
    low = 1 / beta_ci_high if beta_ci_high > 0 else np.inf
    return f"{_g(value_GBps if value_GBps > 0 else np.inf)} [{_g(low)}, {_g(high)}]"


_MODE = CURVE_KEY.index("mode")


def _with_mode(key, mode):
    return key[:_MODE] + (mode,) + key[_MODE + 1:]


def _summary(result):
    """Per curve of the headline mode (bandwidth, as nccl-tests; else latency): the peak bus
    bandwidth and its size, the latency-mode median at the smallest size, and the headline's
    n½ where the fit is trusted."""
    p, h = result.points, result.headlines
    mode = preferred_mode(p, ("bandwidth", "latency"))
    latency = curves(p, "latency")
    rows = []
    for key, curve in curves(p, mode).items():
        # An implausible point's busbw is no peak this host reached.
        plausible = [i for i in curve if not _implausible(p, i)] or curve
        peak = max(plausible, key=lambda i: p["busbw_GBps"][i])
        small = latency.get(_with_mode(key, "latency"))
        smallest = min(small, key=lambda i: p["size_bytes"][i]) if small else None
        row = headline_row(result, _with_mode(key, "latency"))
        half = "–"
        if row is not None and h["trusted"][row]:
            half = (f"{format_size(h['half_size_bytes'][row])} "
                    f"[{format_size(h['half_size_ci_low_bytes'][row])}, "
                    f"{format_size(h['half_size_ci_high_bytes'][row])}]")
        rows.append([f"{label(key)} · {key_dict(key)['datatype']}", _g(p["busbw_GBps"][peak], 3),
                     format_size(p["size_bytes"][peak]),
                     f"{_g(p['time_median_us'][smallest])} at {format_size(p['size_bytes'][smallest])}"
                     if smallest is not None else "–", half])
    return (f"<p>Bus bandwidth from {mode}-mode points; n½ from trusted latency-mode fits "
            "(the size below which latency dominates).</p>"
            + table(["curve", "peak busbw (GB/s)", "at size", "latency (us)",
                     "n½ [95% CI]"], rows))


def _verdicts(verdicts):
    """check's and compare's verdicts (their JSON), when a spec or a baseline was given."""
    out = []
    check = verdicts.get("check")
    if check:
        rows = [[r["verdict"], r["name"], r["selection"], r["threshold"]["text"], r["message"]]
                for r in check["rules"]]
        out.append(f"<p><b>Acceptance ({html.escape(check['title'])}): {check['verdict']}</b></p>"
                   + table(["verdict", "rule", "selection", "threshold", "detail"], rows))
    compare = verdicts.get("compare")
    if compare:
        s = compare["summary"]
        out.append(f"<p><b>Against {html.escape(compare['base'])}: {compare['verdict']}</b> "
                   f"({s['points']} points: {s['same']} same, {s['faster']} faster, "
                   f"{s['slower']} slower, {s['noisy']} noisy, {s['unsure']} unsure; "
                   f"{s['unmatched']} unmatched)</p>")
        out.extend(f"<p>{html.escape(note)}</p>" for note in compare["notes"])
    return "".join(out)


def _link_bounds(result):
    """Against the fabric's links, when `collbench fit --links` judged the run: how close each
    curve comes to what its links allow, then every point."""
    bounds = result.link_bounds
    if not bounds.links_file:
        return ""
    title = (f'<h2 id="link-bounds">Against the fabric\'s links ({html.escape(bounds.links_file)}, '
             f"measured {html.escape(bounds.links_start_utc)})</h2>")
    if not bounds.columns:
        return title + "<p>No point judged: the links file holds no link between its hosts.</p>"
    return (title + "<p>Ratio: the measured time over the fastest textbook algorithm's time on "
            "the slowest link the point crosses, reductions free; 1 is as fast as the links "
            "allow. At small sizes read latency mode: bandwidth-mode times overlap operations.</p>"
            + table(["curve", "points", "ratio at smallest size", "ratio at largest size",
                     "median ratio"], link_bounds.curve_rows(result))
            + table(["curve", "size", "kind", "algorithm", "alpha (us)", "bandwidth (GB/s)",
                     "predicted (us)", "measured (us)", "ratio"], link_bounds.point_rows(result)))


def _wrong(p, i):
    """#wrong as the terminal table shows it: the check that found more; files before schema 19
    checked before timing only."""
    after = p.get("wrong_after_timing")
    return p["wrong"][i] if after is None else max(p["wrong"][i], after[i])


def _implausible(p, i):
    """The point's plausibility mark (harness/plan/plausibility.h) in words; empty when none, or
    in files before schema 19, which judged none."""
    marks = p.get("implausible")
    return "" if marks is None else marks[i].replace("_", " ")


def _points_sections(result):
    """nccl-tests' columns (time, algbw, busbw from bandwidth mode) then latency median and p99,
    one table per collective, placement and rank count, as the terminal table has."""
    p = result.points
    sections = {}  # (collective, placement, nranks, tuning, in place) -> (title, rows by size)
    for key, rows in curves(p).items():
        k = key_dict(key)
        _, section = sections.setdefault((k["collective"], k["placement"], k["nranks"],
                                          k["algorithm"], k["protocol"], k["in_place"]),
                                         (label(key), {}))
        for i in rows:
            section.setdefault((k["datatype"], k["redop"], int(p["size_bytes"][i])), {})[k["mode"]] = i
    implausible = sum(bool(_implausible(p, i)) for i in range(result.point_count()))
    out = [f"<p><b>{implausible} points are implausible</b>: faster than this host copies "
           "memory of their size, or than a call that moves nothing (their last column); a "
           "collective that did not do its work looks like that. Their busbw is left out of the "
           "peaks above.</p>"] if implausible else []
    for title, by_size in sections.values():
        rows = []
        for (datatype, redop, size), modes in by_size.items():
            bw = modes.get("bandwidth", modes.get("latency"))
            lat = modes.get("latency")
            marks = {_implausible(p, i) for i in modes.values()} - {""}
            rows.append([size, p["count"][bw], datatype, redop, _g(p["time_median_us"][bw]),
                         _g(p["algbw_GBps"][bw], 3), _g(p["busbw_GBps"][bw], 3), _wrong(p, bw),
                         _g(p["time_median_us"][lat]) if lat is not None else "–",
                         _g(p["time_p99_us"][lat]) if lat is not None else "–",
                         ", ".join(sorted(marks))])
        out.append(f"<h3>{html.escape(title)}</h3>" + table(
            ["size (B)", "count", "type", "redop", "time (us)", "algbw (GB/s)", "busbw (GB/s)",
             "#wrong", "latency median (us)", "latency p99 (us)", "implausible"], rows))
    return "".join(out)


def _headlines(result):
    h = result.headlines
    if not h:
        return ("<p>No headlines in this file (no fits, or fitted before schema 5); run "
                "<code>collbench fit FILE</code>.</p>")
    rows = []
    for i in range(len(h["collective"])):
        position = ("below the smallest size" if h["half_size_ci_high_bytes"][i] < h["min_size_bytes"][i]
                    else "beyond the largest size" if h["half_size_ci_low_bytes"][i] > h["max_size_bytes"][i]
                    else "")
        falls = (f"falls from {_g(h['peak_bandwidth_GBps'][i], 3)} GB/s above "
                 f"{format_size(h['bandwidth_falls_at_bytes'][i])}"
                 if h["bandwidth_falls_at_bytes"][i] else "")
        rows.append([f"{h['collective'][i]} · {h['datatype'][i]} · {h['placement'][i]} · "
                     f"{h['nranks'][i]} ranks", h["mode"][i],
                     f"{format_size(h['half_size_bytes'][i])} [{format_size(h['half_size_ci_low_bytes'][i])}, "
                     f"{format_size(h['half_size_ci_high_bytes'][i])}] {position}",
                     f"{_g(h['alpha_us'][i])} [{_g(h['alpha_ci_low_us'][i])}, {_g(h['alpha_ci_high_us'][i])}]",
                     f"{_bandwidth(h['bandwidth_GBps'][i], h['beta_ci_low_ns_per_byte'][i], h['beta_ci_high_ns_per_byte'][i])} {falls}",
                     f"{100 * h['misfit_median_rel_error'][i]:.1f}%",
                     "yes" if h["trusted"][i] else f"no: {h['flags'][i]}"])
    return table(["curve", "mode", "n½: latency dominates below [95% CI]", "alpha (us) [95% CI]",
                  "bandwidth (GB/s) [95% CI]", "misfit", "trusted"], rows)


def _fits(result):
    f = result.fits
    if not f:
        return "<p>No fits in this file; run <code>collbench fit FILE</code>.</p>"
    rows = []
    for i in range(len(f["collective"])):
        if f["segments"][i] == 0:
            continue
        rows.append([f"{f['collective'][i]} · {f['placement'][i]} · {f['nranks'][i]} ranks",
                     f["mode"][i], f"{f['segment'][i] + 1}/{f['segments'][i]}",
                     f"{format_size(f['min_size_bytes'][i])} – {format_size(f['max_size_bytes'][i])}",
                     f"{_g(f['alpha_us'][i])} [{_g(f['alpha_ci_low_us'][i])}, {_g(f['alpha_ci_high_us'][i])}]",
                     _bandwidth(f["bandwidth_GBps"][i], f["beta_ci_low_ns_per_byte"][i],
                                f["beta_ci_high_ns_per_byte"][i]),
                     f"{format_size(f['half_size_bytes'][i])} [{format_size(f['half_size_ci_low_bytes'][i])}, "
                     f"{format_size(f['half_size_ci_high_bytes'][i])}]",
                     "yes" if f["trusted"][i] else f"no: {f['flags'][i]}"])
    return table(["curve", "mode", "segment", "sizes", "alpha (us) [95% CI]",
                  "1/beta (GB/s) [95% CI]", "n½ [95% CI]", "trusted"], rows)


def _crossovers(result):
    c = result.crossovers
    if not c:
        return "<p>No crossovers (the file holds no curve at several rank counts).</p>"
    rows = [[f"{c['collective'][i]} · {c['placement'][i]}", c["mode"][i], c["family"][i],
             format_size(c["size_bytes"][i]),
             f"{_g(c['crossover_ranks'][i])} [{_g(c['crossover_ranks_ci_low'][i])}, "
             f"{_g(c['crossover_ranks_ci_high'][i])}]",
             c["max_ranks_measured"][i], "yes" if c["extrapolated"][i] else "no"]
            for i in range(len(c["collective"]))]
    return table(["curve", "mode", "family", "size", "p* [95% CI]", "largest p measured",
                  "extrapolated"], rows)


def figure_html(name, fmt, content):
    if fmt == "svg":
        svg = content.decode("utf-8")
        return f"<h3>{html.escape(name)}</h3>" + svg[svg.find("<svg"):]
    encoded = base64.b64encode(content).decode("ascii")
    return (f"<h3>{html.escape(name)}</h3>"
            f'<img alt="{html.escape(name)}" src="data:image/png;base64,{encoded}">')


def _per_rank(result, figures, fmt):
    """The run's binding warning first, when it recorded one: under it a rank's own times are
    the scheduler's as much as the rank's. Then whom /stragglers names, then the per-rank
    figures."""
    warning = binding_warning(result)
    out = [f'<p class="warning"><b>Measured with a warning:</b> '
           f'{html.escape(warning.rstrip("."))}. The stragglers and the per-rank figures below '
           "were measured so.</p>" if warning else ""]
    s = result.stragglers
    if s is None:
        out.append("<p>No stragglers tested (a run killed before its end, or written before "
                   "schema 12); <code>collbench fit FILE</code> tests them.</p>")
    elif not len(s["rank"]):
        out.append("<p>No rank or host finished last or started late more often than chance.</p>")
    else:
        rows = [[f"rank {s['rank'][i]}" if s["rank"][i] >= 0 else "the host", s["host"][i],
                 s["kind"][i], f"{s['points_last'][i]} of {s['points'][i]}",
                 _g(s["p_value"][i], 2), _g(s["median_lag_us"][i], 3)]
                for i in range(len(s["rank"]))]
        out.append(table(["straggler", "host", "kind", "points last", "p", "median lag (us)"],
                         rows))
    out += [figure_html(n, fmt, c) for n, c in figures]
    return '<h2 id="per-rank">Stragglers and per-rank times</h2>' + "".join(out)


def _trend(trend):
    """Every point with a change point over the nights, and where: the trend figure's table."""
    if trend is None:
        return ""
    rows = []
    for p in trend["points"]:
        for c in p["changes"]:
            rows.append([p["collective"], p["placement"], p["nranks"], p["mode"],
                         format_size(p["size_bytes"]), c["run"] + 1,
                         _g(c["before_us"]), _g(c["after_us"]), f"{c['change']:+.1%}",
                         _g(c["p_value"], 2), p["verdict"]])
    summary = trend["summary"]
    text = (f"<p>{len(trend['runs'])} runs, {summary['points']} points: {summary['slower']} "
            f"slower, {summary['faster']} faster, {summary['same']} without a change, "
            f"{summary['unsure']} with too few runs.</p>")
    changes = table(["collective", "placement", "ranks", "mode", "size", "run", "before (us)",
                     "after (us)", "change", "p", "verdict"], rows) if rows else ""
    return f'<h2 id="trend">Trend</h2>{text}{changes}'


def page(result, where, body, command_line):
    """The page around `body`: a title, `where` the run was, and the provenance last, folded."""
    a = result.attrs
    provenance = [[k, ", ".join(map(str, a[k])) if isinstance(a[k], list) else a[k]]
                  for k in _PROVENANCE if k in a]
    provenance.append(["plotted with", command_line])
    provenance += [[f"env {k}", v] for k, v in sorted(result.environment.items())]
    title = f"collbench results: {result.path.name}"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:1400px}}
table{{border-collapse:collapse;margin-bottom:1em;font-size:13px}}
td,th{{border:1px solid #ccc;padding:2px 6px;text-align:right}}th{{background:#eee}}
img,svg{{max-width:100%;height:auto}}.warning{{color:#b22222}}</style></head><body>
<h1>{html.escape(title)}</h1>
<p>{html.escape(where)}</p>
{body}
<details id="provenance"><summary>Provenance ({len(provenance)} items)</summary>
{table(["item", "value"], provenance)}</details>
</body></html>
"""


def render(result, figures, fmt, command_line, trend=None, verdicts=None):
    """figures: [(name, bytes)] already rendered in fmt; trend: collbench trend's JSON, if any;
    verdicts: {"check": ..., "compare": ...}, their JSON, when a spec or baseline was given.
    Returns the page as str."""
    a = result.attrs
    where = " · ".join(str(x) for x in (a.get("backend_version") or a.get("backend"),
                                        f"{a.get('nranks', '?')} ranks on {a.get('nodes', '?')} node(s)",
                                        a.get("start_utc")) if x)
    shared = [(n, c) for n, c in figures if n not in PER_RANK]
    per_rank = [(n, c) for n, c in figures if n in PER_RANK]
    body = f"""<h2 id="summary">Summary</h2>{_verdicts(verdicts or {})}{_summary(result)}
{_link_bounds(result)}
<h2 id="figures">Figures</h2>{"".join(figure_html(n, fmt, c) for n, c in shared)}
{_per_rank(result, per_rank, fmt)}
{_trend(trend)}
<h2 id="points">Points</h2>{_points_sections(result)}
<h2 id="headlines">Crossover per curve</h2>{_headlines(result)}
<h2 id="fits">Segments</h2>{_fits(result)}
<h2 id="crossovers">Crossovers</h2>{_crossovers(result)}"""
    return page(result, where, body, command_line)
