#!/bin/sh
# run-cortex-m55.sh PROGRAM --input [NAME=]FILE.npy ... --output-dir DIR [--timeout S] [--stats]
#
# Runs a compiled tosac program on a Cortex-M55 under QEMU (mps3-an547, semihosting): builds a
# bare-metal image with the program in read-only memory and a static arena of the size the
# program asks for (ports/cortex-m55), runs it, and writes each output to DIR/<name>.npy (the
# name with characters outside [A-Za-z0-9_.-] replaced by _, as `tosac run`). Inputs bind as in
# `tosac run`: NAME= by name, the others in order. --stats prints the arena, program and image
# sizes on stdout. Exit 0 on success, 2 for bad input, 1 otherwise; errors are one line.
#
# Needs a host build of tosac (tosac-m55-info; TOSAC_HOST_BUILD, default build/) and Debian's
# gcc-arm-none-eabi, libnewlib-arm-none-eabi and qemu-system-arm. The cross build is kept in
# TOSAC_M55_BUILD (default <host build>/m55) and shared by concurrent runs under a lock.
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
prog="" outdir="" stats=0
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

# What the image needs: the arena size and the operator families (a bad program stops here).
info=$("$info_tool" "$prog") || exit $?
arena=$(printf '%s\n' "$info" | sed -n 's/^arena_bytes //p')
families=$(printf '%s\n' "$info" | sed -n 's/^families *//p' | tr ' ' ';')
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
        -DTOSAC_M55_ARENA_BYTES="$arena" -DTOSAC_M55_FAMILIES="${families:-none}" >"$log" 2>&1 &&
        cmake --build "$m55_build" --target tosac_m55_image -j 2 >>"$log" 2>&1 &&
        cp "$m55_build/ports/cortex-m55/tosac_m55_image.elf" "$work/image.elf"
) 9>"$m55_build/.lock" || die 1 "building the Cortex-M55 image failed (see $log)"

(cd "$work" && timeout "$timeout_s" qemu-system-arm -M mps3-an547 -nographic \
    -semihosting-config enable=on,target=native -kernel image.elf </dev/null >/dev/null 2>"$work/qemu.err")
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
