#!/bin/sh
# Builds tosac and runs the main job on the bundled example.
set -eu
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc 2>/dev/null || echo 2)"
T=./build/tosac
for s in TOSA-1.0+INT TOSA-1.0+INT+int16+u55 TOSA-1.1+INT+int64 TOSA-1.0+FP+bf16; do
    echo "== tosac spec $s"
    $T spec "$s"
done
echo "== an invalid string is a clean error (exit 2):"
$T spec "TOSA-1.0+INT+int64" || echo "exit status $?"
