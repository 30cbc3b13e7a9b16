#!/bin/sh
# The QDQ model `tosac quantize` writes (examples/ppocr_cls, a8w8, calibrated on samples
# 00-03) against the one-step `tosac compile --quantize` program of the same model and
# samples, on all 8 samples:
#  - tosac's compile of the QDQ file gives the one-step program's outputs bit for bit (the
#    same quantizer and parameters: any difference is a bug in the file's write/read);
#  - onnxruntime 1.30 runs the QDQ file, and its outputs are within one output quantization
#    step of the program's (its QLinear kernels round in float where TOSA rescales in
#    integers; measured: exactly one step, 0.0039, on some samples).
# usage: check_qdq.sh TOSAC NODE NODE_MODULES SOURCE_DIR WORK_DIR
set -eu
T=$1 NODE=$2 MODS=$3 SRC=$4 W=$5
EX=$SRC/examples/ppocr_cls
rm -rf "$W"
mkdir -p "$W/calib"
for s in 00 01 02 03; do ln -s "$EX/inputs/$s" "$W/calib/$s"; done
"$T" quantize "$EX/model.onnx" --scheme a8w8 --calib "$W/calib" -o "$W/qdq.onnx" -q
"$T" compile -q "$W/qdq.onnx" --spec TOSA-1.0+INT --input-shape x=1,3,48,192 -o "$W/qdq.prog"
"$T" compile -q "$EX/model.onnx" --spec TOSA-1.0+INT --quantize a8w8 --calib "$W/calib" \
    -o "$W/onestep.prog"
# the output step: the scale of the output's quantized form (--int-io shows it)
"$T" compile -q "$EX/model.onnx" --spec TOSA-1.0+INT --quantize a8w8 --calib "$W/calib" \
    --int-io -o "$W/int.prog"
STEP=$("$T" inspect "$W/int.prog" | awk '$1 == "output" { for (i = 1; i < NF; i++) if ($i == "scale") { print $(i + 1); exit } }')
[ -n "$STEP" ] || { echo "no output scale in tosac inspect $W/int.prog" >&2; exit 1; }
NODE_PATH=$MODS "$NODE" "$SRC/tests/data/tools/ort_reference.js" "$W/qdq.onnx" "$EX/inputs" \
    "$W/ort" >/dev/null
OUT=softmax_0.tmp_0.npy
n=0
for d in "$EX"/inputs/*/; do
    s=$(basename "$d")
    "$T" run "$W/qdq.prog" --input "$d/x.npy" -o "$W/qdq/$s"
    "$T" run "$W/onestep.prog" --input "$d/x.npy" -o "$W/onestep/$s"
    cmp "$W/qdq/$s/$OUT" "$W/onestep/$s/$OUT" || {
        echo "sample $s: the QDQ file's program and the one-step program differ" >&2; exit 1; }
    "$T" compare "$W/ort/$s/$OUT" "$W/onestep/$s/$OUT" --qtol 1 --scale "$STEP" >"$W/cmp_$s.txt" || {
        echo "sample $s: onnxruntime's run of the QDQ file is more than one step ($STEP) from the program:" >&2
        cat "$W/cmp_$s.txt" >&2; exit 1; }
    n=$((n + 1))
done
[ "$n" -eq 8 ] || { echo "expected 8 samples, ran $n" >&2; exit 1; }
echo "8 samples: QDQ file == one-step program bit for bit; onnxruntime within one step ($STEP)"
