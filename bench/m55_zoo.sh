#!/bin/sh
# bench/m55_zoo.sh [SHARED_DIR]: every zoo model compiled as bench_arena does (QDQ int8 under
# TOSA-1.0+INT, int16 QDQ under +int16, float models under TOSA-1.0+FP; ppocr also quantized
# a16w8), sample 00 run with the host `tosac run` and on the Cortex-M55 under QEMU
# (scripts/run-cortex-m55.sh); prints a markdown table: arena, program and image sizes, QEMU
# wall time, and whether every output file is byte-identical with the host's. Uses build/ and
# build/m55 (TOSAC_HOST_BUILD, TOSAC_M55_BUILD).
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
shared=${1:-$src/../shared}
tosac=${TOSAC_HOST_BUILD:-$src/build}/tosac
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
echo "| model | spec | arena bytes | program bytes | image text+data bytes | QEMU s | outputs |"
echo "|---|---|---|---|---|---|---|"
row() { # model spec [compile options]
    m=$1 spec=$2
    shift 2
    d=$shared/models/$m
    label=$m
    [ "${1:-}" = --quantize ] && label="$m ($2)"
    rm -rf "$t/host" "$t/m55"
    if ! "$tosac" compile "$d/model.onnx" --spec "$spec" "$@" -o "$t/p.prog" --quiet 2>"$t/err"; then
        echo "| $label | $spec | | | | | compile: $(head -c 120 "$t/err") |"
        return
    fi
    set --
    for f in "$d"/inputs/00/*.npy; do set -- "$@" --input "$(basename "$f" .npy)=$f"; done
    "$tosac" run "$t/p.prog" "$@" --output-dir "$t/host" 2>"$t/err" ||
        { echo "| $label | $spec | | | | | host run: $(head -c 120 "$t/err") |"; return; }
    s0=$(date +%s)
    if ! sh "$src/scripts/run-cortex-m55.sh" "$t/p.prog" "$@" --output-dir "$t/m55" --stats \
        >"$t/stats" 2>"$t/err"; then
        echo "| $label | $spec | | | | | M55: $(head -c 160 "$t/err") |"
        return
    fi
    s1=$(date +%s)
    v() { sed -n "s/^$1 //p" "$t/stats"; }
    same=identical
    n=0
    for f in "$t"/host/*.npy; do
        n=$((n + 1))
        cmp -s "$f" "$t/m55/$(basename "$f")" || same="DIFFER ($(basename "$f"))"
    done
    echo "| $label | $spec | $(v arena_bytes) | $(v program_bytes) | $(($(v image_text_bytes) + $(v image_data_bytes))) | $((s1 - s0)) | $n $same |"
}
for m in mobilenet_v2_qdq_u8s8_op13 resnet18_qdq_u8s8_op13; do row $m TOSA-1.0+INT; done
for m in mobilenet_v2_f32_op13 synth_int64_ops_op13; do row $m TOSA-1.0+FP; done
row ppocr_mobile_v2_cls TOSA-1.0+FP --input-shape x=1,3,48,192
row silero_vad_op18_ifless TOSA-1.0+FP --input-shape input=1,576 --input-shape state=2,1,128
row ppocr_mobile_v2_cls TOSA-1.0+INT+int16 --quantize a16w8 --calib "$shared/models/ppocr_mobile_v2_cls/inputs"
for op in add concat conv conv_dw gemm matmul mul sigmoid softmax split_matmul tanh; do
    row synth_qdq_s8_op13_$op TOSA-1.0+INT
    row synth_qdq_s16_op21_$op TOSA-1.0+INT+int16
done
