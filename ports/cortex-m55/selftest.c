/* The port's self-test image (ctest m55_port): start-up, FPU/MVE and semihosting without
 * the runtime. Copies selftest-in.txt to selftest-out.txt with a line of checks appended
 * and exits with status 7, so the test sees file reads, writes and the exit status pass
 * through QEMU. A start-up that did not copy .data or zero .bss, or left the FPU off (a
 * UsageFault, reported as a fatal exception), changes the line or the status. It also runs
 * a loop of known length between the instruction counter's markers (tests/m55/insn_count.sh). */
#include <stdint.h>
#include <string.h>

#include "insn_marks.h"
#include "semihost.h"

static volatile int32_t data_word = 0x12345678; /* .data: copied by the reset handler */
static volatile int32_t bss_word;               /* .bss: zeroed by it */
static int16_t vec_a[64], vec_b[64];

int main(void)
{
    /* A float division and an int16 loop GCC vectorises with MVE at -O2. */
    volatile float x = 3.0f;
    float q = x / 2.0f;
    for (int i = 0; i < 64; i++)
        vec_a[i] = (int16_t)(i * 3);
    int32_t sum = 0;
    for (int i = 0; i < 64; i++) {
        vec_b[i] = (int16_t)(vec_a[i] + 1);
        sum += vec_b[i];
    }
    char buf[256];
    int in = sh_open("selftest-in.txt", SH_MODE_RB);
    long n = in >= 0 ? sh_flen(in) : -1;
    if (n < 0 || n > 200 || sh_read(in, buf, (size_t)n) != 0) {
        sh_stderr("selftest: cannot read selftest-in.txt");
        return 1;
    }
    sh_close(in);
    const char *checks[4] = {data_word == 0x12345678 ? "data ok" : "data BAD",
                             bss_word == 0 ? " bss ok" : " bss BAD",
                             q == 1.5f ? " fpu ok" : " fpu BAD",
                             sum == 6112 ? " mve ok\n" : " mve BAD\n"};
    for (int i = 0; i < 4; i++) {
        memcpy(buf + n, checks[i], strlen(checks[i]));
        n += (long)strlen(checks[i]);
    }
    int out = sh_open("selftest-out.txt", SH_MODE_WB);
    if (out < 0 || sh_write(out, buf, (size_t)n) != 0 || sh_close(out) != 0) {
        sh_stderr("selftest: cannot write selftest-out.txt");
        return 1;
    }
    /* From the begin marker's entry to the end marker's: its bx, the movw, 50000 x (subs,
     * bne) and the bl: 100003 instructions. */
    __asm volatile("bl tosac_m55_mark_begin\n\t"
                   "movw r0, #50000\n"
                   "1:\n\t"
                   "subs r0, r0, #1\n\t"
                   "bne 1b\n\t"
                   "bl tosac_m55_mark_end"
                   ::: "r0", "r1", "r2", "r3", "r12", "lr", "cc", "memory");
    return 7;
}
