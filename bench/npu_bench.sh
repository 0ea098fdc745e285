#!/usr/bin/env bash
# NPU speed benchmark: wall-clock seconds of whole `tessim run` processes (start, config load,
# elaboration, simulation, report) for the seed-001 layer per strategy, every ResNet-18 conv layer
# of the workload library, and SCALE-Sim's own golden input (alexnet_part with scale_ws.cfg),
# whose SCALE-Sim v2 run takes about 30 s on this class of machine
# (docs/sources/scalesim-compat.md), gpt2_gemm.csv with CALC per dataflow, and the ONNX ResNet-18 and MobileNetV2 that
# tests/onnx/make_models.py writes (goal: ResNet-18 under 1 s, model loading and shape inference
# included). Each figure is the best of REPEAT tries.
#
#   bench/npu_bench.sh [TESSIM]      env: REPEAT (3), SCALESIM_DATA (../shared/data/scalesim)
set -euo pipefail
cd "$(dirname "$0")/.."
TESSIM=${1:-${TESSIM:-build/tessim}}
REPEAT=${REPEAT:-3}
DATA=${SCALESIM_DATA:-../shared/data/scalesim}
[ -x "$TESSIM" ] || { echo "error: $TESSIM is not an executable (build it, or pass its path)" >&2; exit 2; }
out=$(mktemp -d "${TMPDIR:-/tmp}/tessim-npu-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT

best() {
    local best_s="" a b s
    for _ in $(seq "$REPEAT"); do
        a=$EPOCHREALTIME
        "$@" > "$out/last" 2>&1 || { cat "$out/last" >&2; exit 1; }
        b=$EPOCHREALTIME
        s=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f", b - a }')
        if [ -z "$best_s" ] || awk -v s="$s" -v m="$best_s" 'BEGIN { exit !(s < m) }'; then best_s=$s; fi
    done
    echo "$best_s"
}

printf '%-44s %10s\n' "run (whole process)" "wall s"
for plan in naive static-single double-buffer; do
    printf '%-44s %10s\n' "conv1080p $plan" "$(best "$TESSIM" run --target npu --workload conv1080p --plan "$plan")"
done
total=0
for layer in workloads/library/resnet18-*.yaml; do
    name=$(basename "$layer" .yaml)
    s=$(best "$TESSIM" run --target npu --workload "$name" --plan double-buffer)
    total=$(awk -v t="$total" -v s="$s" 'BEGIN { printf "%.4f", t + s }')
    printf '%-44s %10s\n' "$name double-buffer" "$s"
done
printf '%-44s %10s\n' "the resnet18-*.yaml layer files (sum)" "$total"
printf '%-44s %10s\n' "resnet18 (all 20 conv layers) double-buffer" "$(best "$TESSIM" run --target npu --workload resnet18 --plan double-buffer)"
printf '%-44s %10s\n' "mobilenetv2 (52 conv layers + classifier)" "$(best "$TESSIM" run --target npu --workload mobilenetv2)"
# ONNX models: the build's (build/onnx-models), else made here with python3-onnx.
models=$(dirname "$TESSIM")/onnx-models
if [ ! -f "$models/resnet18.onnx" ]; then
    models=$out/onnx
    for py in python3 /usr/bin/python3; do
        "$py" tests/onnx/make_models.py "$models" resnet18 mobilenetv2 2>/dev/null && break
    done
fi
if [ -f "$models/resnet18.onnx" ]; then
    printf '%-44s %10s   (goal: under 1 s)\n' "ONNX resnet18.onnx (load, infer, simulate)" \
        "$(best "$TESSIM" run --target npu --workload "$models/resnet18.onnx")"
    printf '%-44s %10s\n' "ONNX mobilenetv2.onnx" "$(best "$TESSIM" run --target npu --workload "$models/mobilenetv2.onnx")"
else
    echo "ONNX models: none (needs python3-onnx, or build/onnx-models from the build)" >&2
fi
if [ -f "$DATA/configs/scale_ws.cfg" ]; then
    s=$(best "$TESSIM" run --target "$DATA/configs/scale_ws.cfg" --workload "$DATA/topologies/alexnet_part.csv" \
        --format scalesim --out "$out/ss")
    printf '%-44s %10s   (%sx faster than SCALE-Sim'"'"'s ~30 s)\n' "SCALE-Sim alexnet_part (scale_ws.cfg)" "$s" \
        "$(awk -v s="$s" 'BEGIN { printf "%.0f", 30 / s }')"
    s=$(best "$TESSIM" run --target "$DATA/configs/scale_ws.cfg" --workload "$DATA/topologies/Resnet18.csv" --format scalesim --out "$out/ss")
    printf '%-44s %10s\n' "SCALE-Sim Resnet18.csv (all layers)" "$s"
fi
# SCALE-Sim's largest example topology on its ideal interface (CALC), per dataflow: six GEMMs of
# up to 1024×4800×1600, about 1.3 G demanded words per dataflow, followed in runs rather than word by word.
if [ -f "$DATA/golden-calc/configs/calc_os.cfg" ]; then
    for df in os ws is; do
        printf '%-44s %10s\n' "SCALE-Sim gpt2_gemm.csv CALC $df" "$(best "$TESSIM" run \
            --target "$DATA/golden-calc/configs/calc_$df.cfg" --workload "$DATA/topologies/gpt2_gemm.csv" \
            --format scalesim --out "$out/ss")"
    done
fi
