#!/bin/sh
# bench/m55_zoo.sh [--insns] [SHARED_DIR]: first, instructions per inference on the M55 for the
# int8 CNN mobilenet_v2 (QDQ, TOSA-1.0+INT), counted by QEMU (run-cortex-m55.sh --count-insns):
# the reference interpreter (options.reference), the accelerated kernels in their portable
# variant, and in their Helium variant (the M55 default); with --insns only that table. Then
# every zoo model compiled as bench_arena does (QDQ int8 under
# TOSA-1.0+INT, int16 QDQ under +int16, float models under TOSA-1.0+FP; ppocr also quantized
# a16w8), sample 00 run with the host `tosac run` and on the Cortex-M55 under QEMU
# (scripts/run-cortex-m55.sh); prints a markdown table: arena, program and image sizes, QEMU
# wall time, and whether every output file is byte-identical with the host's. Uses build/ and
# build/m55 (TOSAC_HOST_BUILD, TOSAC_M55_BUILD).
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
tosac=${TOSAC_HOST_BUILD:-$src/build}/tosac
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
insns_only=0
[ "${1:-}" = --insns ] && { insns_only=1; shift; }
shared=${1:-$src/../shared}

# Instructions per inference: one program, three kernel settings, outputs compared.
m=mobilenet_v2_qdq_u8s8_op13
d=$shared/models/$m
echo "| $m int8 on the M55 | instructions per inference | init instructions | outputs |"
echo "|---|---|---|---|"
if "$tosac" compile "$d/model.onnx" --spec TOSA-1.0+INT -o "$t/i.prog" --quiet 2>"$t/err"; then
    rm -rf "$t/ref"
    for k in reference portable helium; do
        case $k in reference) opt=--reference ;; *) opt="--kernels $k" ;; esac
        rm -rf "$t/o"
        # shellcheck disable=SC2086
        if sh "$src/scripts/run-cortex-m55.sh" "$t/i.prog" --input "$d/inputs/00/input.npy" \
            --output-dir "$t/o" --count-insns $opt >"$t/n" 2>"$t/err"; then
            [ -d "$t/ref" ] || cp -r "$t/o" "$t/ref"
            same="identical to the reference"
            for f in "$t"/ref/*.npy; do
                cmp -s "$f" "$t/o/$(basename "$f")" || same="DIFFER ($(basename "$f"))"
            done
            printf '| %s | %s | %s | %s |\n' "$k" "$(sed -n 's/^insns_invoke //p' "$t/n")" \
                "$(sed -n 's/^insns_init //p' "$t/n")" "$same"
        else
            echo "| $k | | | M55: $(head -c 160 "$t/err") |"
        fi
    done
    # Code size: the image (runtime + port, without program and arena) and its Helium kernels.
    elf=${TOSAC_M55_BUILD:-${TOSAC_HOST_BUILD:-$src/build}/m55}/ports/cortex-m55/tosac_m55_image.elf
    sh "$src/scripts/run-cortex-m55.sh" "$t/i.prog" --input "$d/inputs/00/input.npy" \
        --output-dir "$t/o" --stats >"$t/n" 2>"$t/err"
    hel=0
    for sz in $(arm-none-eabi-nm -S "$elf" 2>/dev/null | awk '$4 ~ /_helium$/ { print $2 }'); do
        hel=$((hel + 0x$sz))
    done
    echo
    echo "image text+rodata $(sed -n 's/^image_text_bytes //p' "$t/n") bytes, of which the Helium kernels (*_helium functions) $hel bytes"
else
    echo "| | | | compile: $(head -c 120 "$t/err") |"
fi
[ "$insns_only" = 1 ] && exit 0
echo
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
