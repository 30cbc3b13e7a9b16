#!/bin/sh
# bench/vs_onnxruntime.sh [--runs N] [--threads N] [SHARED_DIR]
# tosac and onnxruntime-node (1.30.0) on the same models and input, in one run, printed as a
# markdown table: each side's median wall time of N runs (after 3 warm-up runs), their ratio
# (tosac / onnxruntime: below 1 is tosac faster), each process's CPU time per run (all its
# threads; on a shared machine the steadier figure) and ratio, and each process's peak RSS.
#
# Rows: the resnet18 and mobilenet_v2 QDQ int8 models (tosac: the program compiled under
# TOSA-1.0+INT; onnxruntime: the QDQ model), mobilenet_v2 and ppocr quantized a16w8 (tosac:
# `compile --quantize a16w8` under +int16; onnxruntime: the QDQ model `tosac quantize --scheme
# a16w8` writes from the same calibration, sample folders of the model), and the float models
# on tosac's CPU part (`tosac bench MODEL.onnx`) against onnxruntime on the same file. Input:
# sample 00 of each model. Both sides get --threads threads (default 1: onnxruntime
# intra-op threads, tosac's accelerated kernels' pool). The kernel variant tosac used is
# printed (TOSAC_KERNEL_ISA=portable|avx2|avx512vnni forces one).
#
# Environment: TOSAC (default build/tosac), TOSAC_SHARED_DIR (the zoo; default: the one the
# build was configured with), ORT_DIR (default /tmp/ort: a folder holding
# node_modules/onnxruntime-node; when absent it is installed there with
# `ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node@1.30.0`, whose package carries
# the CPU library).
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
runs=20 threads=1 shared=${TOSAC_SHARED_DIR:-}
while [ $# -gt 0 ]; do
    case $1 in
    --runs) runs=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "vs_onnxruntime.sh: unknown option $1" >&2; exit 2 ;;
    *) shared=$1; shift ;;
    esac
done
tosac=${TOSAC:-$src/build/tosac}
# the zoo: SHARED_DIR, else $TOSAC_SHARED_DIR, else what the build was configured with
[ -n "$shared" ] || shared=$(sed -n 's/^TOSAC_SHARED_DIR:PATH=//p' "$(dirname "$tosac")/CMakeCache.txt" 2>/dev/null)
[ -n "$shared" ] || shared=$src/../shared
ort=${ORT_DIR:-/tmp/ort}
[ -x "$tosac" ] || { echo "vs_onnxruntime.sh: no tosac at $tosac (build first)" >&2; exit 2; }
[ -d "$shared/models" ] || { echo "vs_onnxruntime.sh: no models in $shared" >&2; exit 2; }
if [ ! -d "$ort/node_modules/onnxruntime-node" ]; then
    mkdir -p "$ort" && (cd "$ort" && ONNXRUNTIME_NODE_INSTALL=skip npm install --silent \
        onnxruntime-node@1.30.0 >/dev/null) ||
        { echo "vs_onnxruntime.sh: cannot install onnxruntime-node in $ort" >&2; exit 2; }
fi
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fig() { sed -n "s/^$1: \([^ ]*\).*/\1/p" "$2"; }

echo "tosac $("$tosac" --version | cut -d' ' -f2), onnxruntime-node" \
    "$(sed -n 's/.*"version": "\(.*\)".*/\1/p' "$ort/node_modules/onnxruntime-node/package.json" | head -1)," \
    "$runs runs, $threads thread(s), $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| model | tosac ms | onnxruntime ms | ratio | tosac CPU ms | onnxruntime CPU ms | CPU ratio | tosac kernels | tosac peak RSS MiB | onnxruntime peak RSS MiB |"
echo "|---|---|---|---|---|---|---|---|---|---|"
# row LABEL TOSAC_FILE ORT_MODEL INPUT [tosac bench options]
row() {
    label=$1 file=$2 onnx=$3 input=$4
    shift 4
    if ! "$tosac" bench "$file" --input "$input" --runs "$runs" --warmup 3 \
        --threads "$threads" "$@" >"$t/tb" 2>"$t/err"; then
        echo "| $label | tosac: $(head -c 120 "$t/err") | | | | | | | | |"
        return
    fi
    if ! node "$src/bench/ort_bench.js" "$ort" "$onnx" "$input" "$runs" 3 "$threads" \
        >"$t/ob" 2>"$t/err"; then
        echo "| $label | $(fig median_ms "$t/tb") | onnxruntime: $(head -c 120 "$t/err") | | | | | | | |"
        return
    fi
    awk -v l="$label" -v a="$(fig median_ms "$t/tb")" -v b="$(fig median_ms "$t/ob")" \
        -v ca="$(fig cpu_ms "$t/tb")" -v cb="$(fig cpu_ms "$t/ob")" \
        -v k="$(fig kernels "$t/tb")" -v ra="$(fig peak_rss_kib "$t/tb")" \
        -v rb="$(fig peak_rss_kib "$t/ob")" \
        'BEGIN { printf "| %s | %.2f | %.2f | %.2fx | %.2f | %.2f | %.2fx | %s | %.0f | %.0f |\n",
                 l, a, b, a / b, ca, cb, ca / cb, k, ra / 1024, rb / 1024 }'
}
M=$shared/models
compile() { # OUT MODEL SPEC [options]
    out=$1 m=$2 spec=$3
    shift 3
    "$tosac" compile "$M/$m/model.onnx" --spec "$spec" "$@" -o "$t/$out" --quiet 2>"$t/err" ||
        echo "vs_onnxruntime.sh: compiling $m failed: $(head -c 200 "$t/err")" >&2
}
for m in resnet18_qdq_u8s8_op13 mobilenet_v2_qdq_u8s8_op13; do
    compile "$m.prog" "$m" TOSA-1.0+INT
    row "${m%%_qdq*} int8" "$t/$m.prog" "$M/$m/model.onnx" "$M/$m/inputs/00/input.npy"
done
for m in mobilenet_v2_f32_op13 ppocr_mobile_v2_cls; do
    shape="" in=$M/$m/inputs/00/input.npy
    [ "$m" = ppocr_mobile_v2_cls ] && shape="--input-shape x=1,3,48,192" in=$M/$m/inputs/00/x.npy
    # shellcheck disable=SC2086
    compile "$m.a16w8.prog" "$m" TOSA-1.0+INT+int16 --quantize a16w8 --calib "$M/$m/inputs" $shape
    "$tosac" quantize "$M/$m/model.onnx" --scheme a16w8 --calib "$M/$m/inputs" \
        -o "$t/$m.a16w8.onnx" 2>"$t/err" ||
        echo "vs_onnxruntime.sh: quantizing $m failed: $(head -c 200 "$t/err")" >&2
    row "${m%_f32_op13} a16w8" "$t/$m.a16w8.prog" "$t/$m.a16w8.onnx" "$in"
done
for m in mobilenet_v2_f32_op13 ppocr_mobile_v2_cls; do
    in=$M/$m/inputs/00/input.npy
    [ "$m" = ppocr_mobile_v2_cls ] && in=$M/$m/inputs/00/x.npy
    # the CPU part runs one thread: no --threads for ONNX files
    threads_saved=$threads threads=1
    row "${m%_f32_op13} float (CPU part)" "$M/$m/model.onnx" "$M/$m/model.onnx" "$in" \
        $([ "$m" = ppocr_mobile_v2_cls ] && echo --input-shape x=1,3,48,192)
    threads=$threads_saved
done
