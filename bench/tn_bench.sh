#!/usr/bin/env bash
# TT / TR benchmark: wall-clock and CPU seconds (user + system, the child simulations included) of
# whole `tessim tn hybrid` processes, whose layers' dense, TT and TR runs are child processes,
# `--jobs JOBS` at a time, on ResNet-18 and MobileNetV2 on the npu and on k1. Runs of equal
# description (a model's repeated layers) are simulated once.
#
#   bench/tn_bench.sh [TESSIM]   env: JOBS (all cores), TARGETS ("npu k1"), MODELS ("resnet18 mobilenetv2")
set -euo pipefail
cd "$(dirname "$0")/.."
TESSIM=${1:-${TESSIM:-build/tessim}}
JOBS=${JOBS:-$(nproc)}
TARGETS=${TARGETS:-npu k1}
MODELS=${MODELS:-resnet18 mobilenetv2}
[ -x "$TESSIM" ] || { echo "error: $TESSIM is not an executable (build it, or pass its path)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "error: needs GNU time (/usr/bin/time)" >&2; exit 2; }
out=$(mktemp -d "${TMPDIR:-/tmp}/tessim-tn-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT

printf '%-14s %6s %5s %9s %9s\n' "tn hybrid" "target" "jobs" "wall s" "cpu s"
for model in $MODELS; do
    for target in $TARGETS; do
        /usr/bin/time -o "$out/time" -f '%e %U %S' "$TESSIM" tn hybrid --model "$model" --target "$target" \
            --jobs "$JOBS" > "$out/last" 2>&1 || { cat "$out/last" >&2; exit 1; }
        read -r wall user sys < "$out/time"
        printf '%-14s %6s %5s %9s %9s\n' "$model" "$target" "$JOBS" "$wall" \
            "$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')"
    done
done
