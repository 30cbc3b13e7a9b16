#!/bin/sh
# Compiles one model for one spec with --emit-mlir and has MLIR's own TOSA validator accept
# the delegates: mlir-opt-22 --tosa-attach-target (the spec's profiles and extensions)
# --tosa-validate=strict-op-spec-alignment. Also checks that every delegate became a function
# and that each delegate's `tosac inspect N.tosa --mlir` passes the same check.
#     check_mlir.sh TOSAC MLIR_OPT MODEL.onnx SPEC PROFILES EXTENSIONS WORK [compile args...]
set -eu
T=$1 OPT=$2 MODEL=$3 SPEC=$4 PROFILES=$5 EXT=$6 W=$7
shift 7
rm -rf "$W"
mkdir -p "$W"
"$T" compile "$MODEL" --spec "$SPEC" -o "$W/p.prog" --emit-tosa "$W/tosa" --emit-mlir "$W/all.mlir" \
    --quiet "$@"
TARGET="specification_version=1.0 profiles=$PROFILES"
[ -n "$EXT" ] && TARGET="$TARGET extensions=$EXT"
"$OPT" "$W/all.mlir" --tosa-attach-target="$TARGET" --tosa-validate=strict-op-spec-alignment \
    -o "$W/checked.mlir"
N=$(ls "$W/tosa" | grep -c '\.tosa$' || true)
F=$(grep -c 'func.func @delegate_' "$W/checked.mlir" || true)
[ "$N" -ge 1 ] || { echo "no delegate to check"; exit 1; }
[ "$N" = "$F" ] || { echo "$N delegates but $F functions in the MLIR"; exit 1; }
for t in "$W"/tosa/*.tosa; do
    "$T" inspect "$t" --mlir > "$W/one.mlir"
    "$OPT" "$W/one.mlir" --tosa-attach-target="$TARGET" --tosa-validate=strict-op-spec-alignment \
        -o /dev/null
done
echo "mlir ok: $N delegates ($SPEC)"
