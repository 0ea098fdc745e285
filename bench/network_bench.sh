#!/usr/bin/env bash
# One network on every chip: wall-clock seconds of whole `tessim` processes for the library
# ResNet-18 (20 conv layers at 224×224) on k1 (im2col + RVV GEMM, 8 cores; goal < 60 s), ftm2000
# (the shuffle convolution layer by layer, 4 cores; goal < 30 s) and npu (goal < 5 s), and
# `tessim compare` of the three with --jobs 2 (goal < 90 s), on the 2-core machine. Each figure
# is one run (they are long); the simulated times are printed beside them. A second binary
# (BASELINE) is run on the same commands where it can run them, for a before/after in one run.
#
#   bench/network_bench.sh [TESSIM [BASELINE]]
set -euo pipefail
cd "$(dirname "$0")/.."
TESSIM=${1:-${TESSIM:-build/tessim}}
BASELINE=${2:-}
[ -x "$TESSIM" ] || { echo "error: $TESSIM is not an executable (build it, or pass its path)" >&2; exit 2; }
out=$(mktemp -d "${TMPDIR:-/tmp}/tessim-network-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT

# Wall seconds of a command (its stdout kept in $out/last), or "-" when it fails.
seconds() {
    local a b
    a=$EPOCHREALTIME
    "$@" > "$out/last" 2> "$out/err" || { echo "-"; return; }
    b=$EPOCHREALTIME
    awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f", b - a }'
}
simulated() {
    python3 -c 'import json,sys; print("%.4g ms" % (json.load(open(sys.argv[1]))["seconds"] * 1e3))' "$out/last" \
        2>/dev/null || echo "-"
}

printf '%-40s %10s %14s %12s\n' "run (whole process)" "wall s" "simulated" "baseline s"
for target in k1 ftm2000 npu; do
    s=$(seconds "$TESSIM" run --target "$target" --workload resnet18 --format json)
    sim=$(simulated)
    base="-"
    [ -n "$BASELINE" ] && base=$(seconds "$BASELINE" run --target "$target" --workload resnet18 --format json)
    printf '%-40s %10s %14s %12s\n' "resnet18 on $target" "$s" "$sim" "$base"
done
s=$(seconds "$TESSIM" compare --workload resnet18 --targets k1,ftm2000,npu --jobs 2)
printf '%-40s %10s %14s %12s\n' "compare k1,ftm2000,npu --jobs 2" "$s" "-" "-"
