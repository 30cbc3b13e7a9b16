#!/bin/sh
# Draws what runs where in a compiled zoo model (the picture in README.md):
#     scripts/draw-program.sh [MODEL_DIR] [SPEC] [OUT.svg]
# compiles MODEL_DIR/model.onnx for SPEC with the tosac of build/, then
# `tosac inspect PROGRAM --dot | dot -Tsvg` (Graphviz: apt-get install graphviz).
set -eu
cd "$(dirname "$0")/.."
MODEL=${1:-../shared/models/resnet18_qdq_u8s8_op13}
SPEC=${2:-TOSA-1.0+INT}
OUT=${3:-docs/images/resnet18_int8.svg}
command -v dot >/dev/null || { echo "draw-program.sh: Graphviz 'dot' is missing (apt-get install graphviz)" >&2; exit 1; }
[ -x build/tosac ] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build -j2 --target tosac_cli >/dev/null; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
./build/tosac compile "$MODEL/model.onnx" --spec "$SPEC" -o "$TMP/p.prog" --quiet
./build/tosac inspect "$TMP/p.prog" --dot > "$TMP/p.dot"
dot -Tsvg "$TMP/p.dot" -o "$OUT"
echo "$OUT: $(wc -c < "$OUT") bytes"
