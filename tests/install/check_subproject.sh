#!/bin/sh
# tosac as a subproject (add_subdirectory) of a user's CMake project: configures without its
# tests, benchmarks or -Werror, and the C example links the in-tree `tosac` target.
#     check_subproject.sh SOURCE_DIR WORK_DIR
set -eu
SRC=$1 W=$2
rm -rf "$W"
mkdir -p "$W/app"
cat > "$W/app/CMakeLists.txt" <<EOT
cmake_minimum_required(VERSION 3.18)
project(app C)
add_subdirectory("$SRC" tosac)
add_executable(app_run "$SRC/examples/c_api/run_program.c")
target_link_libraries(app_run PRIVATE tosac)
EOT
cmake -S "$W/app" -B "$W/build" -DCMAKE_BUILD_TYPE=Release > "$W/configure.log"
if [ -e "$W/build/tosac/tests" ]; then
    echo "the subproject configured tosac's tests"; exit 1
fi
cmake --build "$W/build" --target app_run -j "$(nproc 2>/dev/null || echo 2)" > "$W/build.log"
"$W/build/app_run" > "$W/usage.txt" 2>&1 && { echo "app_run without arguments succeeded"; exit 1; }
grep -q "usage: run_program" "$W/usage.txt" || { cat "$W/usage.txt"; exit 1; }
echo "subproject ok"
