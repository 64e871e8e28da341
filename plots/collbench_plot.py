#!/usr/bin/env python3
"""collbench plot: figures and an HTML report from a collbench HDF5 result file.

collbench_plot.py FILE.h5 [-o DIR] [--format png|svg] [--figures NAME,...] [--size BYTES]
                  [--spec SPEC.toml] [--baseline BASE.h5] [--trend TREND.json] [--report]

Exit 0 on success, 2 on bad usage or input (one line on stderr, no file written)."""
import argparse
import io
import os
import pathlib
import shlex
import sys
import tempfile

# Run as a script by `collbench plot`: make the `plots` package importable from the repository.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from plots import binary, link_report, report, resultfile, spec as specfile  # noqa: E402
from plots.figures import FIGURES  # noqa: E402
from plots.figures import trend as trend_figure  # noqa: E402
from plots.figures.common import FigureError, FigureSkipped, Options  # noqa: E402
from plots.sizes import parse_size  # noqa: E402


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def parse_args(argv):
    parser = _Parser(prog="collbench plot", description=__doc__.splitlines()[0])
    parser.add_argument("file", type=pathlib.Path)
    parser.add_argument("-o", "--out", type=pathlib.Path,
                        help="folder, made if missing (default: FILE's)")
    parser.add_argument("--format", choices=("png", "svg"), default="png")
    parser.add_argument("--figures", help="comma-separated: " + ", ".join(FIGURES))
    parser.add_argument("--size", help="size for ranks / ranks-distribution (e.g. 1M)")
    parser.add_argument("--spec", type=pathlib.Path, help="acceptance spec: busbw floors")
    parser.add_argument("--busbw-scale", choices=("linear", "log"), default="linear",
                        help="the busbw figure's axis (linear shows a plateau as flat)")
    parser.add_argument("--baseline", type=pathlib.Path, help="baseline file for 'compare'")
    parser.add_argument("--trend", type=pathlib.Path,
                        help="`collbench trend --format json` output for 'trend'")
    parser.add_argument("--report", action="store_true", help="also write <stem>-report.html")
    return parser.parse_args(argv)


# Files that are not runs have one figure of their own, and none of a run's: name -> whose.
SOLE_FIGURES = {"links": "`collbench links`", "predict": "`collbench predict`"}


def sole_figure(result):
    """The one figure of a links or predictions file; None for a run's file."""
    return "links" if result.is_links else "predict" if result.is_predictions else None


def plan(args, result):
    """(figure names, explicitly asked?) after checking every name. A links or predictions file
    has no points: its one figure is its own, and what a run's figures take does not apply to
    it."""
    sole = sole_figure(result)
    if args.figures is None:
        explicit = False
        names = [sole] if sole else [
            n for n in FIGURES if n not in SOLE_FIGURES and (n != "compare" or args.baseline) and
            (n != "trend" or args.trend)]
    else:
        explicit = True
        names = [n.strip() for n in args.figures.split(",") if n.strip()]
        unknown = [n for n in names if n not in FIGURES]
        if unknown:
            raise UsageError(f"unknown figure {', '.join(unknown)}; known: {', '.join(FIGURES)}")
    if sole:
        foreign = [f"figure '{n}'" for n in names if n != sole]
        foreign += [f"--{o}" for o in ("spec", "baseline", "trend") if getattr(args, o)]
        if foreign:
            raise UsageError(f"{args.file} is a file of {SOLE_FIGURES[sole]}, whose one figure is "
                             f"'{sole}': {', '.join(foreign)} needs a run's points")
    if result.is_predictions and args.report:
        raise UsageError(f"{args.file} is a file of `collbench predict`, which has no report: "
                         "`collbench predict` prints its table")
    return names, explicit


def verdicts_of(args):
    """The report's verdicts: check's against --spec, compare's against --baseline (exit 1, a
    failed rule or a slower point, is a verdict, not an error)."""
    verdicts = {}
    if args.spec:
        verdicts["check"] = binary.run_json(["check", args.file, "--spec", args.spec], (0, 1))
    if args.baseline:
        verdicts["compare"] = binary.run_json(["compare", args.baseline, args.file], (0, 1))
    return verdicts


def render(plot, fmt):
    import matplotlib.pyplot as plt
    buffer = io.BytesIO()
    plot.figure.savefig(buffer, format=fmt, dpi=110)
    plt.close(plot.figure)
    return buffer.getvalue()


def missing_folders(folder):
    """folder and those of its parents that do not exist, deepest first."""
    return [f for f in (folder, *folder.parents) if not f.exists()]


def write_all(outputs):
    """Every file goes to a temporary name first and is renamed only once all were rendered, so a
    failure leaves nothing half-written; folders that -o named and did not exist are made here,
    and removed again on a failure."""
    created = sorted({f for path, _ in outputs for f in missing_folders(path.parent)},
                     key=lambda f: len(f.parts), reverse=True)
    temporaries = []
    # mkstemp makes owner-only files; figures and reports are for publishing, so they get the
    # permissions any new file would (the umask's).
    umask = os.umask(0)
    os.umask(umask)
    try:
        for folder in reversed(created):
            folder.mkdir()
        for path, content in outputs:
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
            temporaries.append(temporary)
            os.fchmod(handle, 0o666 & ~umask)
            with os.fdopen(handle, "wb") as f:
                f.write(content)
        for (path, _), temporary in zip(outputs, temporaries):
            os.replace(temporary, path)
            print(path)
    except BaseException:
        for temporary in temporaries:
            if os.path.exists(temporary):
                os.unlink(temporary)
        for folder in created:
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
        raise


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = parse_args(argv)
        result = resultfile.load(args.file)
        if not result.is_predictions and int(result.attrs.get("complete", 0)) != 1:
            kept = (f"{len(next(iter(result.links.points.values()), []))} link points"
                    if result.is_links else f"{result.point_count()} points")
            print(f"# note: {args.file} is from a run that did not finish; it holds the {kept} "
                  "finished before it stopped", file=sys.stderr)
        names, explicit = plan(args, result)
        if "compare" in names and args.baseline is None:
            raise UsageError("figure 'compare' needs --baseline BASE.h5")
        if "trend" in names and args.trend is None:
            raise UsageError("figure 'trend' needs --trend TREND.json (collbench trend --format "
                             "json)")
        options = Options(size=parse_size(args.size) if args.size else None,
                          spec=specfile.busbw_floors(args.spec) if args.spec else None,
                          baseline=resultfile.load(args.baseline) if args.baseline else None,
                          trend=trend_figure.load(args.trend) if args.trend else None,
                          busbw_scale=args.busbw_scale)
        out = args.out or args.file.resolve().parent
        if out.exists() and not out.is_dir():
            raise UsageError(f"-o {out}: not a folder")
        rendered = []
        for name in names:
            try:
                plot = FIGURES[name](result, options)
            except FigureSkipped as skipped:
                if explicit:
                    raise FigureError(str(skipped)) from None
                print(f"# note: {skipped}; skipped")
                continue
            except FigureError:
                # Fit figures are only an error when asked for; by default they step aside.
                if explicit or (name != "latency" and name != "ranks") or result.fits:
                    raise
                print(f"# note: no fits in {args.file}, figures latency and ranks skipped; "
                      f"run `collbench fit {args.file}`")
                continue
            rendered.append((name, render(plot, args.format)))
        stem = args.file.stem
        outputs = [(out / f"{stem}-{name}.{args.format}", content) for name, content in rendered]
        if args.report:
            command = "collbench plot " + " ".join(shlex.quote(a) for a in argv)
            page = (link_report.render(result, rendered, args.format, command)
                    if result.is_links else
                    report.render(result, rendered, args.format, command, options.trend,
                                  verdicts_of(args)))
            outputs.append((out / f"{stem}-report.html", page.encode("utf-8")))
        write_all(outputs)
    except (UsageError, resultfile.ResultFileError, specfile.SpecError, binary.BinaryError,
            FigureError, ValueError) as error:
        print(f"collbench plot: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
