#!/bin/sh
# run_zoo.sh MODEL_DIR SPEC [COMPILE OPTION ...]: compiles the zoo model (with --quantize, on
# its own samples as calibration), runs sample 00 with the host `tosac run` and on the
# Cortex-M55 under QEMU (scripts/run-cortex-m55.sh), and compares every output file byte for
# byte: same names, same .npy bytes. Prints the M55 arena and image sizes.
set -u
dir=$1 spec=$2
shift 2
name=$(basename "$dir")
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() {
    echo "$name: $1"
    echo "$name: 0 passed, 1 failed"
    exit 1
}
calib=""
case " $* " in *" --quantize "*) calib="--calib $dir/inputs" ;; esac
# shellcheck disable=SC2086
"$TOSAC_CLI" compile "$dir/model.onnx" --spec "$spec" "$@" $calib -o "$t/model.prog" --quiet ||
    fail "compile failed"
set -- "$dir"/inputs/00/*.npy
[ $# -eq 1 ] || fail "expected one input in $dir/inputs/00"
start=$(date +%s)
"$TOSAC_CLI" run "$t/model.prog" --input "$1" --output-dir "$t/host" || fail "tosac run failed"
mid=$(date +%s)
sh "$TOSAC_SOURCE_DIR/scripts/run-cortex-m55.sh" "$t/model.prog" --input "$1" \
    --output-dir "$t/m55" --stats >"$t/stats" || fail "run-cortex-m55.sh failed"
end=$(date +%s)
sed "s/^/$name: /" "$t/stats"
echo "$name: host run $((mid - start)) s, M55 build + QEMU run $((end - mid)) s"
n=0
for f in "$t"/host/*.npy; do
    [ -e "$f" ] || fail "the host run wrote no output"
    out=$(basename "$f")
    [ -f "$t/m55/$out" ] || fail "the M55 run did not write $out"
    cmp "$f" "$t/m55/$out" || fail "$out differs between the host and the M55"
    n=$((n + 1))
done
[ "$(ls "$t/m55" | wc -l)" -eq "$n" ] || fail "the M55 run wrote other files: $(ls "$t/m55")"
echo "$name: $n outputs identical"
echo "$name: 1 passed, 0 failed"
