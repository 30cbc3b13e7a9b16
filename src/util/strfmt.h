/* Formatting a short message into a caller buffer without the printf family (runtime-safe:
 * it goes through tosac_vfail's formatter, the one formatter the runtime links). */
#ifndef TOSAC_UTIL_STRFMT_H
#define TOSAC_UTIL_STRFMT_H

#include <stddef.h>

/* Like snprintf (always NUL-terminated when cap > 0; truncated to fit; at most 511 chars). */
void tosac_strfmt(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
