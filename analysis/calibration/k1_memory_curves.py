#!/usr/bin/env python3
"""The K1 model's single-core memcpy and memset curves against the board's.

The board (docs/sources/k1-board/memcpy.csv, memset.csv; README there) repeats each size until
enough cycles have passed, buffers reused, single-threaded, and reports bytes per cycle: small
sizes are L1-resident, ~100 KB ones L2-resident, MB sizes DRAM-bound. Its `rvv_m<L>` columns are
a plain `vsetvli e8,m<L>; vle8; vse8` loop (memset: `vse8`). The model runs the generated kernel of
the same shape (`plan.sew=8`, `plan.lmul=L`) on core0 and takes the warm rate the board's
repetition measures: the bytes of k extra passes over the cycles they add
(runs with `repeat` w and w + k, k passes making at least 1 MiB; w = 1 unless `--warm-mib M`
asks for passes making at least M MiB first, at most 4096). A copy's destination starts 64 MiB
after its source (`--distance`, `workload.distance`): the board's layout is not known, but its
curve is smooth where the kernel's own layout (the destination on the page after the source)
puts both buffers in one DDR bank at some sizes and not at others (0.53 MB: 1.31 against 1.54
B/cycle on a first pass); 64 MiB apart no size does. The board does not say how many
passes it times; past the L2's 512 KiB the model's rate depends on it: DIP keeps a growing part of
a stream larger than the L2 (one fill in 32 placed to stay) and needs some 20 passes to fill it.
After 32 MiB a 0.50 MB memcpy (rvv_m8) copies 2.48 B/cycle (after one pass 2.29, board 2.95), a
0.74 MB memset sets 9.05 (after one pass 6.73, board 7.43). `--program` times the program's passes
after its first. Prints per size the board's and
the model's bytes per cycle and the error; per column the sizes within the tolerance (issue 25's
bar: 15 %). `--points 200` takes every size the board measured in the range.

A size the board measured below both of its neighbours in the table, or above both, by more than
(1 + tolerance) / (1 - tolerance) (1.35 at 15 %) is marked a board outlier, a dip or a peak: no
figure is within the tolerance of it and of either neighbour, so a model whose rate does not
change between sizes 6 % apart meets the one or the others (memcpy rvv_m2...m8 at 53 and 106 KB:
2.7-2.9 B/cycle between neighbours at 3.8-4.5). The mark says so; it excuses nothing (--check
counts every size).

  analysis/calibration/k1_memory_curves.py --tessim build/tessim [--kernel memcpy|memset]
      [--columns rvv_m8,rvv_m1] [--min 1000] [--max 67108864] [--points 16] [--warm-mib 0]
      [--distance 67108864]
      [--json] [--check] [--plot FILE.png]
      [--target k1|VARIANT.yaml] [--set target.KEY=VALUE ...] [--program memory_rvv]

--target and --set try a variant of the K1 model against the same curves (a what-if before a
parameter changes in configs/targets/k1.yaml).

--check exits 1 unless every size of every column is within the tolerance. --plot draws each
column's board and model curves with the tolerance band (analysis/plots/tessim_plot.py --kind
calibration, python3-matplotlib).
"""
import argparse
import concurrent.futures
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

PAGE = 4096  # bytes: the kernel places its buffers on pages (workload.distance is a multiple)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BOARD = os.path.join(ROOT, "docs", "sources", "k1-board")


def board_curve(kernel, column):
    """(bytes, bytes per cycle) of one column of the board's table."""
    rows = list(csv.DictReader(open(os.path.join(BOARD, kernel + ".csv"))))
    return [(int(r["bytes"]), float(r[column])) for r in rows if r.get(column)]


def board_jump(curve, index):
    """How far the board's figure at curve[index] lies below both of its neighbours in the table
    ("dip"), or above both ("peak"): the smaller of the two ratios (>= 1) and which; (1, None) where
    it lies between them or at an end of the table."""
    if index == 0 or index == len(curve) - 1:
        return 1.0, None
    rate, before, after = curve[index][1], curve[index - 1][1], curve[index + 1][1]
    if rate < min(before, after):
        return min(before, after) / rate, "dip"
    if rate > max(before, after):
        return rate / max(before, after), "peak"
    return 1.0, None


def pick(curve, low, high, points):
    """About `points` sizes spread evenly in log scale over [low, high], from the board's own."""
    inside = [c for c in curve if low <= c[0] <= high]
    if len(inside) <= points:
        return inside
    if points == 1:
        return inside[:1]
    step = (math.log(inside[-1][0]) - math.log(inside[0][0])) / (points - 1)
    chosen, want = [], math.log(inside[0][0])
    for c in inside:
        if math.log(c[0]) >= want - 1e-9:
            chosen.append(c)
            want += step
    return chosen


def cycles(tessim, target, kernel, size, lmul, repeat, sets=()):
    args = [tessim, "run", "--target", target, "--workload", kernel, "--set", f"workload.bytes={size}B",
            "--set", f"workload.repeat={repeat}", "--set", "plan.sew=8", "--set", f"plan.lmul={lmul}"]
    for s in sets:
        args += ["--set", s]
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode:
        sys.exit(f"tessim failed ({' '.join(args)}):\n{run.stderr[:2000]}")
    return json.loads(run.stdout)["cycles"]


def program_rate(tessim, target, program, kernel, size, sets):
    """The program's own warm rate: a loop of memory_rvv.c, passes timed by its rdcycle."""
    extra = max(1, min(4096, -(-(1 << 20) // size)))
    args = [tessim, "run", "--target", target, "--program", program]
    for s in sets:
        args += ["--set", s]
    args += ["--", kernel, str(size), str(1 + extra)]
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode:
        sys.exit(f"tessim failed ({' '.join(args)}):\n{run.stderr[:2000]}")
    for line in run.stdout.splitlines():
        if line.startswith("warm_bytes_per_cycle "):
            return float(line.split()[1])
    sys.exit(f"{program} printed no warm_bytes_per_cycle:\n{run.stdout[:2000]}")


def model_rate(tessim, target, kernel, size, lmul, sets, warm_mib, distance):
    extra = max(1, min(4096, -(-(1 << 20) // size)))
    if kernel == "memcpy" and distance:
        sets = [f"workload.distance={max(distance, -(-size // PAGE) * PAGE)}B"] + list(sets)
    warm = max(1, min(4096, -(-(warm_mib << 20) // size)))
    once = cycles(tessim, target, kernel, size, lmul, warm, sets)
    more = cycles(tessim, target, kernel, size, lmul, warm + extra, sets)
    return extra * size / max(1, more - once)


def draw(kernel, summary, png):
    """Draws the curves into `png` through tessim_plot.py; its exit status (0: written)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump({"kernel": kernel, "columns": summary}, f)
        f.flush()
        # The interpreter tessim's own plots use: Debian's, which has python3-matplotlib.
        python = os.environ.get("TESSIM_PYTHON") or "/usr/bin/python3"
        return subprocess.run([python, os.path.join(ROOT, "analysis", "plots", "tessim_plot.py"), f.name,
                               "--kind", "calibration", "--file", png]).returncode


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tessim", default=os.path.join(ROOT, "build", "tessim"))
    ap.add_argument("--kernel", choices=["memcpy", "memset"], default="memcpy")
    ap.add_argument("--columns", default="rvv_m8,rvv_m1", help="board columns rvv_m1 … rvv_m8, comma-separated")
    ap.add_argument("--min", type=int, default=1000, help="smallest size, bytes (default 1000)")
    ap.add_argument("--max", type=int, default=64 << 20, help="largest size, bytes (default 64 MiB)")
    ap.add_argument("--points", type=int, default=16, help="sizes per column (default 16)")
    ap.add_argument("--tolerance", type=float, default=0.15)
    ap.add_argument("--warm-mib", type=int, default=0,
                    help="passes before the timed ones make at least this many MiB (default 0: one pass)")
    ap.add_argument("--distance", type=int, default=64 << 20,
                    help="memcpy: the destination's start minus the source's, bytes (default 64 MiB, the "
                         "harness the calibration assumes; 0: the kernel's own layout, the page after the source)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--target", default="k1", help="the K1 target, or a YAML variant of it (default k1)")
    ap.add_argument("--program", metavar="ELF",
                    help="time the loops of tests/riscv/programs/memory_rvv.c (built with -march=rv64gcv "
                         "-static) instead of the generated kernels: rvv_m1 ... rvv_m8 (vsetvli e8,m<L>) and "
                         "scalar (the byte loop), sizes up to 8 MiB, rounded down to a multiple of 8 B")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="passed to every run as --set (a what-if: target.cluster.l1.prefetcher.kind=stride)")
    ap.add_argument("--json", action="store_true", help="the figures as JSON")
    ap.add_argument("--check", action="store_true", help="exit 1 unless every size is within the tolerance")
    ap.add_argument("--plot", metavar="FILE.png", help="draw the board's and the model's curves, one panel a column")
    args = ap.parse_args()
    if args.plot is not None:
        folder = os.path.dirname(os.path.abspath(args.plot)) if args.plot else ""
        if not args.plot or not os.path.isdir(folder):
            print(f"error: --plot: {'a file name is needed' if not args.plot else 'no folder ' + folder}",
                  file=sys.stderr)
            return 2
    if args.points < 1:
        sys.exit("--points: at least 1")
    if args.warm_mib < 0:
        sys.exit("--warm-mib: 0 or more MiB")
    if args.distance < 0 or args.distance % PAGE:
        sys.exit(f"--distance: 0 or a multiple of {PAGE} bytes")
    columns = [c.strip() for c in args.columns.split(",") if c.strip()]
    for c in columns:
        if args.program and c == "scalar":
            continue
        if not c.startswith("rvv_m") or c[5:] not in ("1", "2", "4", "8"):
            sys.exit(f"--columns: {c} is not one of rvv_m1, rvv_m2, rvv_m4, rvv_m8 (the generated kernels' loops)"
                     + ("; with --program also scalar" if args.program else ""))
    if args.program:
        args.max = min(args.max, 8 << 20)
    work = []  # (column, size, board's rate, board_jump at that size)
    for c in columns:
        curve = board_curve(args.kernel, c)
        where = {size: i for i, (size, _) in enumerate(curve)}
        work += [(c, size, board, board_jump(curve, where[size]))
                 for size, board in pick(curve, args.min, args.max, args.points)]
    if args.program:  # the program's buffers take multiples of 8 B
        work = [(c, size - size % 8, board, jump) for c, size, board, jump in work]
    outlier_at = (1 + args.tolerance) / (1 - args.tolerance)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        if args.program:
            # rvv_m<L> is memory_rvv.c's memcpy_m<L>/memset_m<L>; the scalar column its byte loop
            # (lbu/sb), memcpy_bytes/memset_bytes.
            rates = list(pool.map(lambda w: program_rate(args.tessim, args.target, args.program,
                                                         args.kernel + ("_bytes" if w[0] == "scalar" else
                                                                        "_m" + w[0][5:]),
                                                         w[1], args.set), work))
        else:
            rates = list(pool.map(lambda w: model_rate(args.tessim, args.target, args.kernel, w[1],
                                                       int(w[0][5:]), args.set, args.warm_mib,
                                                       args.distance), work))
    summary, ok = {}, True
    for c in columns:
        rows = [(size, board, rate, jump) for (col, size, board, jump), rate in zip(work, rates) if col == c]
        errors = [(rate - board) / board for _, board, rate, _ in rows]
        within = sum(1 for e in errors if abs(e) <= args.tolerance)
        ok = ok and within == len(rows)
        points = [{"bytes": s, "board": b, "model": r, "error": e, "board_jump": j[0],
                   "board_outlier": j[1] if j[0] > outlier_at else None} for (s, b, r, j), e in zip(rows, errors)]
        summary[c] = {"sizes": len(rows), "within": within, "tolerance": args.tolerance,
                      "outside_at_board_outliers": sum(1 for p in points if p["board_outlier"] and
                                                       abs(p["error"]) > args.tolerance),
                      "mean_abs_error": sum(abs(e) for e in errors) / len(errors), "points": points}
    # Drawn before anything is printed: a plot that fails leaves nothing on stdout.
    if args.plot and draw(args.kernel, summary, args.plot):
        return 2
    if args.json:
        print(json.dumps({"kernel": args.kernel, "columns": summary}, indent=1))
    else:
        for c, curve in summary.items():
            outliers = curve["outside_at_board_outliers"]
            print(f"{args.kernel} {c}: {curve['within']} of {curve['sizes']} sizes within "
                  f"{100 * args.tolerance:.0f} % (mean |error| {100 * curve['mean_abs_error']:.1f} %)"
                  + (f"; {outliers} of those outside at board outliers" if outliers else ""))
            print(f"  {'bytes':>10} {'board B/cycle':>14} {'model B/cycle':>14} {'error':>8}")
            for p in curve["points"]:
                mark = ""
                if p["board_outlier"]:
                    mark = f"  board {p['board_outlier']}: its neighbours in the table" \
                           f" {'above' if p['board_outlier'] == 'dip' else 'below'} it by {p['board_jump']:.2f}x or more"
                print(f"  {p['bytes']:>10} {p['board']:>14.3f} {p['model']:>14.3f} {100 * p['error']:>+7.1f}%{mark}")
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
