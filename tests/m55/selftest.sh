#!/bin/sh
# ctest m55_port_selftest: the self-test image copies selftest-in.txt to selftest-out.txt with
# its checks appended (.data copied, .bss zeroed, FPU and MVE on) and exits with status 7.
set -u
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
printf 'tosac m55 selftest\n' >"$t/selftest-in.txt"
(cd "$t" && timeout 60 qemu-system-arm -M mps3-an547 -nographic \
    -semihosting-config enable=on,target=native \
    -kernel "$TOSAC_M55_BUILD/ports/cortex-m55/tosac_m55_selftest.elf" </dev/null)
status=$?
[ "$status" -eq 7 ] || { echo "selftest: exit status $status, expected 7"; exit 1; }
expected='tosac m55 selftest
data ok bss ok fpu ok mve ok'
got=$(cat "$t/selftest-out.txt")
[ "$got" = "$expected" ] || { echo "selftest: selftest-out.txt is '$got'"; exit 1; }
echo "selftest: 1 passed, 0 failed"
