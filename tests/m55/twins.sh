#!/bin/sh
# ctest m55_twins: the micro-kernels' twin tests on the Cortex-M55 under QEMU (tests/m55/twins.c):
# every kernel variant the M55 build has (portable, helium) against the reference, bit for bit.
# The image prints its lines and "twins: N passed, M failed" and exits 0 only if all passed.
set -u
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
(cd "$t" && timeout 300 qemu-system-arm -M mps3-an547 -nographic \
    -semihosting-config enable=on,target=native \
    -kernel "$TOSAC_M55_BUILD/ports/cortex-m55/tosac_m55_twins.elf" </dev/null 2>&1)
status=$?
[ "$status" -eq 0 ] || { echo "twins: exit status $status"; exit 1; }
