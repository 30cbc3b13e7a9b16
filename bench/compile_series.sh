#!/bin/sh
# Compile time against model size: synthetic QDQ networks (bench_synth_model: residual Conv
# blocks, 9 ONNX nodes each) of about 10 to 10,000 nodes, each compiled by the whole process
# `tosac compile MODEL --spec TOSA-1.0+INT -o P` RUNS times. Prints per size the median wall
# time and the time per node, which stays roughly flat when compile is linear in the size.
#   bench/compile_series.sh [BUILD_DIR [RUNS [SIZES...]]]   (defaults: build 5 "10 30 ... 10000")
set -eu
B=${1:-build}
RUNS=${2:-5}
[ $# -ge 2 ] && shift 2 || shift $#
SIZES=${*:-10 30 100 300 1000 3000 10000}
T=$B/tosac
G=$B/bench/bench_synth_model
[ -x "$T" ] && [ -x "$G" ] || { echo "build $T and $G first (cmake --build $B --target tosac_cli bench_synth_model)" >&2; exit 2; }
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
now_us() { echo $(( $(date +%s%N) / 1000 )); }
printf '%8s %10s %12s %12s\n' nodes onnx_KB median_ms us_per_node
for n in $SIZES; do
    nodes=$("$G" "$n" "$D/m.onnx")
    kb=$(( $(wc -c < "$D/m.onnx") / 1024 ))
    i=0
    : > "$D/times"
    while [ $i -lt "$RUNS" ]; do
        t0=$(now_us)
        "$T" compile "$D/m.onnx" --spec TOSA-1.0+INT -o "$D/m.tosac" -q
        t1=$(now_us)
        echo $(( t1 - t0 )) >> "$D/times"
        i=$(( i + 1 ))
    done
    med=$(sort -n "$D/times" | awk '{v[NR]=$1} END{print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}')
    awk -v n="$nodes" -v kb="$kb" -v m="$med" 'BEGIN{printf "%8d %10d %12.1f %12.1f\n", n, kb, m/1000, m/n}'
done
