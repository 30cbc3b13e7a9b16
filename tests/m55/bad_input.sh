#!/bin/sh
# bad_input.sh SHARED_DIR: run-cortex-m55.sh binds inputs as `tosac run` does (NAME= by name,
# the rest in order) and refuses bad ones with exit 2, one line, no output directory. Uses the
# zoo's synth int8 Concat (inputs a [1,8,10,10] and b [1,4,10,10]: a swapped binding is a
# shape error, not a silent wrong answer).
set -u
m=$1/models/synth_qdq_s8_op13_concat
run=$TOSAC_SOURCE_DIR/scripts/run-cortex-m55.sh
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL: $1"; failed=$((failed + 1)); }
"$TOSAC_CLI" compile "$m/model.onnx" --spec TOSA-1.0+INT -o "$t/p.prog" --quiet || exit 1
a=$m/inputs/00/a.npy b=$m/inputs/00/b.npy

# b by name, then a in order: the host's outputs exactly.
"$TOSAC_CLI" run "$t/p.prog" --input "b=$b" --input "$a" --output-dir "$t/host" || exit 1
if sh "$run" "$t/p.prog" --input "b=$b" --input "$a" --output-dir "$t/m55" &&
    cmp "$t/host/y.npy" "$t/m55/y.npy"; then ok; else bad "named + positional binding"; fi

# expect_error TEXT ARGS...: exit 2, one stderr line containing TEXT, no output dir.
expect_error() {
    text=$1
    shift
    sh "$run" "$t/p.prog" "$@" --output-dir "$t/out" 2>"$t/err"
    status=$?
    if [ "$status" -eq 2 ] && [ "$(wc -l <"$t/err")" -eq 1 ] && grep -qF "$text" "$t/err" &&
        [ ! -e "$t/out" ]; then
        ok
    else
        bad "$* -> status $status, stderr: $(cat "$t/err")"
    fi
}
expect_error "input 'b' is float32 [1,4,10,10], the file holds float32 [1,8,10,10]" \
    --input "$a" --input "$a"
expect_error "there is no input named 'c'" --input "c=$a" --input "$b"
expect_error "input 'b' is not given" --input "a=$a"
expect_error "invalid .npy file" --input "$t/p.prog" --input "$b"
expect_error "$t/missing.npy: cannot read" --input "$t/missing.npy" --input "$b"
head -c 100 "$t/p.prog" >"$t/cut.prog"
sh "$run" "$t/cut.prog" --input "$a" --input "$b" --output-dir "$t/out" 2>"$t/err"
status=$?
if [ "$status" -eq 2 ] && [ "$(wc -l <"$t/err")" -eq 1 ] && [ ! -e "$t/out" ]; then ok; else
    bad "truncated program -> status $status, stderr: $(cat "$t/err")"
fi
echo "bad_input: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
