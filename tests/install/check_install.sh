#!/bin/sh
# Installs the build tree into a fresh prefix and uses it as a user would: the files a package
# needs are there, the shared libraries export only the API, and the C example
# (examples/c_api) builds against the install with pkg-config and with find_package(tosac),
# then runs a program the installed CLI compiled; both builds print the same outputs.
#     check_install.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -eu
B=$1 SRC=$2 W=$3
rm -rf "$W"
mkdir -p "$W"
P=$W/prefix
cmake --install "$B" --prefix "$P" >/dev/null
LIB=$(dirname "$(find "$P" -name libtosac.a | head -n 1)")
for f in bin/tosac include/tosac/tosac.h include/tosac/version.h include/tosac/runtime.h \
         share/man/man1/tosac.1; do
    [ -e "$P/$f" ] || { echo "not installed: $f"; exit 1; }
done
for f in libtosac.a libtosac_runtime.a libtosac.so libtosac_runtime.so pkgconfig/tosac.pc \
         pkgconfig/tosac-runtime.pc cmake/tosac/tosacConfig.cmake cmake/tosac/tosacTargets.cmake; do
    [ -e "$LIB/$f" ] || { echo "not installed: $LIB/$f"; exit 1; }
done
# The shared runtime exports its API and hides the internals (the interpreter, kernels).
EXPORTS=$(nm -D --defined-only "$LIB/libtosac_runtime.so" | awk '{print $3}')
echo "$EXPORTS" | grep -qx tosac_rt_init || { echo "libtosac_runtime.so: tosac_rt_init not exported"; exit 1; }
if echo "$EXPORTS" | grep -qx interp_execute; then
    echo "libtosac_runtime.so exports the internal interp_execute"; exit 1
fi
for sym in tosac_compile_model tosac_program_n_delegates tosac_program_delegate \
           tosac_program_delegate_meta tosac_program_cpu tosac_program_report; do
    nm -D --defined-only "$LIB/libtosac.so" | awk '{print $3}' | grep -qx "$sym" ||
        { echo "libtosac.so: $sym not exported"; exit 1; }
done

EX=$SRC/examples/ppocr_cls
"$P/bin/tosac" compile "$EX/model.onnx" --spec TOSA-1.0+FP --input-shape x=1,3,48,192 -o "$W/m.prog" 2>/dev/null
IN=$(find "$EX/inputs" -name '*.npy' | sort | head -n 1)

# pkg-config, shared libraries
PKG_CONFIG_PATH=$LIB/pkgconfig
export PKG_CONFIG_PATH
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror "$SRC/examples/c_api/run_program.c" \
    $(pkg-config --cflags --libs tosac) -o "$W/run_pc"
LD_LIBRARY_PATH=$LIB "$W/run_pc" "$W/m.prog" "$IN" > "$W/out_pc.txt"
# the CMake package, static libraries
cmake -S "$SRC/examples/c_api" -B "$W/ex" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$W/ex" >/dev/null
"$W/ex/run_program" "$W/m.prog" "$IN" > "$W/out_cmake.txt"
if ldd "$W/ex/run_program" | grep -q libtosac; then
    echo "the find_package build should link the static tosac::tosac"; exit 1
fi
grep -q "^softmax_0.tmp_0 f32\[2 elements\]: " "$W/out_pc.txt" ||
    { echo "unexpected output:"; cat "$W/out_pc.txt"; exit 1; }
cmp "$W/out_pc.txt" "$W/out_cmake.txt" || { echo "the two builds print different outputs"; exit 1; }
# the opaque program through its accessors (shared and static builds print the same)
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror "$SRC/examples/c_api/inspect_program.c" \
    $(pkg-config --cflags --libs tosac) -o "$W/inspect_pc"
LD_LIBRARY_PATH=$LIB "$W/inspect_pc" "$W/m.prog" > "$W/inspect_pc.txt"
"$W/ex/inspect_program" "$W/m.prog" > "$W/inspect_cmake.txt"
grep -q "^1 delegate(s), CPU graph of 1 node(s), 1 input(s), 1 output(s)$" "$W/inspect_pc.txt" &&
    grep -q "^delegate 0: [1-9][0-9]* operator(s), metadata of [1-9][0-9]* bytes$" "$W/inspect_pc.txt" &&
    grep -q "^compile report: yes$" "$W/inspect_pc.txt" ||
    { echo "unexpected inspect_program output:"; cat "$W/inspect_pc.txt"; exit 1; }
cmp "$W/inspect_pc.txt" "$W/inspect_cmake.txt" || { echo "inspect_program: the two builds differ"; exit 1; }
echo "install ok: $(cat "$W/out_pc.txt")"
