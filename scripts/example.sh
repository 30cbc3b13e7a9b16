#!/bin/sh
# The main job on the bundled example (examples/ppocr_cls, PaddleOCR's text-line orientation
# classifier): quantize the float model (a8w8, calibrated on 4 of its 8 samples), compile it
# for TOSA-1.0+INT, run the compiled program on the 4 samples calibration did not see, and show
# what was delegated and how close the result is to the float model.
set -eu
cd "$(dirname "$0")/.."
echo "== building the tosac command line (build/tosac)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target tosac_cli -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
T=./build/tosac
EX=examples/ppocr_cls
OUT=build/example
rm -rf "$OUT"
mkdir -p "$OUT/calib"
# calibration samples 00-03; samples 04-07 are held out for the comparison
for s in 00 01 02 03; do ln -s "../../../$EX/inputs/$s" "$OUT/calib/$s"; done

echo "== tosac spec TOSA-1.0+INT"
$T spec TOSA-1.0+INT

echo
echo "== quantize (a8w8, calibrated on samples 00-03) and compile for TOSA-1.0+INT"
$T compile $EX/model.onnx --spec TOSA-1.0+INT --quantize a8w8 --calib "$OUT/calib" \
    -o "$OUT/ppocr_cls.prog" --report "$OUT/report.json" --emit-tosa "$OUT/tosa"
echo "program: $OUT/ppocr_cls.prog ($(wc -c < "$OUT/ppocr_cls.prog") bytes)," \
     "delegates: $(ls "$OUT"/tosa/*.tosa | wc -l) .tosa files in $OUT/tosa"

echo
echo "== where each operator runs (from $OUT/report.json)"
# (model nodes only: the report is indented two spaces a level, and "parts" sit deeper)
awk -F'"' '/^      "op_type"/ {op=$4} /^      "placement"/ {n[op" -> "$4]++}
           END {for (k in n) printf "  %-40s %d\n", k, n[k]}' "$OUT/report.json" | sort

echo
echo "== the compiled int8 program against the float model, on the held-out samples 04-07"
echo "The model's output is the softmax over its 2 classes (0 and 180 degrees). cosine and"
echo "SQNR (signal over error energy, in dB: 20 dB is a 10x smaller error than the signal,"
echo "40 dB 100x) compare the program's output with the float model's; 'same class' is"
echo "whether both pick the same orientation."
echo "sample  float (p0 p1)           int8 program (p0 p1)      cosine    SQNR dB  same class"
for s in 04 05 06 07; do
    d=$EX/inputs/$s
    $T run $EX/model.onnx --input "$d/x.npy" --output-dir "$OUT/float/$s" >/dev/null
    $T run "$OUT/ppocr_cls.prog" --input "$d/x.npy" --output-dir "$OUT/prog/$s" >/dev/null
    # exit 1 = outside compare's default tolerance (1e-3): expected of int8 against float;
    # the figures are printed either way, and exit 2 (cannot compare) still stops the script
    cmp=$($T compare "$OUT/float/$s/softmax_0.tmp_0.npy" "$OUT/prog/$s/softmax_0.tmp_0.npy") ||
        [ $? -eq 1 ]
    cos=$(echo "$cmp" | awk '/^cosine/ {print $2}')
    sqnr=$(echo "$cmp" | awk '/^sqnr_db/ {print $2}')
    agree=$(echo "$cmp" | awk '/^argmax_agree/ {print ($2 == "1/1") ? "yes" : "NO"}')
    printf "%s      %-22s  %-24s  %-8s  %-7s  %s\n" "$s" \
        "$(od -An -f -j 128 "$OUT/float/$s/softmax_0.tmp_0.npy" | xargs)" \
        "$(od -An -f -j 128 "$OUT/prog/$s/softmax_0.tmp_0.npy" | xargs)" "$cos" "$sqnr" "$agree"
done
