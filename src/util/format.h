/* Our own snprintf: the printf subset tosac's messages use, with no C library call beyond
 * memcpy/strlen-level functions, so the runtime library (error messages, shape strings)
 * needs no stdio.
 *
 * Conversions: d i u x X o c s p % and f F e E g G; flags - 0 + space #; width and precision
 * (digits or *); length modifiers hh h l ll z j t (and L: the long double is converted to
 * double). Floats are printed from their exact decimal expansion, rounded half to even as
 * glibc does in the default rounding mode, so the digits equal glibc's for every double.
 * %n and %a are not supported (printed as written). Never writes more than cap bytes, always
 * NUL-terminates when cap > 0, and returns the length the whole output would have (as
 * snprintf, but unsigned: there is no failure). */
#ifndef TOSAC_UTIL_FORMAT_H
#define TOSAC_UTIL_FORMAT_H

#include <stdarg.h>
#include <stddef.h>

size_t tosac_vformat(char *buf, size_t cap, const char *fmt, va_list ap);
size_t tosac_format(char *buf, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
