#!/bin/sh
# Builds tosac twice (release, then AddressSanitizer + UndefinedBehaviorSanitizer) and runs
# the whole test suite under ctest in both builds.
set -eu
cd "$(dirname "$0")/.."
JOBS=$(nproc 2>/dev/null || echo 2)
SHARED=${TOSAC_SHARED_DIR:-$(pwd)/../shared}

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DTOSAC_SHARED_DIR="$SHARED" >/dev/null
cmake --build build -j "$JOBS"
ctest --test-dir build --output-on-failure -j "$JOBS"

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DTOSAC_SANITIZE=ON -DTOSAC_SHARED_DIR="$SHARED" >/dev/null
cmake --build build-asan -j "$JOBS"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j "$JOBS"
