#!/bin/sh
# The runtime's prepared blocks (issue 9): MobileNetV2 with its 52 Convs left float on the
# CPU (a8w8 for the rest, --exclude Conv), `tosac bench` median before/after, alternating so
# the machine's load falls on both alike.
# usage: bench/rt_prepared.sh TOSAC_BEFORE TOSAC_AFTER [SHARED_DIR] [ROUNDS] [RUNS]
set -eu
before=$1 after=$2 shared=${3:-/work/shared} rounds=${4:-3} runs=${5:-50}
m=$shared/models/mobilenet_v2_f32_op13
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for v in before after; do
  eval bin=\$$v
  "$bin" compile "$m/model.onnx" --spec TOSA-1.0+INT --quantize a8w8 \
      --calib "$m/inputs/00" --exclude Conv -o "$tmp/$v.prog" -q
  "$bin" run "$tmp/$v.prog" --input "$m/inputs/00/input.npy" --output-dir "$tmp/$v" -q
  printf '%s: whole arena %s\n' "$v" \
      "$("$bin" inspect "$tmp/$v.prog" | sed -n 's/.*whole arena \([0-9]*\) bytes.*/\1/p')"
done
cmp "$tmp/before/logits.npy" "$tmp/after/logits.npy" && echo "outputs: identical"
i=0
while [ $i -lt "$rounds" ]; do
  for v in before after; do
    eval bin=\$$v
    printf '%s round %d: %s\n' "$v" $i \
        "$("$bin" bench "$tmp/$v.prog" --runs "$runs" --warmup 5 | grep -E 'median_ms|min_ms|cpu_ms' | tr '\n' ' ')"
  done
  i=$((i + 1))
done
