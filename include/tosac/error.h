/* Errors: every fallible function takes a tosac_error* and returns a tosac_code.
 * The first failure wins: later tosac_fail calls on an already-failed error keep
 * the original message, so the innermost, most specific reason reaches the user.
 * tosac_error is plain data by design: a caller-owned message buffer, read as err.msg. */
#ifndef TOSAC_ERROR_H
#define TOSAC_ERROR_H

#include <stdarg.h>

typedef enum tosac_code {
    TOSAC_OK = 0,
    TOSAC_ERR_INTERNAL = 1,    /* a bug or resource failure: exit 1 */
    TOSAC_ERR_INPUT = 2,       /* bad user input (file, argument, model): exit 2 */
    TOSAC_ERR_UNSUPPORTED = 3, /* valid input we (or the spec) do not support: exit 2 */
    TOSAC_ERR_CAPACITY = 4,    /* the data needed more room than the program planned (a value
                                * of data-dependent size larger than its slot, from a shape the
                                * model declares too small): exit 2 */
} tosac_code;

typedef struct tosac_error {
    tosac_code code;
    char msg[512];
} tosac_error;

void tosac_error_clear(tosac_error *err);

/* Record a failure (if none is recorded yet) and return its code. err may be NULL. */
tosac_code tosac_fail(tosac_error *err, tosac_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
tosac_code tosac_vfail(tosac_error *err, tosac_code code, const char *fmt, va_list ap);

/* Process exit status for a code: 0, 1 (internal) or 2 (input / unsupported / capacity). */
int tosac_exit_status(tosac_code code);

/* Warnings: what a user must know about a result that is still produced (calibration data
 * that says nothing about a tensor's range). One line each, given to the process-wide
 * handler; with none (NULL, the start state) they are dropped, since the runtime library has
 * no stdio. The tosac CLI installs tosac_warn_stderr (compiler library), which prints
 * "tosac: warning: <msg>" to stderr with control characters escaped. */
typedef void (*tosac_warning_fn)(void *ctx, const char *msg);
void tosac_set_warning_handler(tosac_warning_fn fn, void *ctx);
void tosac_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tosac_warn_stderr(void *ctx, const char *msg);

#endif
