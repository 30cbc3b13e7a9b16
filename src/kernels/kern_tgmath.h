/* <tgmath.h> for the kernels. GCC's type-generic macros name the long double complex
 * variant of each function even where only float and double are passed; newlib (the
 * Cortex-M55 port's C library) lacks some of them, so they are declared here. Nothing calls
 * them, so nothing needs their definitions. */
#ifndef TOSAC_KERN_TGMATH_H
#define TOSAC_KERN_TGMATH_H

#include <complex.h>

#ifdef __NEWLIB__
long double complex cacosl(long double complex z);
long double complex cacoshl(long double complex z);
long double complex casinhl(long double complex z);
long double complex catanhl(long double complex z);
long double complex ccosl(long double complex z);
long double complex ccoshl(long double complex z);
long double complex cexpl(long double complex z);
long double complex cpowl(long double complex x, long double complex y);
long double complex csinl(long double complex z);
long double complex csinhl(long double complex z);
long double complex ctanl(long double complex z);
long double complex ctanhl(long double complex z);
#endif

#include <tgmath.h>

#endif
