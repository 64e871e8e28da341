"""links: the links of a `collbench links` file as a matrix, a row and a column per host (per
rank when several ranks of a host were measured): each link's fitted bandwidth, then its latency,
slow links outlined and slow hosts named. A slow NIC reads as a dark row and column, one bad
cable as a dark pair of cells."""
import matplotlib.patches as patches
import numpy as np

from plots.figures.common import FigureSkipped, Options, Plot, every_nth, new_figure

_MOST_NUMBERED = 16   # numbers fit in the cells only while the grid is this small
_MOST_NAMED = 6       # slow links named in the title; the report lists every one


def named_by_rank(fits):
    """Whether a host has several ranks among the links: they are then named by rank, as
    `collbench links` names them."""
    ranks_of_host = {}
    for side in ("first", "second"):
        for host, rank in zip(fits[f"{side}_host"], fits[f"{side}_rank"]):
            ranks_of_host.setdefault(host, set()).add(int(rank))
    return any(len(ranks) > 1 for ranks in ranks_of_host.values())


def end_name(rank, host, by_rank):
    return f"rank {rank} on {host}" if by_rank else host


def pair_name(fits, row, by_rank):
    """'h1 <-> h2', or 'rank 0 on h1 <-> rank 1 on h1'."""
    return " <-> ".join(end_name(int(fits[f"{side}_rank"][row]), fits[f"{side}_host"][row],
                                 by_rank) for side in ("first", "second"))


def slow_rows(fits):
    return [row for row, slow in enumerate(fits["slow"]) if slow]


def verdict(result):
    """'No slow link or host: ...', or the slow hosts and links by name: the answer, first."""
    links = result.links
    percent = round(100 * links.shortfall)
    hosts = list(links.slow_hosts.get("name", []))
    slow = slow_rows(links.fits)
    if not hosts and not slow:
        return f"No slow link or host: none more than {percent}% below its peers"
    by_rank = named_by_rank(links.fits)
    names = [pair_name(links.fits, row, by_rank) for row in slow[:_MOST_NAMED]]
    if len(slow) > _MOST_NAMED:
        names.append(f"+{len(slow) - _MOST_NAMED} more")
    # Three names a line: a longer title runs off the figure.
    names = ",\n".join(", ".join(names[i:i + 3]) for i in range(0, len(names), 3))
    parts = [f"slow host{'s' if len(hosts) > 1 else ''}: {', '.join(hosts)}" if hosts else None,
             f"slow link{'s' if len(slow) > 1 else ''} (outlined): {names}" if slow else None]
    text = ";\n".join(p for p in parts if p)
    return f"{text[0].upper()}{text[1:]} (more than {percent}% below their peers)"


def _matrices(fits):
    """(ranks, hosts, {column: [end, end] matrix}): each link's value in both of its cells, the
    diagonal NaN (blank); ends in rank order."""
    ends = sorted({(int(rank), host) for side in ("first", "second")
                   for rank, host in zip(fits[f"{side}_rank"], fits[f"{side}_host"])})
    index = {rank: i for i, (rank, _) in enumerate(ends)}
    matrices = {column: np.full((len(ends), len(ends)), np.nan)
                for column in ("bandwidth_GBps", "alpha_us")}
    for row in range(len(fits["first_rank"])):
        i, j = index[int(fits["first_rank"][row])], index[int(fits["second_rank"][row])]
        for column, matrix in matrices.items():
            matrix[i, j] = matrix[j, i] = fits[column][row]
    return [rank for rank, _ in ends], [host for _, host in ends], matrices


def _panel(figure, axis, matrix, labels, slow_cells, title, unit):
    # From 0, so that links a few percent apart look alike and only a real shortfall stands out.
    image = axis.imshow(matrix, cmap="viridis", vmin=0, vmax=float(np.nanmax(matrix)))
    shown = every_nth(len(labels))
    axis.set_xticks(shown, [labels[i] for i in shown], rotation=45, ha="right", fontsize=8)
    axis.set_yticks(shown, [labels[i] for i in shown], fontsize=8)
    if len(labels) <= _MOST_NUMBERED:
        for (i, j), value in np.ndenumerate(matrix):
            if np.isfinite(value):
                red, green, blue, _ = image.cmap(image.norm(value))
                light = 0.299 * red + 0.587 * green + 0.114 * blue > 0.5
                axis.text(j, i, f"{value:.3g}", ha="center", va="center", fontsize=7,
                          color="black" if light else "white")
    for i, j in slow_cells:
        axis.add_patch(patches.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False,
                                         edgecolor="red", linewidth=2.5))
    axis.set_title(title, fontsize=10)
    figure.colorbar(image, ax=axis, label=unit, shrink=0.8)


def draw(result, options: Options):
    if not result.is_links:
        raise FigureSkipped(f"{result.path} holds no links (`collbench links` writes them)")
    fits = result.links.fits
    if not fits:
        raise FigureSkipped(f"{result.path} holds no link models: `collbench links` writes "
                            "them when it finishes, and this run did not")
    by_rank = named_by_rank(fits)
    ranks, hosts, matrices = _matrices(fits)
    labels = [end_name(rank, host, by_rank) for rank, host in zip(ranks, hosts)]
    slow = [(ranks.index(int(fits["first_rank"][row])), ranks.index(int(fits["second_rank"][row])))
            for row in slow_rows(fits)]
    slow_cells = slow + [(j, i) for i, j in slow]
    figure, axes = new_figure(result, "Links, T(n) = alpha + n / bandwidth one way\n"
                              f"{verdict(result)}", panels=2, width=6.4, height=5.8)
    _panel(figure, axes[0], matrices["bandwidth_GBps"], labels, slow_cells,
           "bandwidth: the slower direction at the largest size", "GB/s")
    _panel(figure, axes[1], matrices["alpha_us"], labels, slow_cells,
           "alpha: one message's latency (lower is better)", "us")
    return Plot(figure, {"labels": labels, "ranks": ranks, "hosts": hosts,
                         "bandwidth_GBps": matrices["bandwidth_GBps"],
                         "alpha_us": matrices["alpha_us"],
                         "slow_links": [(labels[i], labels[j]) for i, j in slow],
                         "slow_hosts": list(result.links.slow_hosts.get("name", []))})
