/* Errors and the warning hook. Part of the runtime library: no stdio (messages are formatted
 * by util/format.c); the stderr printer of warnings is compiler-side (warn_stderr.c). */
#include "tosac/error.h"

#include "util/format.h"

void tosac_error_clear(tosac_error *err)
{
    if (err) {
        err->code = TOSAC_OK;
        err->msg[0] = '\0';
    }
}

tosac_code tosac_vfail(tosac_error *err, tosac_code code, const char *fmt, va_list ap)
{
    if (err && err->code == TOSAC_OK) {
        err->code = code;
        tosac_vformat(err->msg, sizeof err->msg, fmt, ap);
    }
    return code;
}

tosac_code tosac_fail(tosac_error *err, tosac_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tosac_vfail(err, code, fmt, ap);
    va_end(ap);
    return code;
}

int tosac_exit_status(tosac_code code)
{
    switch (code) {
    case TOSAC_OK: return 0;
    case TOSAC_ERR_INPUT:
    case TOSAC_ERR_UNSUPPORTED:
    case TOSAC_ERR_CAPACITY: return 2;
    default: return 1;
    }
}

static tosac_warning_fn g_warn_fn;
static void *g_warn_ctx;

void tosac_set_warning_handler(tosac_warning_fn fn, void *ctx)
{
    g_warn_fn = fn;
    g_warn_ctx = ctx;
}

void tosac_warn(const char *fmt, ...)
{
    if (!g_warn_fn)
        return; /* no handler: dropped (the CLI installs tosac_warn_stderr) */
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    tosac_vformat(msg, sizeof msg, fmt, ap);
    va_end(ap);
    g_warn_fn(g_warn_ctx, msg);
}
