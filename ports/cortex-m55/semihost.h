/* Arm semihosting (the host's files and exit status through `bkpt 0xab`), as QEMU serves it
 * with -semihosting-config enable=on,target=native. Only what the runner needs. */
#ifndef TOSAC_M55_SEMIHOST_H
#define TOSAC_M55_SEMIHOST_H

#include <stddef.h>

/* SYS_OPEN modes (ISO C fopen modes in the semihosting numbering). */
enum { SH_MODE_RB = 1, SH_MODE_WB = 5 };

/* A handle (>= 0) or -1. */
int sh_open(const char *path, int mode);
int sh_close(int fd);
/* 0 when all len bytes were transferred, -1 otherwise. */
int sh_write(int fd, const void *buf, size_t len);
int sh_read(int fd, void *buf, size_t len);
/* The file's length, or -1. */
long sh_flen(int fd);

/* A line on the host's stderr (":tt" opened for appending). */
void sh_stderr(const char *s);

/* Stops QEMU with this exit status (SYS_EXIT_EXTENDED, ADP_Stopped_ApplicationExit). */
_Noreturn void tosac_m55_exit(int status);

#endif
