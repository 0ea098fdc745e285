#!/usr/bin/env bash
# ftm2000 speed benchmark: wall-clock seconds of whole `tessim` processes for seed 003's
# convolution — the 222×222 f64 5×5 shuffle run (goal < 0.5 s), the same with --functional, the
# im2col baseline, and the full seed sweep (both experiment families, goal < 30 s). Each run figure
# is the best of REPEAT tries; the sweeps run once with the sweep's default jobs.
#
#   bench/ftm_bench.sh [TESSIM]      env: REPEAT (3)
set -euo pipefail
cd "$(dirname "$0")/.."
TESSIM=${1:-${TESSIM:-build/tessim}}
REPEAT=${REPEAT:-3}
[ -x "$TESSIM" ] || { echo "error: $TESSIM is not an executable (build it, or pass its path)" >&2; exit 2; }
out=$(mktemp -d "${TMPDIR:-/tmp}/tessim-ftm-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT

seconds() {
    local a b
    a=$EPOCHREALTIME
    "$@" > "$out/last" 2>&1 || { cat "$out/last" >&2; exit 1; }
    b=$EPOCHREALTIME
    awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b - a }'
}
best() {
    local best_s="" s
    for _ in $(seq "$REPEAT"); do
        s=$(seconds "$@")
        if [ -z "$best_s" ] || awk -v s="$s" -v m="$best_s" 'BEGIN { exit !(s < m) }'; then best_s=$s; fi
    done
    echo "$best_s"
}

printf '%-52s %8s\n' "run (whole process)" "wall s"
run="$TESSIM run --target ftm2000 --workload conv-ftm"
printf '%-52s %8s\n' "222×222 f64 5×5 shuffle" "$(best $run --plan shuffle)"
printf '%-52s %8s\n' "222×222 f64 5×5 shuffle --functional" "$(best $run --plan shuffle --functional)"
printf '%-52s %8s\n' "222×222 f64 5×5 im2col" "$(best $run --plan im2col)"
printf '%-52s %8s\n' "512×512 f64 5×5 shuffle, double-buffered" \
    "$(best $run --plan shuffle --set workload.h=512 --set workload.w=512)"
maps=$(seconds "$TESSIM" sweep configs/sweeps/ftm2000-maps.yaml --out "$out/maps")
kernels=$(seconds "$TESSIM" sweep configs/sweeps/ftm2000-kernels.yaml --out "$out/kernels")
printf '%-52s %8s\n' "sweep ftm2000-maps (48 points)" "$maps"
printf '%-52s %8s\n' "sweep ftm2000-kernels (88 points)" "$kernels"
printf '%-52s %8s\n' "both seed families" "$(awk -v a="$maps" -v b="$kernels" 'BEGIN { printf "%.3f", a + b }')"
