#!/bin/sh
# Cosine against the float model (onnxruntime's outputs in the zoo) of every output of the
# zoo's float models, quantized by `tosac compile --quantize` with each --calib-method, for
# a8w8 and a16w8, run with `tosac run` on the models' own samples (calibrated on all of them).
# Usage: bench/quant_methods.sh [TOSAC] [METHODS...]; prints one row per model/scheme/method:
#   model scheme method worst-cosine mean-cosine top1-agree/rows max|diff|-of-scalar-outputs
# (cosine over samples and the outputs of more than one element: a one-value output, silero's
# speech probability, has cosine 0 or 1 only, so its largest absolute difference is shown;
# top-1 over the last axis of every output; MODELS="..." picks models, SCHEMES="..." the
# schemes, EXTRA="..." adds quantizer options (e.g. EXTRA="--mixed auto"; with --int16 or
# --mixed the a8w8 spec gets +int16))
set -eu
. "$(dirname "$0")/quant_measure.sh"
TOSAC=${1:-./build/tosac}
[ $# -gt 0 ] && shift
METHODS=${*:-minmax moving-average percentile mse entropy}
Z=${TOSAC_SHARED_DIR:-/work/shared}/models
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for model in ${MODELS:-mobilenet_v2_f32_op13 ppocr_mobile_v2_cls silero_vad_op18_ifless}; do
  for scheme in ${SCHEMES:-a8w8 a16w8}; do
    spec=TOSA-1.0+INT; [ $scheme = a16w8 ] && spec=TOSA-1.0+INT+int16
    case "${EXTRA:-}" in *--int16*|*--mixed*) spec=TOSA-1.0+INT+int16 ;; esac
    for method in $METHODS; do
      if ! "$TOSAC" compile "$Z/$model/model.onnx" --spec $spec --quantize $scheme \
           --calib "$Z/$model/inputs" --calib-method $method ${EXTRA:-} -o "$T/p.tosac" \
           --quiet 2>"$T/err"; then
        echo "$model $scheme $method compile-failed: $(tail -1 "$T/err")"; continue
      fi
      : >"$T/cos"; agree=0; n=0; sc=-
      for s in "$Z/$model/inputs"/*/; do
        quant_measure_sample "$model" "$(basename "$s")"
      done
      echo "$model $scheme $method$(awk '{if (NR == 1 || $1 < w) w = $1; s += $1} END {printf " %.5f %.5f", w, s / NR}' "$T/cos") $agree/$n $sc"
    done
  done
done
