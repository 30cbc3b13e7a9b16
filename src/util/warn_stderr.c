/* The stderr printer of warnings (compiler side: the runtime has no stdio). */
#include "tosac/error.h"

#include <stdio.h>

void tosac_warn_stderr(void *ctx, const char *msg)
{
    (void)ctx;
    char line[1200];
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
