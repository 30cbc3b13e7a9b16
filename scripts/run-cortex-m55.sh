#!/bin/sh
# run-cortex-m55.sh PROGRAM --input [NAME=]FILE.npy ... --output-dir DIR [--timeout S] [--stats]
#                   [--reference] [--kernels VARIANT] [--count-insns]
#
# Runs a compiled tosac program on a Cortex-M55 under QEMU (mps3-an547, semihosting): builds a
# bare-metal image with the program in read-only memory and a static arena of the size the
# program asks for (ports/cortex-m55), runs it, and writes each output to DIR/<name>.npy (the
# name with characters outside [A-Za-z0-9_.-] replaced by _, as `tosac run`). Inputs bind as in
# `tosac run`: NAME= by name, the others in order. --stats prints the arena, program and image
# sizes on stdout. --reference runs every delegate operator on the reference interpreter
# (options.reference = 1); --kernels VARIANT forces a kernel variant of src/kernels/isa.h
# (portable; helium, the default on the M55). --count-insns counts the instructions QEMU
# executes (a TCG plugin of the host build, ports/cortex-m55/qemu_insn_count.c) and prints
# "insns_init N" (tosac_rt_init_ex) and "insns_invoke N" (one tosac_rt_invoke) on stdout.
# Exit 0 on success, 2 for bad input, 1 otherwise; errors are one line.
#
# Needs a host build of tosac (tosac-m55-info; TOSAC_HOST_BUILD, default build/) and Debian's
# gcc-arm-none-eabi, libnewlib-arm-none-eabi and qemu-system-arm. The cross build is kept in
# TOSAC_M55_BUILD (default <host build>/m55) and shared by concurrent runs under a lock.
# The image links only the CPU operator families and the interpreter operators the program
# uses (tosac-m55-info); TOSAC_M55_TOSA_OPS=all links every interpreter operator (the image
# before per-program TOSA operator tables, for size comparisons).
set -u
me=run-cortex-m55.sh
die() {
    echo "$me: error: $2" >&2
    exit "$1"
}
src=$(cd "$(dirname "$0")/.." && pwd)
host_build=${TOSAC_HOST_BUILD:-$src/build}
m55_build=${TOSAC_M55_BUILD:-$host_build/m55}
timeout_s=600
prog="" outdir="" stats=0 count=0
tab=$(printf '\t')
nl='
'
abspath() { case $1 in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }

work=$(mktemp -d "${TMPDIR:-/tmp}/tosac-m55.XXXXXX") || die 1 "cannot create a temporary directory"
trap 'rm -rf "$work"' EXIT
: >"$work/m55-io.txt"

while [ $# -gt 0 ]; do
    case $1 in
    --input | -i | --output-dir | -o | --timeout)
        [ $# -ge 2 ] || die 2 "$1 needs a value"
        case $2 in *"$tab"* | *"$nl"*) die 2 "'$2': tabs and newlines are not supported" ;; esac
        case $1 in
        --output-dir | -o) outdir=$2 ;;
        --timeout)
            case $2 in '' | *[!0-9]*) die 2 "--timeout needs a whole number of seconds" ;; esac
            timeout_s=$2
            ;;
        *)
            case $2 in *=*) name=${2%%=*} file=${2#*=} ;; *) name="" file=$2 ;; esac
            [ -f "$file" ] && [ -r "$file" ] || die 2 "$file: cannot read"
            printf 'i\t%s\t%s\n' "$name" "$(abspath "$file")" >>"$work/m55-io.txt"
            ;;
        esac
        shift 2
        ;;
    --stats) stats=1; shift ;;
    --reference) printf 'r\n' >>"$work/m55-io.txt"; shift ;;
    --count-insns) count=1; shift ;;
    --kernels)
        [ $# -ge 2 ] || die 2 "$1 needs a value"
        case $2 in '' | *[!a-z0-9]*) die 2 "--kernels: '$2' is not a kernel variant name" ;; esac
        printf 'k\t%s\n' "$2" >>"$work/m55-io.txt"
        shift 2
        ;;
    -*) die 2 "unknown option '$1'" ;;
    *)
        [ -z "$prog" ] || die 2 "unexpected argument '$1'"
        prog=$1
        shift
        ;;
    esac
done
[ -n "$prog" ] || die 2 "usage: $me PROGRAM --input [NAME=]FILE.npy ... --output-dir DIR"
[ -n "$outdir" ] || die 2 "no --output-dir given"
[ -f "$prog" ] && [ -r "$prog" ] || die 2 "$prog: cannot read"
case $prog in *"$tab"* | *"$nl"* | *'"'* | *'\'*) die 2 "'$prog': unsupported characters in the path" ;; esac
for tool in arm-none-eabi-gcc qemu-system-arm cmake flock timeout; do
    command -v "$tool" >/dev/null 2>&1 || die 1 "$tool not found (apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm)"
done
info_tool=$host_build/ports/cortex-m55/tosac-m55-info
[ -x "$info_tool" ] || die 1 "$info_tool not found: build tosac first (cmake --build build)"
plugin=$host_build/ports/cortex-m55/libtosac-qemu-insn.so
[ "$count" = 0 ] || [ -f "$plugin" ] || die 1 "$plugin not found: build tosac first (cmake --build build)"

# What the image needs: the arena size and the operator families (a bad program stops here).
info=$("$info_tool" "$prog") || exit $?
arena=$(printf '%s\n' "$info" | sed -n 's/^arena_bytes //p')
families=$(printf '%s\n' "$info" | sed -n 's/^families *//p' | tr ' ' ';')
tosa_ops=${TOSAC_M55_TOSA_OPS:-$(printf '%s\n' "$info" | sed -n 's/^tosa_ops *//p' | tr ' ' ';')}
[ -n "$arena" ] || die 1 "tosac-m55-info gave no arena size"
printf 'o\t%s\n' "$work/out" >>"$work/m55-io.txt"
mkdir "$work/out" || die 1 "cannot create $work/out"

# The image, under the build lock (the cross build is reconfigured per program).
mkdir -p "$m55_build" || die 1 "cannot create $m55_build"
log=$m55_build/last-image.log
(
    flock 9 || exit 1
    if [ ! -f "$m55_build/CMakeCache.txt" ]; then
        cmake -S "$src" -B "$m55_build" -DCMAKE_BUILD_TYPE=Release \
            -DCMAKE_TOOLCHAIN_FILE="$src/cmake/arm-none-eabi-m55.cmake" >"$log" 2>&1 || exit 1
    fi
    cmake -S "$src" -B "$m55_build" -DTOSAC_M55_PROGRAM="$(abspath "$prog")" \
        -DTOSAC_M55_ARENA_BYTES="$arena" -DTOSAC_M55_FAMILIES="${families:-none}" \
        -DTOSAC_M55_TOSA_OPS="${tosa_ops:-none}" >"$log" 2>&1 &&
        cmake --build "$m55_build" --target tosac_m55_image -j 2 >>"$log" 2>&1 &&
        cp "$m55_build/ports/cortex-m55/tosac_m55_image.elf" "$work/image.elf"
) 9>"$m55_build/.lock" || die 1 "building the Cortex-M55 image failed (see $log)"

set --
if [ "$count" = 1 ]; then
    # The plugin notes the count at each entry of the runner's two marker functions.
    marks=$(cd "$work" && arm-none-eabi-nm image.elf | awk '
        $3 == "tosac_m55_mark_begin" { b = $1 } $3 == "tosac_m55_mark_end" { e = $1 }
        END { if (b != "" && e != "") printf "at=0x%s,at=0x%s", b, e }')
    [ -n "$marks" ] || die 1 "the image has no instruction-count markers"
    set -- -plugin "$plugin,out=$work/insns.txt,$marks"
fi
(cd "$work" && timeout "$timeout_s" qemu-system-arm -M mps3-an547 -nographic \
    -semihosting-config enable=on,target=native "$@" -kernel image.elf </dev/null >/dev/null 2>"$work/qemu.err")
status=$?
# 1 and 2: the runner (or a fault report) has said why, one line on QEMU's stderr.
case $status in
0) ;;
1 | 2)
    cat "$work/qemu.err" >&2
    exit "$status"
    ;;
124) die 1 "QEMU did not finish within $timeout_s s" ;;
*) die 1 "QEMU exited with status $status: $(head -n 1 "$work/qemu.err")" ;;
esac

mkdir -p "$outdir" || die 1 "cannot create $outdir"
for f in "$work"/out/*.npy; do
    [ -e "$f" ] || continue
    mv "$f" "$outdir/" || die 1 "cannot write $outdir/$(basename "$f")"
done
if [ "$count" = 1 ]; then
    # Four lines: init begin, init end, invoke begin, invoke end (address, running count).
    awk 'NR <= 4 { c[NR] = $2 } END {
        if (NR != 4) exit 1
        printf "insns_init %.0f\ninsns_invoke %.0f\n", c[2] - c[1], c[4] - c[3] }' \
        "$work/insns.txt" || die 1 "the instruction counter gave no counts"
fi
if [ "$stats" = 1 ]; then
    cat "$work/m55-stats.txt"
    # The image without the program and the arena: what the runtime and the port take.
    arm-none-eabi-size -A "$work/image.elf" | awk '
        $1 == ".program" || $1 == ".arena" { next }
        $1 == ".vectors" || $1 == ".text" || $1 == ".rodata" || $1 ~ /^\.ARM\.ex/ { text += $2 }
        $1 == ".data" { data += $2 }
        $1 == ".bss" { bss += $2 }
        END { printf "image_text_bytes %d\nimage_data_bytes %d\nimage_bss_bytes %d\n", text, data, bss }'
fi
exit 0
