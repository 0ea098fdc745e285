#!/usr/bin/env bash
# Validation speed: wall-clock seconds of whole processes for the full seed-001 layer (conv1080p,
# double-buffer, NPU): `run`, `validate` (static and hazard checks), each again with --functional
# (the MAC tiles executed on real bytes and compared with the direct convolution), and the
# ratios to the timing-only run. Each figure is the best of REPEAT tries.
#
#   bench/validate_bench.sh [TESSIM]      env: REPEAT (3)
set -euo pipefail
cd "$(dirname "$0")/.."
TESSIM=${1:-${TESSIM:-build/tessim}}
REPEAT=${REPEAT:-3}
[ -x "$TESSIM" ] || { echo "error: $TESSIM is not an executable (build it, or pass its path)" >&2; exit 2; }
out=$(mktemp -d "${TMPDIR:-/tmp}/tessim-validate-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT

# Best of REPEAT tries: "wall cpu" seconds, cpu = user + system of the process (steady when
# other work shares the machine; the simulator runs on one thread).
best() {
    local best_w="" best_c="" t w c
    for _ in $(seq "$REPEAT"); do
        t=$( { TIMEFORMAT='%3R %3U %3S'; time "$@" > "$out/last" 2> "$out/err"; } 2>&1 ) ||
            { cat "$out/err" >&2; exit 1; }
        w=$(echo "$t" | awk '{ print $1 }')
        c=$(echo "$t" | awk '{ printf "%.3f", $2 + $3 }')
        if [ -z "$best_c" ] || awk -v s="$c" -v m="$best_c" 'BEGIN { exit !(s < m) }'; then best_c=$c; best_w=$w; fi
    done
    echo "$best_w $best_c"
}

args=(--target npu --workload conv1080p --plan double-buffer)
read -r run_w run_c <<< "$(best "$TESSIM" run "${args[@]}")"
printf '%-32s %8s %8s %8s\n' "conv1080p double-buffer" "wall s" "cpu s" "× run"
row() {
    local w c
    read -r w c <<< "$2"
    printf '%-32s %8s %8s %8s\n' "$1" "$w" "$c" "$(awk -v s="$c" -v r="$run_c" 'BEGIN { printf "%.1f", s / r }')"
}
row "run" "$run_w $run_c"
row "validate" "$(best "$TESSIM" validate "${args[@]}")"
row "run --functional" "$(best "$TESSIM" run "${args[@]}" --functional)"
row "validate --functional" "$(best "$TESSIM" validate "${args[@]}" --functional)"
