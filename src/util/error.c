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
