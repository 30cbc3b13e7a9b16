#!/bin/sh
# Every graph of the shared conformance suite through `tosac inspect --mlir` and MLIR's TOSA
# validator (all 1.0 profiles and extensions enabled). Two known disagreements are listed, not
# hidden: mlir-opt-22 requires a WHILE_LOOP's cond region to be isolated from above (the
# reference model's while_loop tests read the calling block's tensors from it), and its level
# check counts the length of a PAD's padding shape (2 x rank) against MAX_RANK, refusing pads
# of rank 4 and more. Any other refusal, or an emit failure, fails the test.
#     check_conformance.sh TOSAC MLIR_OPT CONFORMANCE_DIR WORK
set -eu
T=$1 OPT=$2 C=$3 W=$4
mkdir -p "$W"
TARGET="specification_version=1.0 profiles=pro_int,pro_fp extensions=int16,int4,bf16,fp8e4m3,fp8e5m2,fft,variable,controlflow,doubleround,inexactround"
ok=0 known=0 bad=0
for f in "$C"/*/*/*.tosa; do
    if ! "$T" inspect "$f" --mlir > "$W/g.mlir" 2> "$W/emit.err"; then
        echo "emit failed: $f: $(cat "$W/emit.err")"; bad=$((bad + 1)); continue
    fi
    if "$OPT" "$W/g.mlir" --tosa-attach-target="$TARGET" --tosa-validate=strict-op-spec-alignment \
        -o /dev/null 2> "$W/opt.err"; then
        ok=$((ok + 1))
    elif grep -q "'cond' region is isolated from above" "$W/opt.err" ||
         grep -q "'tosa.pad' op failed shape type level check" "$W/opt.err"; then
        known=$((known + 1))
    else
        echo "refused: $f: $(head -n 1 "$W/opt.err")"; bad=$((bad + 1))
    fi
done
echo "conformance graphs: $ok accepted, $known known mlir-opt disagreements, $bad failures"
[ "$bad" -eq 0 ] && [ "$ok" -ge 1000 ]
