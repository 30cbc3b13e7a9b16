/* Semihosting calls (see semihost.h) and the fatal-exception report. */
#include "semihost.h"

#include <stdint.h>
#include <string.h>

enum {
    SYS_OPEN = 0x01,
    SYS_CLOSE = 0x02,
    SYS_WRITE = 0x05,
    SYS_READ = 0x06,
    SYS_FLEN = 0x0C,
    SYS_EXIT_EXTENDED = 0x20,
};
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

static uintptr_t sh_call(uintptr_t op, const void *arg)
{
    register uintptr_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

int sh_open(const char *path, int mode)
{
    uintptr_t a[3] = {(uintptr_t)path, (uintptr_t)mode, strlen(path)};
    return (int)sh_call(SYS_OPEN, a);
}

int sh_close(int fd)
{
    uintptr_t a[1] = {(uintptr_t)fd};
    return (int)sh_call(SYS_CLOSE, a);
}

/* SYS_WRITE/SYS_READ return the number of bytes NOT transferred. Large transfers go in
 * pieces so that a short read is told apart from a huge length. */
static int sh_xfer(uintptr_t op, int fd, void *buf, size_t len)
{
    unsigned char *p = buf;
    while (len) {
        size_t n = len < (1u << 20) ? len : (1u << 20);
        uintptr_t a[3] = {(uintptr_t)fd, (uintptr_t)p, n};
        if (sh_call(op, a) != 0)
            return -1;
        p += n;
        len -= n;
    }
    return 0;
}

int sh_write(int fd, const void *buf, size_t len)
{
    return sh_xfer(SYS_WRITE, fd, (void *)(uintptr_t)buf, len);
}

int sh_read(int fd, void *buf, size_t len)
{
    return sh_xfer(SYS_READ, fd, buf, len);
}

long sh_flen(int fd)
{
    uintptr_t a[1] = {(uintptr_t)fd};
    return (long)sh_call(SYS_FLEN, a);
}

void sh_stderr(const char *s)
{
    static int fd = -2;
    if (fd == -2)
        fd = sh_open(":tt", 8); /* mode "a": QEMU's stderr */
    if (fd >= 0) {
        sh_write(fd, s, strlen(s));
        sh_write(fd, "\n", 1);
    }
}

_Noreturn void tosac_m55_exit(int status)
{
    uintptr_t a[2] = {ADP_STOPPED_APPLICATION_EXIT, (uintptr_t)status};
    for (;;)
        sh_call(SYS_EXIT_EXTENDED, a);
}

static char *put_hex(char *p, uint32_t v)
{
    *p++ = '0';
    *p++ = 'x';
    for (int s = 28; s >= 0; s -= 4)
        *p++ = "0123456789abcdef"[(v >> s) & 15];
    return p;
}

/* From startup.S for every exception: the stacked frame (r0-r3, r12, lr, pc, xpsr) and
 * IPSR. Nothing here is expected to return: a fault is reported and QEMU exits 1. */
void tosac_m55_fault(const uint32_t *frame, uint32_t ipsr);
void tosac_m55_fault(const uint32_t *frame, uint32_t ipsr)
{
    static const char *const names[] = {"?", "Reset", "NMI", "HardFault", "MemManage",
                                        "BusFault", "UsageFault", "SecureFault"};
    uint32_t n = ipsr & 0x1ff;
    char line[160] = "tosac-m55: error: fatal exception ", *p = line + strlen(line);
    const char *name = n < 8 ? names[n] : "interrupt";
    size_t k = strlen(name);
    memcpy(p, name, k);
    p += k;
    memcpy(p, " at pc ", 7);
    p = put_hex(p + 7, frame[6]);
    memcpy(p, ", CFSR ", 7);
    p = put_hex(p + 7, *(volatile uint32_t *)0xE000ED28u);
    *p = '\0';
    sh_stderr(line);
    tosac_m55_exit(1);
}
