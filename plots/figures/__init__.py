"""One module per figure; FIGURES maps the CLI's names to them, in the order they are drawn."""
from plots.figures import (busbw, compare, distribution, heatmap, latency, links, predict, ranks,
                           trend)

FIGURES = {
    "busbw": busbw.draw,
    "latency": latency.draw,
    "ranks": ranks.draw,
    "ranks-distribution": distribution.draw,
    "heatmap": heatmap.draw,
    "compare": compare.draw,
    "trend": trend.draw,
    "links": links.draw,   # a file of `collbench links` has this figure alone
    "predict": predict.draw,   # a file of `collbench predict` has this figure alone
}

# A rank's own times, not the slowest rank's: the report shows them beside the stragglers.
PER_RANK = ("ranks-distribution", "heatmap")
