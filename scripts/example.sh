#!/bin/sh
# The main job on the bundled example (examples/ppocr_cls, PaddleOCR's text-line orientation
# classifier): quantize the float model (a8w8, calibrated on its 8 samples), compile it for
# TOSA-1.0+INT, run the compiled program on every sample, and show what was delegated and how
# close the result is to the float model.
set -eu
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
T=./build/tosac
EX=examples/ppocr_cls
OUT=build/example
rm -rf "$OUT"
mkdir -p "$OUT"

echo "== tosac spec TOSA-1.0+INT"
$T spec TOSA-1.0+INT

echo
echo "== quantize (a8w8, 8 calibration samples) and compile for TOSA-1.0+INT"
$T compile $EX/model.onnx --spec TOSA-1.0+INT --quantize a8w8 --calib $EX/inputs \
    -o "$OUT/ppocr_cls.prog" --report "$OUT/report.json" --emit-tosa "$OUT/tosa"
echo "program: $OUT/ppocr_cls.prog ($(wc -c < "$OUT/ppocr_cls.prog") bytes)," \
     "delegates: $(ls "$OUT"/tosa/*.tosa | wc -l) .tosa files in $OUT/tosa"

echo
echo "== where each operator runs (from $OUT/report.json)"
# (model nodes only: the report is indented two spaces a level, and "parts" sit deeper)
awk -F'"' '/^      "op_type"/ {op=$4} /^      "placement"/ {n[op" -> "$4]++}
           END {for (k in n) printf "  %-40s %d\n", k, n[k]}' "$OUT/report.json" | sort

echo
echo "== run the compiled program and the float model on every sample"
echo "sample  float(0/180)            int8 TOSA program(0/180)  max_abs_diff  same class"
for d in $EX/inputs/*/; do
    s=$(basename "$d")
    $T run $EX/model.onnx --input "$d/x.npy" --output-dir "$OUT/float/$s" >/dev/null
    $T run "$OUT/ppocr_cls.prog" --input "$d/x.npy" --output-dir "$OUT/prog/$s" >/dev/null
    # exit 1 = outside compare's default tolerance (1e-3): expected of int8 against float;
    # the figures are printed either way, and exit 2 (cannot compare) still stops the script
    cmp=$($T compare "$OUT/float/$s/softmax_0.tmp_0.npy" "$OUT/prog/$s/softmax_0.tmp_0.npy") ||
        [ $? -eq 1 ]
    diff=$(echo "$cmp" | awk '/^max_abs_diff/ {print $2}')
    agree=$(echo "$cmp" | awk '/^argmax_agree/ {print ($2 == "1/1") ? "yes" : "NO"}')
    printf "%s      %-22s  %-24s  %-12s  %s\n" "$s" \
        "$(od -An -f -j 128 "$OUT/float/$s/softmax_0.tmp_0.npy" | xargs)" \
        "$(od -An -f -j 128 "$OUT/prog/$s/softmax_0.tmp_0.npy" | xargs)" "$diff" "$agree"
done
