#include "tosac/error.h"

#include <stdio.h>
#include <string.h>

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
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
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
    case TOSAC_ERR_UNSUPPORTED: return 2;
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
    char msg[1024], line[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (g_warn_fn) {
        g_warn_fn(g_warn_ctx, msg);
        return;
    }
    /* names come from model files: a control character must not break the line */
    size_t n = (size_t)snprintf(line, sizeof line, "tosac: warning: ");
    for (const unsigned char *p = (const unsigned char *)msg; *p && n + 5 < sizeof line; p++)
        if (*p < 0x20 || *p == 0x7f)
            n += (size_t)snprintf(line + n, sizeof line - n, "\\x%02x", *p);
        else
            line[n++] = (char)*p;
    line[n++] = '\n';
    fwrite(line, 1, n, stderr); /* one write: not interleaved with other output */
}
