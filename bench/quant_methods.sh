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
      cos=""; agree=0; n=0; sc=-
      for s in "$Z/$model/inputs"/*/; do
        smp=$(basename "$s"); args=""
        for f in "$s"*.npy; do args="$args --input $(basename "$f" .npy)=$f"; done
        rm -rf "$T/out"; mkdir "$T/out"
        # shellcheck disable=SC2086
        "$TOSAC" run "$T/p.tosac" $args --output-dir "$T/out" >/dev/null 2>&1
        for e in "$Z/$model/expected/$smp"/*.npy; do
          "$TOSAC" compare "$e" "$T/out/$(basename "$e")" >"$T/cmp" 2>/dev/null || true
          if grep -q '^elements: 1$' "$T/cmp"; then
            sc=$(awk -v m="$sc" '/^max_abs_diff/{print (m == "-" || $2 > m) ? $2 : m}' "$T/cmp")
          else
            c=$(awk '/^cosine/{print $2}' "$T/cmp")
            cos="$cos ${c:-nan}"
          fi
          n=$((n + 1))
          [ "$(awk '/^argmax_agree/{split($2, a, "/"); print (a[1] == a[2])}' "$T/cmp")" = 1 ] &&
            agree=$((agree + 1))
        done
      done
      echo "$model $scheme $method$(echo $cos | awk '{w=2;s=0;for(i=1;i<=NF;i++){if($i<w)w=$i;s+=$i}; printf " %.5f %.5f", w, s/NF}') $agree/$n $sc"
    done
  done
done
