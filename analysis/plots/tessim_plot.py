#!/usr/bin/python3
"""Plots of tessim sweep results (results.csv), written as PNG and SVG.

  heatmap  a metric over two parameters (the mean over any other parameter that varies, named in
           the title)
  pareto   one column against another, the non-dominated points (both minimised) joined and
           labelled with the parameters that tell them apart
  lines    metric(s) against a parameter, one line per value of --group (at most 20; the mean
           over any other parameter that varies, named in the title)
  cache-probe  latency and bandwidth against working-set size from `tessim probe cache --curves`
           (its JSON instead of a results.csv), written to --file
  compare  the CSV of `tessim compare`: time per layer per chip (grouped bars, log axis) and each
           chip's total time and energy, written to --file
  roofline  one `tessim run` report (its JSON): the compute roof, a bandwidth roof per level and the
           run at each level's intensity, written to --file
  calibration  the JSON of analysis/calibration/k1_memory_curves.py: per board column the board's
           and the model's bytes per cycle against the size, with the tolerance band, to --file

Called by `tessim plot` and `tessim sweep --plot`; runs with Debian's python3-matplotlib.
Values with units ("256 KiB", "1.6 GHz", "12 ns") are placed by their numeric value and
labelled as written.
"""
import argparse
import csv
import math
import os
import re
import sys

_UNITS = {
    "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "KB": 1e3, "MB": 1e6, "GB": 1e9,
    "Hz": 1, "kHz": 1e3, "MHz": 1e6, "GHz": 1e9,
    "B/s": 1, "KB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9,
    "KiB/s": 1 << 10, "MiB/s": 1 << 20, "GiB/s": 1 << 30,
    "ps": 1e-12, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1,
    "fJ": 1e-15, "pJ": 1e-12, "nJ": 1e-9, "uJ": 1e-6, "mJ": 1e-3, "J": 1,
    "uW": 1e-6, "mW": 1e-3, "W": 1,
}
_QUANTITY = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z/]+)?\s*$")


def number(text):
    """The value of a plain number or a quantity with a unit; None otherwise."""
    if text is None:
        return None
    match = _QUANTITY.match(text)
    if not match:
        return None
    value, unit = match.groups()
    if unit is None:
        return float(value)
    if unit not in _UNITS:
        return None
    return float(value) * _UNITS[unit]


def fail(message):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(2)


def load(path, needed):
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            columns = reader.fieldnames or []
            rows = []
            for r in reader:
                # A row short of the header's fields (None values) or beyond it (the None key):
                # a damaged or hand-edited file, refused instead of plotted with shifted columns.
                if None in r or None in r.values():
                    fields = len(columns) + len(r.get(None, [])) - sum(v is None for v in r.values())
                    fail(f"{path}:{reader.line_num}: a row of {fields} fields where the header has "
                         f"{len(columns)}: a results.csv row has one field per column")
                if r.get("status", "ok") == "ok":
                    rows.append(r)
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    except UnicodeDecodeError as e:
        fail(f"{path} is not a results.csv: byte {e.start} is not UTF-8 text")
    except csv.Error as e:
        fail(f"{path} is not a results.csv: {e}")
    for name in needed:
        if name and name not in columns:
            fail(f"column '{name}' is not in {path} (columns: {', '.join(columns)})")
    return rows


def levels(rows, column):
    """Distinct values of a column, numeric ones in numeric order, others as they come."""
    seen = []
    for r in rows:
        if r[column] not in seen:
            seen.append(r[column])
    if all(number(v) is not None for v in seen):
        seen.sort(key=number)
    return seen


def mean(values):
    values = [v for v in values if v is not None and math.isfinite(v)]
    return sum(values) / len(values) if values else float("nan")


# The sweep's parameters: from sweep.json beside results.csv, else the columns a --set key names.
def parameters(path, rows):
    meta = os.path.join(os.path.dirname(os.path.abspath(path)), "sweep.json")
    try:
        import json
        with open(meta) as f:
            names = json.load(f).get("parameters")
        if isinstance(names, list):
            return [n for n in names if isinstance(n, str)]
    except (OSError, ValueError):
        pass
    columns = list(rows[0].keys()) if rows else []
    return [c for c in columns if c.split(".")[0] in ("target", "workload", "plan")]


def averaged(rows, params, shown):
    """'mean over P (n values), …' for the parameters that vary but are not on an axis, or ''."""
    over = []
    for p in params:
        if p in shown or p not in rows[0]:
            continue
        n = len(levels(rows, p))
        if n > 1:
            over.append(f"{p} ({n} values)")
    return "mean over " + ", ".join(over) if over else ""


def safe(name):
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def save(fig, out_dir, stem):
    paths = []
    try:
        os.makedirs(out_dir, exist_ok=True)
        for ext in ("png", "svg"):
            path = os.path.join(out_dir, f"{safe(stem)}.{ext}")
            fig.savefig(path, dpi=120, bbox_inches="tight")
            paths.append(path)
    except OSError as e:
        fail(f"cannot write plots into {out_dir}: {e.strerror}")
    for path in paths:
        print(path)


def numeric_axis(ax, axis, values, span=8):
    """Log scale for positive values spanning `span` times or more (sizes, n, bandwidths)."""
    finite = [v for v in values if v is not None and math.isfinite(v)]
    if finite and min(finite) > 0 and max(finite) / min(finite) >= span:
        (ax.set_xscale if axis == "x" else ax.set_yscale)("log")


def numeric_column(rows, column):
    """Fails unless some ok row has a number in `column`: a plot of none would be empty."""
    if not any(number(r.get(column)) is not None for r in rows):
        fail(f"column '{column}' has no numeric value in any ok row: nothing to plot")


def heatmap(plt, rows, args):
    numeric_column(rows, args.metric)
    xs, ys = levels(rows, args.x), levels(rows, args.y[0])
    grid = [[mean([number(r[args.metric]) for r in rows
                   if r[args.x] == x and r[args.y[0]] == y]) for x in xs] for y in ys]
    fig, ax = plt.subplots(figsize=(max(5, 0.9 * len(xs) + 2), max(4, 0.5 * len(ys) + 2)))
    image = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
    ax.set_xticks(range(len(xs)), xs, rotation=45 if len(xs) > 6 else 0)
    ax.set_yticks(range(len(ys)), ys)
    ax.set_xlabel(args.x)
    ax.set_ylabel(args.y[0])
    fig.colorbar(image, ax=ax, label=args.metric)
    if len(xs) * len(ys) <= 144:
        finite = [v for row in grid for v in row if math.isfinite(v)]
        middle = (min(finite) + max(finite)) / 2 if finite else 0
        for j, row in enumerate(grid):
            for i, v in enumerate(row):
                if math.isfinite(v):
                    ax.text(i, j, f"{v:.3g}", ha="center", va="center", fontsize=8,
                            color="white" if v < middle else "black")
    note = averaged(rows, args.params, {args.x, args.y[0]})
    ax.set_title(f"{args.metric} over {args.x} × {args.y[0]}" + (f"\n({note})" if note else ""))
    save(fig, args.out, f"heatmap_{args.metric}_over_{args.x}_x_{args.y[0]}")


def pareto(plt, rows, args):
    y = args.y[0]
    points = [(number(r[args.x]), number(r[y]), r.get(args.group, "") if args.group else "", r)
              for r in rows]
    points = [p for p in points if p[0] is not None and p[1] is not None]
    if not points:
        fail(f"no ok row has numbers in both '{args.x}' and '{y}'")
    fig, ax = plt.subplots(figsize=(7.5, 5))
    groups = levels([{"g": p[2]} for p in points], "g")
    many = len(groups) > 12  # beyond that, colours no longer tell groups apart
    for g in ([None] if many else groups):
        mine = [p for p in points if g is None or p[2] == g]
        ax.scatter([p[0] for p in mine], [p[1] for p in mine], s=18, alpha=0.75,
                   label=g if args.group and not many else None)
    front, best = [], math.inf
    for p in sorted(points, key=lambda p: (p[0], p[1])):
        if p[1] < best:
            front.append(p)
            best = p[1]
    if len(front) > 1:
        ax.step([p[0] for p in front], [p[1] for p in front], where="post", color="black",
                linewidth=1, label=f"Pareto front (min, min): {len(front)} points")
    else:
        ax.scatter([front[0][0]], [front[0][1]], s=60, facecolors="none", edgecolors="black",
                   label="best in both (the whole front)")
    # Each front point named by the parameters whose values differ along the front.
    along = front if len(front) > 1 else points  # a lone best point: every parameter that varies
    differ = [k for k in args.params if k in front[0][3] and len({p[3][k] for p in along}) > 1]
    for p in front[:15]:
        text = ", ".join(f"{k.split('.')[-1]}={p[3][k]}" for k in differ)
        if text:
            ax.annotate(text, (p[0], p[1]), textcoords="offset points", xytext=(4, 4), fontsize=7)
    numeric_axis(ax, "x", [p[0] for p in points], span=100)
    numeric_axis(ax, "y", [p[1] for p in points], span=100)
    ax.set_xlabel(args.x)
    ax.set_ylabel(y)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, title=(args.group if args.group and not many else None))
    ax.set_title(f"{y} vs {args.x}" + (f"\n({len(groups)} values of {args.group}, not told apart)" if many else ""))
    save(fig, args.out, f"pareto_{y}_vs_{args.x}" + (f"_by_{args.group}" if args.group else ""))


def lines(plt, rows, args):
    for metric in args.y:
        numeric_column(rows, metric)
    xs = levels(rows, args.x)
    numeric_x = all(number(v) is not None for v in xs)
    position = {v: (number(v) if numeric_x else i) for i, v in enumerate(xs)}
    groups = levels(rows, args.group) if args.group else [None]
    if len(groups) > 20:
        fail(f"--group {args.group} has {len(groups)} values: more lines than a plot can show apart "
             f"(at most 20); group by a parameter with fewer values, or plot a heatmap")
    fig, axes = plt.subplots(len(args.y), 1, sharex=True, squeeze=False,
                             figsize=(7, 2.6 * len(args.y) + 0.8))
    for ax, metric in zip(axes[:, 0], args.y):
        numeric_axis(ax, "y", [number(r[metric]) for r in rows], span=20)
        for g in groups:
            mine = [r for r in rows if g is None or r[args.group] == g]
            at = [x for x in xs if any(r[args.x] == x for r in mine)]
            values = [mean([number(r[metric]) for r in mine if r[args.x] == x]) for x in at]
            ax.plot([position[x] for x in at], values, marker="o", markersize=3,
                    label=g if g is not None else None)
        ax.set_ylabel(metric)
        ax.grid(True, alpha=0.3)
        if args.group:
            ax.legend(fontsize=8, title=args.group)
    bottom = axes[-1, 0]
    if numeric_x:
        numeric_axis(bottom, "x", list(position.values()))
        bottom.set_xticks([position[x] for x in xs], xs, rotation=45 if len(xs) > 6 else 0)
        bottom.minorticks_off()
    else:
        bottom.set_xticks(range(len(xs)), xs, rotation=45 if len(xs) > 6 else 0)
    bottom.set_xlabel(args.x)
    note = averaged(rows, args.params, {args.x, args.group})
    fig.suptitle(" and ".join(args.y) + f" vs {args.x}" + (f" per {args.group}" if args.group else "") +
                 (f"\n({note})" if note else ""))
    fig.tight_layout()
    save(fig, args.out, f"lines_{'-'.join(args.y)}_vs_{args.x}" +
         (f"_by_{args.group}" if args.group else ""))


def size_label(b):
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale and b % scale == 0:
            return f"{b // scale} {unit}"
    return f"{b} B"


def draw_json(plt, path, out_file, draw, what):
    """Draws the JSON at `path` with draw(plt, data, out_file); a JSON of another shape is one
    error line saying what it should have been."""
    import json
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"cannot read {path}: {e}")
    try:
        draw(plt, data, out_file)
    except (KeyError, TypeError, IndexError, ValueError) as e:
        fail(f"{path} is not {what} (at {e})")


def save_file(fig, out_file, dpi=120, announce=False):
    """Writes a one-file plot (--file); `announce` names it on stderr where stdout carries JSON."""
    fig.tight_layout()
    try:
        fig.savefig(out_file, dpi=dpi, bbox_inches="tight")
    except OSError as e:
        fail(f"cannot write {out_file}: {e.strerror}")
    if announce:
        print(out_file, file=sys.stderr)


def size_axis(ax, sizes, label, xlabel):
    """A log-2 axis of byte sizes with at most about nine ticks, each written by `label`."""
    ax.set_xscale("log", base=2)
    ticks = sorted(sizes)
    step = max(1, len(ticks) // 9)
    ax.set_xticks(ticks[::step], [label(b) for b in ticks[::step]], rotation=45)
    ax.minorticks_off()
    ax.set_xlabel(xlabel)


def cache_probe(plt, path, out_file):
    """Two panels over working-set size (log 2): load-to-use latency, on which the L1, L2 and
    DDR plateaus show, and read / write / copy bandwidth per thread count."""
    draw_json(plt, path, out_file, draw_cache_probe, "the JSON of `tessim probe cache --curves`")


def draw_cache_probe(plt, probe, out_file):
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(7.5, 7))
    lat = probe["latency"]
    top.plot([p["bytes"] for p in lat], [p["ns"] for p in lat], marker="o", markersize=3)
    top.set_ylabel("load-to-use latency (ns)")
    top.set_ylim(bottom=0)
    top.grid(True, alpha=0.3, which="both")
    for threads in sorted({r["threads"] for r in probe["bandwidth"]}):
        rows = [r for r in probe["bandwidth"] if r["threads"] == threads]
        for kind, style in (("read", "-"), ("write", "--"), ("copy", ":")):
            bottom.plot([r["bytes"] for r in rows], [r[kind]["GBps"] for r in rows], style, marker="o",
                        markersize=3, label=f"{kind}, {threads} thread{'s' if threads > 1 else ''}")
    bottom.set_ylabel("bandwidth (GB/s)")
    bottom.grid(True, alpha=0.3)
    bottom.legend(fontsize=8)
    size_axis(bottom, [p["bytes"] for p in lat], size_label, "working set")
    fig.suptitle(f"{probe['target']}: {probe.get('engine', 'core0')} through its caches")
    save_file(fig, out_file, announce=True)  # stdout carries the probe's JSON


def decimal_size(b):
    """The board's sizes (1052 B … 64059557 B) in kB and MB, three digits."""
    for scale, unit in ((1e6, "MB"), (1e3, "kB")):
        if b >= scale:
            return f"{b / scale:.3g} {unit}"
    return f"{b} B"


def calibration(plt, path, out_file):
    """One panel per board column: the board's and the model's bytes per cycle over the size (log
    2), the tolerance band around the board's, the count within it in the title."""
    draw_json(plt, path, out_file, draw_calibration,
              "the JSON of analysis/calibration/k1_memory_curves.py --json")


def draw_calibration(plt, curves, out_file):
    columns = list(curves["columns"].items())
    if not columns:
        raise ValueError("no columns")
    fig, axes = plt.subplots(len(columns), 1, sharex=True, figsize=(7.5, 2.4 * len(columns) + 0.8),
                             squeeze=False)
    sizes = set()
    for ax, (name, column) in zip(axes[:, 0], columns):
        points, tol = column["points"], column["tolerance"]
        x = [p["bytes"] for p in points]
        board = [p["board"] for p in points]
        sizes.update(x)
        ax.fill_between(x, [b * (1 - tol) for b in board], [b * (1 + tol) for b in board], alpha=0.2,
                        label=f"board ± {100 * tol:.0f} %")
        ax.plot(x, board, marker="o", markersize=3, label="board")
        ax.plot(x, [p["model"] for p in points], marker="s", markersize=3, label="model")
        ax.set_ylabel("B/cycle")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.set_title(f"{name}: {column['within']} of {column['sizes']} sizes within {100 * tol:.0f} % "
                     f"(mean |error| {100 * column['mean_abs_error']:.1f} %)", fontsize=9)
        ax.legend(fontsize=7, loc="upper right")
    size_axis(axes[-1, 0], sizes, decimal_size, "bytes per pass")
    fig.suptitle(f"{curves['kernel']}: the model against the board")
    save_file(fig, out_file, announce=True)  # stdout carries the curves


def compare(plt, path, out_file):
    """Grouped bars of each layer's time on each chip (log axis: chips differ by decades), the
    fastest chip's bar outlined; beside it each chip's total time and energy."""
    try:
        with open(path, newline="") as f:
            rows = [r for r in csv.DictReader(f) if r.get("seconds")]
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    if not rows or "chip" not in rows[0]:
        fail(f"{path} is not the CSV of `tessim compare`")
    chips = list(dict.fromkeys(r["chip"] for r in rows))
    totals = {r["chip"]: r for r in rows if r["layer"] == "total"}
    layers = list(dict.fromkeys(r["layer"] for r in rows if r["layer"] != "total"))
    if len(layers) > 80:
        fail(f"{len(layers)} layers are too many to draw as bars (at most 80)")
    width = 0.8 / max(1, len(chips))
    if layers:
        fig, (per, tot) = plt.subplots(1, 2, figsize=(min(4 + 0.35 * len(layers) * len(chips), 18), 5),
                                       gridspec_kw={"width_ratios": [4, 1]})
        for i, chip in enumerate(chips):
            xs, ys, best = [], [], []
            for j, layer in enumerate(layers):
                for r in rows:
                    if r["layer"] == layer and r["chip"] == chip:
                        xs.append(j + (i - (len(chips) - 1) / 2) * width)
                        ys.append(float(r["seconds"]) * 1e3)
                        best.append(r["best"] == "1")
            bars = per.bar(xs, ys, width, label=chip)
            for bar, b in zip(bars, best):
                if b:
                    bar.set_edgecolor("black")
                    bar.set_linewidth(1.2)
        per.set_yscale("log")
        per.set_ylabel("time per layer (ms, log)")
        per.set_xticks(range(len(layers)), layers, rotation=60, ha="right", fontsize=7)
        per.legend(fontsize=8)
        per.grid(True, axis="y", alpha=0.3, which="both")
        per.set_title("per layer (outlined: the fastest chip)")
    else:
        fig, tot = plt.subplots(1, 1, figsize=(4, 4))
    names = [c for c in chips if c in totals]
    seconds = [float(totals[c]["seconds"]) * 1e3 for c in names]
    tot.bar(names, seconds, color=[f"C{chips.index(c)}" for c in names])
    tot.set_yscale("log")
    tot.set_ylabel("total time (ms, log)")
    energy = tot.twinx()
    energy.plot(names, [float(totals[c]["energy_j"] or "nan") * 1e3 for c in names], "kD", label="energy")
    energy.set_yscale("log")
    energy.set_ylabel("energy (mJ, log; diamonds)")
    tot.set_title("total")
    tot.tick_params(axis="x", labelrotation=45)
    save_file(fig, out_file, dpi=110)


def roofline(plt, path, out_file):
    """The hierarchical roofline of one run (log-log): the compute roof, one roof per level at the
    bandwidth its bound counts (a cache's: the instances the working cores reach, its writes at
    its store rate), and the run's achieved rate at each level's intensity over its compulsory
    bytes (filled) and over the bytes the level moved (open: how far traffic beyond the compulsory
    pulls a level's point left)."""
    draw_json(plt, path, out_file, draw_roofline, "the JSON report of a `tessim run` with a roofline")


def draw_roofline(plt, report, out_file):
    rf = report["roofline"]
    peak, achieved = float(rf["peak_work_per_s"]), float(rf["achieved_work_per_s"])
    levels = rf["levels"]
    if not levels or peak <= 0 or achieved <= 0:
        raise ValueError("roofline.levels")
    xs = []
    for lv in levels.values():
        xs += [float(lv["intensity_work_per_byte"]), peak / float(lv["bandwidth_bytes_per_s"])]
        if float(lv["moved_intensity_work_per_byte"]) > 0:
            xs.append(float(lv["moved_intensity_work_per_byte"]))
    lo, hi = min(xs) / 4, max(xs) * 4
    grid = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    fig, ax = plt.subplots(figsize=(7.5, 5))
    ax.axhline(peak, color="black", linestyle="--", linewidth=1, label=f"compute peak {peak:.3g}/s")
    for i, (name, lv) in enumerate(levels.items()):
        bw = float(lv["bandwidth_bytes_per_s"])
        colour = f"C{i}"
        ax.plot(grid, [min(peak, bw * x) for x in grid], color=colour,
                label=f"{name}: {bw / 1e9:.4g} GB/s ({lv['limit']}-bound, "
                      f"{100 * float(lv['fraction_of_attainable']):.1f} % of attainable)")
        # Levels with the same compulsory bytes share a point: the later ones drawn smaller on top.
        ax.plot([float(lv["intensity_work_per_byte"])], [achieved], "o", color=colour, markersize=max(4, 10 - 2 * i))
        moved = float(lv["moved_intensity_work_per_byte"])
        if moved > 0:
            ax.plot([moved], [achieved], "o", markerfacecolor="none", markeredgecolor=colour, markersize=7)
    ax.axhline(achieved, color="grey", linewidth=0.6, alpha=0.6)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("intensity (work per byte; filled: compulsory bytes, open: bytes moved)")
    ax.set_ylabel("work per second (the engines' unit: FLOP or MAC)")
    ax.grid(True, alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="lower right")
    target = report.get("target", {}).get("name", "")
    workload = report.get("workload", {}).get("name", "")
    ax.set_title(f"{target}: {workload}, {float(report['seconds']) * 1e6:.4g} us, "
                 f"achieved {achieved:.3g}/s")
    save_file(fig, out_file)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", help="results.csv of a tessim sweep (cache-probe, roofline: a JSON)")
    parser.add_argument("--kind", required=True,
                        choices=["heatmap", "pareto", "lines", "cache-probe", "compare", "roofline",
                                 "calibration"])
    parser.add_argument("--x", default="")
    parser.add_argument("--y", default=[], action="append",
                        help="y column (lines: repeat for one panel each)")
    parser.add_argument("--file", default="",
                        help="cache-probe, compare, roofline, calibration: the PNG to write")
    parser.add_argument("--group", default="")
    parser.add_argument("--metric", default="")
    parser.add_argument("--out", default=".")
    args = parser.parse_args()
    args.y = [c for y in args.y for c in y.split(",") if c]
    to_file = ("cache-probe", "compare", "roofline", "calibration")
    if args.kind in to_file and not args.file:
        fail(f"--kind {args.kind} needs --file")
    if args.kind not in to_file and (not args.x or not args.y):
        fail(f"--kind {args.kind} needs --x and --y")
    if args.kind == "heatmap" and not args.metric:
        fail("--kind heatmap needs --metric")
    if args.kind in ("heatmap", "pareto") and len(args.y) != 1:
        fail(f"--kind {args.kind} takes one --y")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        plt.rcParams["svg.fonttype"] = "none"  # titles and labels stay text in the SVG
    except ImportError:
        fail(f"plots need matplotlib for {sys.executable} (Debian: apt-get install python3-matplotlib)")
    if args.kind == "cache-probe":
        cache_probe(plt, args.results, args.file)
        return
    if args.kind == "compare":
        compare(plt, args.results, args.file)
        return
    if args.kind == "roofline":
        roofline(plt, args.results, args.file)
        return
    if args.kind == "calibration":
        calibration(plt, args.results, args.file)
        return
    rows = load(args.results, [args.x, *args.y, args.group, args.metric])
    if not rows:
        fail(f"{args.results} has no ok rows to plot")
    args.params = parameters(args.results, rows)
    {"heatmap": heatmap, "pareto": pareto, "lines": lines}[args.kind](plt, rows, args)


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # whatever the checks above missed: one line, never a traceback
        fail(f"cannot plot: {type(e).__name__}: {e}")
