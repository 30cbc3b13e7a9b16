/* Allowed references only: string.h, libm, 64-bit arithmetic, and a function of clean_b.c
 * (defined inside the archive, so not external). */
#include <math.h>
#include <stdint.h>
#include <string.h>

double clean_b(double x);

double clean_a(char *dst, const char *src, double x, uint64_t n, uint64_t d)
{
    memcpy(dst, src, strlen(src) + 1);
    return sqrt(x) + exp(x) + (double)(n / (d | 1)) + clean_b(x);
}
