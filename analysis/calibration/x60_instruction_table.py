#!/usr/bin/env python3
"""Reproduces the board's RVV instruction table on the K1 model, in the board's method.

For each instruction class the shipped kernels and the C tests use, and each SEW/LMUL cell the
board measured (docs/sources/k1-board/x60-instructions-vlmax.csv, vl = VLMAX), a freestanding
program runs 8 independent copies of the instruction (destinations v8…v15, register groups
alternating at LMUL > 1), unrolled, after a warm-up pass, with rdcycle around the loop, and
records cycles per instruction; `tessim run --target k1 --program` runs it. Prints per class the cells within 10 %
of the board's figure and the mean and worst error, then each cell with --cells. Beside them, the
board against itself: the cells where its vl = 1 table (the same instructions, which the X60 prices
by register group as at VLMAX) lies within 10 % of its VLMAX one, a bound on what any model of the
class can reach cell by cell.

  analysis/calibration/x60_instruction_table.py --tessim build/tessim [--cells] [--check]

--check exits 1 unless every class has at least 90 % of its cells within 10 % (the issue's bar), or
as many as the board's own repeatability where that is lower.
Needs riscv64-linux-gnu-gcc (.ci/setup installs it).
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLE = os.path.join(ROOT, "docs", "sources", "k1-board", "x60-instructions-vlmax.csv")
TABLE_VL1 = os.path.join(ROOT, "docs", "sources", "k1-board", "x60-instructions-vl1.csv")

# class → the board rows (instruction with operands, unmasked) it holds.
CLASSES = {
    "unit-stride load": r"vle(8|16|32|64)\.v v8,\(t0\)",
    "unit-stride store": r"vse(8|16|32|64)\.v v8,\(t0\)",
    "strided load": r"vlse(8|16|32|64)\.v v8,\(t2\),t3",
    "integer add/logic": r"v(add|sub|and|or|xor)\.v[vxi] v8,v16,(v24|t0|13)",
    "integer multiply-add": r"v(mul|macc)\.v[vx] v8,v16,(v24|t0)",
    "slide": r"vslide(up|down)\.v[xi] v8,v16,(t0|13)",
    "gather": r"vrgather\.vv v8,v16,v24",
    "broadcast": r"vmv\.v\.[xi] v8,(t0|13)",
    "integer reduction": r"vredsum\.vs v8,v16,v24",
    "integer divide": r"v(div|divu|rem|remu)\.v[vx] v8,v16,(v24|t0)",
    "integer shift": r"v(sll|srl|sra|ssrl|ssra)\.v[vxi] v8,v16,(v24|t0|13)",
    "integer compare": r"vms(eq|ne|lt|ltu|le|leu|gt|gtu)\.v[vxi] v8,v16,(v24|t0|13)",
    "merge and move": r"vmerge\.v[vxi]m v8,v16,(v24|t0|13),v0|vmv\.v\.v v8,v16",
    "add with carry": r"v(adc|sbc)\.v[vxi]m v8,v16,(v24|t0|13),v0",
    "integer min/max": r"v(min|minu|max|maxu)\.v[vx] v8,v16,(v24|t0)",
    "saturating/averaging add": r"v[sa](add|addu|sub|subu)\.v[vxi] v8,v16,(v24|t0|13)",
    "index": r"vid\.v v8|viota\.m v8,v16",
    "narrowing shift": r"vn(srl|sra|clipu|clip)\.w[vxi] v8,v16,(v24|t0|13)",
    "sign/zero extension": r"v[sz]ext\.vf[248] v8,v16",
    "widening arithmetic": r"vw(add|addu|sub|subu|mul|mulu|mulsu)\.[vw][vx] v8,v16,(v24|t0)"
                           r"|vwmacc(u|su|us)?\.v[vx] v8,(v16|t0),(v24|v16)",
    "fractional multiply": r"vsmul\.v[vx] v8,v16,(v24|t0)",
    "whole-register move": r"vmv[1248]r\.v v8,v16",
    "scalar insert": r"vmv\.s\.x v8,t0",
    "segment load": r"vlseg[2-8]e(8|16|32|64)\.v v8,\(t0\)",
    "segment store": r"vsseg[2-8]e(8|16|32|64)\.v v8,\(t0\)",
}
# Classes the VLMAX table lacks (it has no FP rows), from the vl = 1 table: the X60 prices a
# vector instruction by its register group, so its vl = 1 figures are its VLMAX ones.
VL1_CLASSES = {
    "FP conversion": r"vf(w|n)?cvt\.(rtz\.|rod\.)?(x|xu|f)\.(f|x|xu)\.[vw] v8,v16",
}
LMULS = {"mf8": 1, "mf4": 2, "mf2": 4, "m1": 8, "m2": 16, "m4": 32, "m8": 64}
COPIES, UNROLL, LOOPS = 8, 16, 4  # 8 × 16 × 4 = 512 instructions a cell


def registers(lmul8, text=""):
    """Destination, first and second source register of each of the 8 copies. A narrowing op reads a
    group twice its destination's (v16, aligned for it), an extension half of it (v16, or v24 where
    the destinations reach v16)."""
    step = max(1, lmul8 // 8)
    if text.startswith("vfw"):
        text = "vw" + text[3:]
    if text.startswith("vfn"):
        text = "vn"
    if text.startswith("vw"):  # a destination group twice the sources'
        wide = max(1, 2 * lmul8 // 8)
        dests = [8 + wide * (c % (8 // wide)) for c in range(COPIES)] if wide < 8 else [0, 8] * (COPIES // 2)
        return [(d, 16, 24) for d in dests]
    if text.startswith("vn"):
        return [(8 + step * (c % (8 // step)), 16, 24) for c in range(COPIES)]
    if "ext.vf" in text:
        dests = [8 + step * (c % (8 // step)) for c in range(COPIES)] if step < 8 else [8, 16] * (COPIES // 2)
        return [(d, 24 if step >= 8 else 16, 24) for d in dests]
    if step >= 8:  # m8: two destination groups alternate, one source group
        return [(8 if c % 2 == 0 else 16, 24, 24) for c in range(COPIES)]
    dests = [8 + step * (c % (8 // step)) for c in range(COPIES)]
    return [(d, 16 + (d - 8), 24 + (d - 8)) for d in dests]


def instance(text, dest, a, b):
    name, operands = text.split(" ", 1)
    ops = operands.split(",")
    sub = {"v8": f"v{dest}", "v16": f"v{a}", "v24": f"v{b}"}
    return name + " " + ", ".join(sub.get(o, o) for o in ops)


def program(cells):
    s = ["    .globl _start", "    .text", "_start:", "    lla t0, buffer", "    lla t2, buffer",
         "    li t3, 64", "    li t1, 13", "    lla s5, results"]
    for text, sew, lmul in cells:
        body = [instance(text, *r) for r in registers(LMULS[lmul], text)]
        s += [f"# {text} e{sew}{lmul}", f"    vsetvli t4, zero, e{sew}, {lmul}, ta, ma"]
        # A warm-up pass (the previous cell's instructions drain), then the timed one.
        for timed in (False, True):
            s += [f"    li s2, {LOOPS}"] + (["    rdcycle s3"] if timed else []) + ["1:"]
            for _ in range(UNROLL):
                s += ["    " + b for b in body]
            s += ["    addi s2, s2, -1", "    bnez s2, 1b"]
        s += ["    rdcycle s4", "    sub s4, s4, s3", "    sd s4, 0(s5)", "    addi s5, s5, 8"]
    s += ["    lla a1, results", f"    li a2, {8 * len(cells)}", "    li a0, 1", "    li a7, 64", "    ecall",
          "    li a0, 0", "    li a7, 93", "    ecall", "    .data", "    .balign 4096",
          "buffer:", "    .zero 17408", "    .balign 8", "results:", f"    .zero {8 * len(cells)}"]
    return "\n".join(s) + "\n"


def read_table(path):
    """(instruction, SEW, LMUL) → cycles per instruction, for every cell the board measured."""
    rows = list(csv.reader(open(path)))
    header = rows[0]
    return {(r[0], int(header[i][1:].split("m")[0]), "m" + header[i][1:].split("m", 1)[1]): float(v)
            for r in rows[1:] for i, v in enumerate(r[1:], 1) if v}


def board_cells():
    cells = {}
    for table, classes in ((TABLE, CLASSES), (TABLE_VL1, VL1_CLASSES)):
        rows = list(csv.reader(open(table)))
        header = rows[0]
        for cls, pattern in classes.items():
            for r in rows[1:]:
                if re.fullmatch(pattern, r[0]):
                    for i, v in enumerate(r[1:], 1):
                        if v:
                            m = re.fullmatch(r"e(\d+)(m\w+)", header[i])
                            cells.setdefault(cls, []).append((r[0], int(m.group(1)), m.group(2), float(v)))
    return cells


def measure(tessim, cells, work):
    flat = [(t, sew, lmul) for cls in cells for (t, sew, lmul, _) in cells[cls]]
    src = os.path.join(work, "table.S")
    exe = os.path.join(work, "table")
    with open(src, "w") as f:
        f.write(program(flat))
    built = subprocess.run(["riscv64-linux-gnu-gcc", "-march=rv64gcv", "-nostdlib", "-static", "-o", exe, src],
                           capture_output=True, text=True)
    if built.returncode:
        sys.exit("cannot build the micro-benchmarks:\n" + built.stderr[:2000])
    run = subprocess.run([tessim, "run", "--target", "k1", "--program", exe, "--report",
                          os.path.join(work, "report.json")], capture_output=True)
    if run.returncode:
        sys.exit("tessim could not run the micro-benchmarks:\n" + run.stderr.decode(errors="replace")[:2000])
    out = run.stdout
    cycles = [int.from_bytes(out[8 * k:8 * k + 8], "little") for k in range(len(flat))]
    per = COPIES * UNROLL * LOOPS
    return {cell: c / per for cell, c in zip(flat, cycles)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tessim", default=os.path.join(ROOT, "build", "tessim"))
    ap.add_argument("--cells", action="store_true", help="print every cell")
    ap.add_argument("--check", action="store_true", help="exit 1 unless each class has 90 %% of cells within 10 %% "
                    "(or the board's own repeatability, where lower)")
    ap.add_argument("--json", action="store_true", help="the per-class figures as JSON")
    args = ap.parse_args()
    cells = board_cells()
    vl1 = read_table(TABLE_VL1)
    with tempfile.TemporaryDirectory() as work:
        model = measure(args.tessim, cells, work)
    summary, ok = {}, True
    if not args.json:
        print(f"{'class':22} {'cells':>5} {'within 10%':>10} {'mean err':>9} {'worst':>7} {'board':>6}  worst cell")
    for cls, rows in cells.items():
        errors = []
        for text, sew, lmul, board in rows:
            got = model[(text, sew, lmul)]
            errors.append((abs(got - board) / board, text, sew, lmul, board, got))
        within = sum(1 for e in errors if e[0] <= 0.10)
        worst = max(errors)
        share = within / len(errors)
        again = [] if cls in VL1_CLASSES else [
            abs(vl1[(t, sew, lmul)] - board) / board <= 0.10 for t, sew, lmul, board in rows if (t, sew, lmul) in vl1]
        summary[cls] = {"cells": len(errors), "within_10pct": within, "share": share,
                        "mean_error": sum(e[0] for e in errors) / len(errors), "worst_error": worst[0],
                        "board_repeat_share": sum(again) / len(again) if again else None}
        repeat = summary[cls]["board_repeat_share"]
        ok = ok and share >= min(0.90, 1.0 if repeat is None else repeat)
        if not args.json:
            print(f"{cls:22} {len(errors):5} {within:5} ({100 * share:3.0f}%) {100 * summary[cls]['mean_error']:8.1f}%"
                  f" {100 * worst[0]:6.0f}% {'' if repeat is None else f'{100 * repeat:5.0f}%'}"
                  f"  {worst[1]} e{worst[2]}{worst[3]}: board {worst[4]:.2f}, model {worst[5]:.2f}")
        if args.cells:
            for e in sorted(errors, key=lambda e: (e[1], e[2], LMULS[e[3]])):
                print(f"    {e[1]:28} e{e[2]}{e[3]:4} board {e[4]:7.2f} model {e[5]:7.2f} {100 * e[0]:5.0f}%")
    if args.json:
        print(json.dumps(summary, indent=1))
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
