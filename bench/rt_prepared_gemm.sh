#!/bin/sh
# Constant B of float MatMul/Gemm packed once at init (issue 10): the SVTR-style transformer
# (bench/torch_models/svtr_tiny.onnx, 13 MatMuls, 48 tokens) a8w8 with --exclude MatMul so
# its MatMuls stay float on the CPU, and MobileNetV2 with --exclude Gemm (its classifier Gemm
# has one row: the few-row path reads B in place, nothing to pack, so no change expected);
# `tosac bench` medians before/after, alternating so the machine's load falls on both alike.
# The calibration/input sample of svtr is pseudo-random (written here, python3 stdlib only).
# usage: bench/rt_prepared_gemm.sh TOSAC_BEFORE TOSAC_AFTER [SHARED_DIR] [ROUNDS] [RUNS]
set -eu
before=$1 after=$2 shared=${3:-/work/shared} rounds=${4:-3} runs=${5:-50}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/svtr_in"
python3 - "$tmp/svtr_in/x.npy" <<'PY'
import random, struct, sys
shape, n = (1, 3, 48, 192), 3 * 48 * 192
h = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % (shape,)
h += ' ' * ((64 - (10 + len(h) + 1) % 64) % 64) + '\n'
random.seed(0)
with open(sys.argv[1], 'wb') as f:
    f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode())
    f.write(struct.pack('<%df' % n, *[random.random() for _ in range(n)]))
PY
mb=$shared/models/mobilenet_v2_f32_op13
# name model calib input exclude output
set -- "svtr $here/torch_models/svtr_tiny.onnx $tmp/svtr_in $tmp/svtr_in/x.npy MatMul logits" \
       "mobilenet_v2 $mb/model.onnx $mb/inputs/00 $mb/inputs/00/input.npy Gemm logits"
for cfg in "$@"; do
  set -- $cfg
  name=$1 model=$2 calib=$3 input=$4 excl=$5 out=$6
  for v in before after; do
    eval bin=\$$v
    "$bin" compile "$model" --spec TOSA-1.0+INT --quantize a8w8 --calib "$calib" \
        --exclude "$excl" -o "$tmp/$name.$v.prog" -q
    "$bin" run "$tmp/$name.$v.prog" --input "$input" --output-dir "$tmp/$name.$v" -q
    printf '%s %s: whole arena %s\n' "$name" "$v" \
        "$("$bin" inspect "$tmp/$name.$v.prog" | sed -n 's/.*whole arena \([0-9]*\) bytes.*/\1/p')"
  done
  cmp "$tmp/$name.before/$out.npy" "$tmp/$name.after/$out.npy" && echo "$name outputs: identical"
  i=0
  while [ $i -lt "$rounds" ]; do
    for v in before after; do
      eval bin=\$$v
      printf '%s %s round %d: %s\n' "$name" "$v" $i \
          "$("$bin" bench "$tmp/$name.$v.prog" --runs "$runs" --warmup 5 | grep -E 'median_ms|min_ms|cpu_ms' | tr '\n' ' ')"
    done
    i=$((i + 1))
  done
done
