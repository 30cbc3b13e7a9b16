#!/bin/sh
# ctest m55_insn_count: QEMU's instruction counter (ports/cortex-m55/qemu_insn_count.c, the
# plugin behind run-cortex-m55.sh --count-insns) counts exactly: the self-test image runs a
# loop of 100003 instructions between the two markers (selftest.c), and the plugin must note
# the running count at both markers with exactly that difference.
set -u
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
elf=$TOSAC_M55_BUILD/ports/cortex-m55/tosac_m55_selftest.elf
plugin=$TOSAC_HOST_BUILD/ports/cortex-m55/libtosac-qemu-insn.so
marks=$(arm-none-eabi-nm "$elf" | awk '
    $3 == "tosac_m55_mark_begin" { b = $1 } $3 == "tosac_m55_mark_end" { e = $1 }
    END { if (b != "" && e != "") printf "at=0x%s,at=0x%s", b, e }')
[ -n "$marks" ] || { echo "insn_count: no markers in $elf"; echo "insn_count: 0 passed, 1 failed"; exit 1; }
printf 'x\n' >"$t/selftest-in.txt"
(cd "$t" && timeout 60 qemu-system-arm -M mps3-an547 -nographic \
    -semihosting-config enable=on,target=native -plugin "$plugin,out=$t/insns.txt,$marks" \
    -kernel "$elf" </dev/null)
status=$?
[ "$status" -eq 7 ] || { echo "insn_count: exit status $status, expected 7"; echo "insn_count: 0 passed, 1 failed"; exit 1; }
got=$(awk 'NR == 1 { b = $2 } NR == 2 { e = $2 } END { if (NR == 2) printf "%.0f", e - b; else print "lines:" NR }' "$t/insns.txt")
if [ "$got" != 100003 ]; then
    echo "insn_count: counted $got instructions between the markers, expected 100003"
    echo "insn_count: 0 passed, 1 failed"
    exit 1
fi
echo "insn_count: 100003 instructions between the markers, as expected"
echo "insn_count: 1 passed, 0 failed"
