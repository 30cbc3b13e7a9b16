#!/bin/sh
# ctest m55_build: configures and builds the cross build (runtime + port self-test) that the
# m55 tests and scripts/run-cortex-m55.sh share, and the micro-kernels' twin-test image.
set -eu
b=$TOSAC_M55_BUILD
mkdir -p "$b"
exec 9>"$b/.lock" # the lock scripts/run-cortex-m55.sh takes
flock 9
if [ ! -f "$b/CMakeCache.txt" ]; then
    cmake -S "$TOSAC_SOURCE_DIR" -B "$b" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_TOOLCHAIN_FILE="$TOSAC_SOURCE_DIR/cmake/arm-none-eabi-m55.cmake"
fi
cmake --build "$b" --target tosac_runtime tosac_m55_selftest tosac_m55_twins -j 2
