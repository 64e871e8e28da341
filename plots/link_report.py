"""The HTML page of a `collbench links` file, the answer first: the slow hosts and links by name,
or that there are none; then the links figure; then every link's model; the provenance last."""
import html

from plots import report
from plots.figures.links import named_by_rank, pair_name, slow_rows


def _bandwidth(value):
    """As `collbench links` prints it: '-' for a direction it has no point of."""
    return f"{value:.3f}" if value > 0 else "-"


def _answer(links):
    if not links.fits:
        return (f"<p><b>No link models</b>: `collbench links` writes them when it finishes, and "
                f"this run did not ({len(links.points.get('mode', []))} link points kept).</p>")
    percent = round(100 * links.shortfall)
    h, f = links.slow_hosts, links.fits
    by_rank = named_by_rank(f)
    lines = [f"Slow host: {h['name'][i]} ({h['kind'][i]}): its links' median "
             f"{h['typical_GBps'][i]:.3f} GB/s, the median host's {h['median_GBps'][i]:.3f} GB/s "
             f"(more than {percent}% below)" for i in range(len(h.get("name", [])))]
    lines += [f"Slow link: {pair_name(f, i, by_rank)} ({f['kind'][i]}): "
              f"{f['bandwidth_GBps'][i]:.3f} GB/s (more than {percent}% below its hosts' "
              "typical link)" for i in slow_rows(f)]
    if not lines:
        lines = [f"No slow link or host: none more than {percent}% below its peers"]
    return "".join(f"<p><b>{html.escape(line)}</b></p>" for line in lines)


def _models(links):
    f = links.fits
    if not f:
        return ""
    by_rank = named_by_rank(f)
    rows = [[pair_name(f, i, by_rank), f["kind"][i], f["transport"][i], f"{f['alpha_us'][i]:.2f}",
             _bandwidth(f["bandwidth_GBps"][i]), _bandwidth(f["forward_GBps"][i]),
             _bandwidth(f["backward_GBps"][i]), _bandwidth(f["bidirectional_GBps"][i]),
             "SLOW" if f["slow"][i] else ""] for i in range(len(f["first_rank"]))]
    return ("<p>T(n) = alpha + n / bandwidth, one way: alpha the link's latency, the bandwidth "
            "the slower direction's at the largest size (forward: first to second; "
            "bidirectional: both ways at once, together).</p>"
            + report.table(["pair", "kind", "transport", "alpha (us)", "bandwidth (GB/s)",
                            "forward (GB/s)", "backward (GB/s)", "bidirectional (GB/s)", "slow"],
                           rows))


def render(result, figures, fmt, command_line):
    """figures: [(name, bytes)] already rendered in fmt. Returns the page as str."""
    a = result.attrs
    where = " · ".join(str(x) for x in (
        f"UCX {a.get('backend_version', '?')}", f"links between {a.get('between', '?')}",
        f"{a.get('nranks', '?')} ranks on {a.get('nodes', '?')} node(s)", a.get("start_utc")) if x)
    body = f"""<h2 id="summary">Summary</h2>{_answer(result.links)}
<h2 id="figures">Figures</h2>{"".join(report.figure_html(n, fmt, c) for n, c in figures)}
<h2 id="links">Links</h2>{_models(result.links)}"""
    return report.page(result, where, body, command_line)
