/* tosac_strfmt: a short message through tosac_vfail's formatter (no printf family here). */
#include "util/strfmt.h"

#include <stdarg.h>
#include <string.h>

#include "tosac/error.h"

void tosac_strfmt(char *buf, size_t cap, const char *fmt, ...)
{
    if (!buf || !cap)
        return;
    tosac_error e;
    tosac_error_clear(&e);
    va_list ap;
    va_start(ap, fmt);
    tosac_vfail(&e, TOSAC_ERR_INTERNAL, fmt, ap);
    va_end(ap);
    size_t n = strlen(e.msg);
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, e.msg, n);
    buf[n] = '\0';
}
