#!/bin/sh
# libFuzzer targets (fuzz/fuzz_<target>.c), built with clang and ASan+UBSan in build-fuzz/.
#   sh scripts/fuzz.sh --list             names the targets
#   sh scripts/fuzz.sh TARGET SECONDS     builds (if needed), makes the corpus, fuzzes TARGET;
#                                         crash inputs are written to fuzz/regress/TARGET/
#   sh scripts/fuzz.sh --regress          replays fuzz/regress/*/ and runs every target for a
#                                         fixed number of executions; non-zero on any crash
# Needs clang-14 and libclang-rt-14-dev (libFuzzer). FUZZ_CC overrides the compiler.
set -eu
cd "$(dirname "$0")/.."
BUILD=build-fuzz
SHARED=${TOSAC_SHARED_DIR:-$(pwd)/../shared}
TARGETS=$(ls fuzz/fuzz_*.c | sed 's|fuzz/fuzz_||; s|\.c$||')
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

build() {
    if [ ! -f "$BUILD/CMakeCache.txt" ]; then
        CC=${FUZZ_CC:-$(command -v clang-14 || command -v clang)} cmake -S . -B "$BUILD" \
            -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTOSAC_FUZZ=ON -DTOSAC_TESTS=OFF \
            -DTOSAC_SHARED_DIR="$SHARED" >/dev/null
    fi
    cmake --build "$BUILD" -j "$(nproc 2>/dev/null || echo 2)" --target fuzz_all tosac_cli >/dev/null
    [ -d "$BUILD/corpus" ] || TOSAC_SHARED_DIR="$SHARED" sh fuzz/make-corpus.sh "$BUILD" >/dev/null
}

# Per-target execution budget of --regress: compile runs the whole pipeline per input.
regress_runs() {
    case $1 in compile) echo 2000 ;; program) echo 5000 ;; *) echo 20000 ;; esac
}

case ${1:-} in
--list)
    echo "$TARGETS" ;;
--regress)
    build
    fail=0; npass=0; nfail=0
    for t in $TARGETS; do
        bin=$BUILD/fuzz/fuzz_$t
        if [ -d "fuzz/regress/$t" ] && [ -n "$(ls "fuzz/regress/$t")" ]; then
            "$bin" fuzz/regress/"$t"/* >"$BUILD/regress_$t.log" 2>&1 || {
                echo "fuzz regress: $t: a kept crash input fails again (see $BUILD/regress_$t.log)"
                fail=1; nfail=$((nfail + 1)); continue; }
        fi
        work=$(mktemp -d)
        if "$bin" -runs="$(regress_runs "$t")" -seed=1 -max_len=65536 -timeout=20 \
                -artifact_prefix="$work/" "$work" "$BUILD/corpus/$t" >"$BUILD/fuzz_$t.log" 2>&1; then
            echo "fuzz regress: $t: ok ($(grep -o 'cov: [0-9]*' "$BUILD/fuzz_$t.log" | tail -1))"
            npass=$((npass + 1))
        else
            echo "fuzz regress: $t: CRASH (see $BUILD/fuzz_$t.log; input kept in $work)"
            fail=1; nfail=$((nfail + 1))
        fi
    done
    echo "fuzz: $npass passed, $nfail failed"
    exit $fail ;;
''|-h|--help)
    sed -n 2,9p "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
*)
    t=$1; secs=${2:?usage: scripts/fuzz.sh TARGET SECONDS}
    echo "$TARGETS" | grep -qx "$t" || { echo "fuzz.sh: unknown target '$t' (--list)" >&2; exit 2; }
    build
    mkdir -p "fuzz/regress/$t" "$BUILD/work/$t"
    # New inputs go to build-fuzz/work/TARGET; the seed corpus stays as built.
    exec "$BUILD/fuzz/fuzz_$t" -max_total_time="$secs" -max_len=65536 -timeout=20 -print_final_stats=1 \
        -artifact_prefix="fuzz/regress/$t/" "$BUILD/work/$t" "$BUILD/corpus/$t" ;;
esac
