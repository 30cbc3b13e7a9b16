#!/bin/sh
# Builds the seed corpora of the fuzz targets from test data into build-fuzz/corpus/<target>/
# (never committed): conformance .tosa files, the small synth_* zoo models and the examples,
# their .npy inputs, programs and delegate JSON compiled from them, spec strings, plus the
# committed hand-made seeds of fuzz/seeds/<target>/. Usage: sh fuzz/make-corpus.sh [BUILD_DIR]
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build-fuzz}
SHARED=${TOSAC_SHARED_DIR:-$(pwd)/../shared}
CLI=$BUILD/tosac
C=$BUILD/corpus
rm -rf "$C"
for t in onnx tosa program npy spec json compile; do mkdir -p "$C/$t"; done
for t in fuzz/seeds/*/; do cp "$t"* "$C/$(basename "$t")/" 2>/dev/null || true; done

n=0
# .tosa: the conformance graphs, small ones only (a few hundred suffice; keeps -runs cheap).
if [ -d "$SHARED/conformance" ]; then
    for f in $(find "$SHARED/conformance" -name '*.tosa' -size -4k | sort | awk 'NR % 4 == 1'); do
        n=$((n + 1)); cp "$f" "$C/tosa/conf_$n.tosa"
    done
fi
# ONNX models (reader and end-to-end compile), their .npy inputs, compiled programs and JSON.
i=0
for m in "$SHARED"/models/synth_*/model.onnx examples/*/model.onnx; do
    [ -f "$m" ] || continue
    i=$((i + 1)); d=$(dirname "$m")
    cp "$m" "$C/onnx/m_$i.onnx"
    [ "$(wc -c < "$m")" -le 65536 ] && cp "$m" "$C/compile/m_$i.onnx"
    for x in "$d"/inputs/00/*.npy; do [ -f "$x" ] && cp "$x" "$C/npy/m_${i}_$(basename "$x")"; done
    if [ -x "$CLI" ] && [ "$(wc -c < "$m")" -le 65536 ]; then
        e=$(mktemp -d)
        if "$CLI" compile "$m" --spec TOSA-1.0+INT -o "$e/p.tosac" --emit-tosa "$e/emit" \
            --report "$e/r.json" >/dev/null 2>&1; then
            cp "$e/p.tosac" "$C/program/m_$i.tosac"
            cp "$e/r.json" "$C/json/r_$i.json"
            for j in "$e"/emit/*.json; do [ -f "$j" ] && cp "$j" "$C/json/m_${i}_$(basename "$j")"; done
            for g in "$e"/emit/*.tosa; do [ -f "$g" ] && cp "$g" "$C/tosa/m_${i}_$(basename "$g")"; done
        fi
        rm -rf "$e"
    fi
done
for s in TOSA-1.0+INT TOSA-1.0+FP TOSA-1.0+INT+FP TOSA-1.0+INT+int16 TOSA-1.1+INT+FP+int64 \
         TOSA-1.0+INT+u55 TOSA-1.0.0+INT+FP+fp8e4m3+bf16 TOSA-1.1+FP+int64+8k; do
    printf '%s' "$s" > "$C/spec/$(echo "$s" | tr '+.' '__')"
done
for t in onnx tosa program npy spec json compile; do
    echo "corpus/$t: $(ls "$C/$t" | wc -l) files"
done
