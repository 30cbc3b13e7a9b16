#!/bin/sh
# Held-out accuracy of `tosac compile --quantize` on the zoo's float models: the samples are
# split into FOLDS folds (sample i in fold i mod FOLDS; 3 by default, so mobilenet_v2's three
# samples are left out one at a time); each fold is measured on a program calibrated on the
# other folds' samples only. Every output of every held-out sample is compared with
# onnxruntime's float output in the zoo (`expected/`).
# Usage: bench/quant_holdout.sh [TOSAC]; MODELS="...", SCHEMES="...", METHODS="..." (default
# the default method only: "default"), EXTRA="..." (quantizer options, e.g.
# "--weight-rounding nearest"; with --int16 or --mixed the a8w8 spec gets +int16), SPEC_EXT="..."
# (appended to the spec, e.g. "+cf": If/Loop bodies quantized too).
# Prints one row per model/scheme/method:
#   model scheme method worst-cosine median-cosine top1-agree/rows max|diff|-of-scalar-outputs
# (cosine over the outputs of more than one element; a one-value output has cosine 0 or 1, so
# its largest absolute difference is shown; top-1 over the last axis of every output)
set -eu
. "$(dirname "$0")/quant_measure.sh"
TOSAC=${1:-./build/tosac}
Z=${TOSAC_SHARED_DIR:-/work/shared}/models
FOLDS=${FOLDS:-3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for model in ${MODELS:-mobilenet_v2_f32_op13 ppocr_mobile_v2_cls silero_vad_op18_ifless}; do
  samples=$(cd "$Z/$model/inputs" && ls -d */ | tr -d /)
  for scheme in ${SCHEMES:-a8w8 a16w8}; do
    spec=TOSA-1.0+INT; [ $scheme = a16w8 ] && spec=TOSA-1.0+INT+int16
    case "${EXTRA:-}" in *--int16*|*--mixed*) spec=TOSA-1.0+INT+int16 ;; esac
    spec=$spec${SPEC_EXT:-}
    for method in ${METHODS:-default}; do
      mopt=""; [ "$method" = default ] || mopt="--calib-method $method"
      : >"$T/cos"; agree=0; n=0; sc=-; failed=""
      f=0
      while [ $f -lt "$FOLDS" ]; do
        rm -rf "$T/calib"; mkdir "$T/calib"; held=""; i=0
        for s in $samples; do
          if [ $((i % FOLDS)) -eq $f ]; then held="$held $s"; else ln -s "$Z/$model/inputs/$s" "$T/calib/$s"; fi
          i=$((i + 1))
        done
        f=$((f + 1))
        [ -n "$held" ] || continue
        # shellcheck disable=SC2086
        if ! "$TOSAC" compile "$Z/$model/model.onnx" --spec $spec --quantize $scheme \
             --calib "$T/calib" $mopt ${EXTRA:-} -o "$T/p.tosac" --quiet 2>"$T/err"; then
          failed="compile-failed: $(tail -1 "$T/err")"; break
        fi
        for smp in $held; do
          quant_measure_sample "$model" "$smp"
        done
      done
      if [ -n "$failed" ]; then echo "$model $scheme $method $failed"; continue; fi
      echo "$model $scheme $method$(sort -g "$T/cos" | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2; printf " %.5f %.5f", v[1], m}') $agree/$n $sc"
    done
  done
done
