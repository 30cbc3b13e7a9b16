/* tosac_format (src/util/format.c), the runtime's snprintf: glibc's snprintf is the oracle
 * (every format the code base uses, edge values and random doubles by bit pattern), plus
 * literal expectations for truncation and for the rounding rule itself. */
#include "testutil.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/format.h"

/* Both formatters on the same arguments; the output and the returned length must agree. */
#define SAME(fmt, ...)                                                                      \
    do {                                                                                    \
        char want_[2048], got_[2048];                                                       \
        int wn_ = snprintf(want_, sizeof want_, fmt, __VA_ARGS__);                          \
        size_t gn_ = tosac_format(got_, sizeof got_, fmt, __VA_ARGS__);                     \
        if (strcmp(want_, got_) != 0 || (size_t)wn_ != gn_)                                 \
            fail_msg("format \"%s\": glibc \"%s\" (%d), tosac \"%s\" (%zu)", fmt, want_, wn_, \
                     got_, gn_);                                                            \
    } while (0)

static double d_of(uint64_t x)
{
    double d;
    memcpy(&d, &x, 8);
    return d;
}

static void test_integers(void **state)
{
    (void)state;
    const long long ll[] = {0, 1, -1, 7, -42, 123456789, INT32_MAX, INT32_MIN, INT64_MAX,
                            INT64_MIN, (long long)1 << 31, 1000000000, -999999999};
    for (size_t i = 0; i < sizeof ll / sizeof ll[0]; i++) {
        long long v = ll[i];
        SAME("%lld|%5lld|%-5lld|%05lld|%+lld|% lld", v, v, v, v, v, v);
        SAME("%" PRId64 " %" PRIu64 " %" PRIx64, (int64_t)v, (uint64_t)v, (uint64_t)v);
        SAME("%llu %llx %llX %#llx %llo %#llo", (unsigned long long)v, (unsigned long long)v,
             (unsigned long long)v, (unsigned long long)v, (unsigned long long)v,
             (unsigned long long)v);
        SAME("%ld %lu %zu %zd", (long)v, (unsigned long)v, (size_t)v, (ptrdiff_t)v);
        SAME("%d %i %u %x %X %02x %04x %.3d %8.3d %-8.3d|", (int)v, (int)v, (unsigned)v,
             (unsigned)v, (unsigned)v, (unsigned)v & 0xff, (unsigned)v & 0xffff, (int)v, (int)v,
             (int)v);
        SAME("%hhd %hd %hhu %hu %jd %td", (signed char)v, (short)v, (unsigned char)v,
             (unsigned short)v, (intmax_t)v, (ptrdiff_t)v);
    }
    SAME("%.0d|%.0u|%#x|%#o|%*d|%-*d|%.*d", 0, 0u, 0u, 0u, 6, 42, -6, 42, 4, 7);
}

static void test_strings_chars(void **state)
{
    (void)state;
    const char *name = "conv2d/weights";
    SAME("'%s' %.40s %.3s %-20s| %20s| %.*s %c%c %%", name, name, name, name, name, 4, name, 'x',
         '\\');
    SAME("%-9s %-24s %-28s|%s", "run", "", "a long command name here", "");
    SAME("%.300s %.200s", name, name);
    char big[1200];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    SAME("%s", big);
    int local;
    SAME("%p %p %20p", (void *)&local, (void *)0, (void *)&local);
}

/* The values the brief names, and what messages print: scales, zero points, tolerances. */
static const double edge[] = {0.0, 1.0, -1.0, 0.1, 0.5, 1.5, 2.5, -2.5, 0.25, 0.125, 1e-45,
                              1.401298464324817e-45, 3.4e38, 3.4028234663852886e38,
                              2147483648.0, 4294967296.0, 9007199254740993.0,
                              9.223372036854775807e18, -9.223372036854775808e18, 1e15, 1e16,
                              1e17, 1e21, 1e22, 1e23, 123456.5, 999999.5, 9999995.0,
                              0.00001, 0.0001, 0.000123456, 0.0009999995, 99.995, 1e-300,
                              1e300, 5e-324, 2.2250738585072014e-308, 2.225073858507201e-308,
                              DBL_MAX, 1.0 / 3, 2.0 / 3, 3.14159265358979, 0.00392156862745098,
                              6.103515625e-05, 1.1754943508222875e-38, 0.05, 0.15, 0.35,
                              1e100, 12345678901234567890.0, 0.007812500000000002};

static void check_double(double v)
{
    SAME("%g|%G|%e|%E|%f|%F", v, v, v, v, v, v);
    SAME("%.3g|%.4g|%.6g|%.9g|%.15g|%.17g|%.0g|%.1g|%.20g", v, v, v, v, v, v, v, v, v);
    SAME("%.0f|%.1f|%.2f|%.4f|%.10f|%.0e|%.3e|%.16e|%.25e", v, v, v, v, v, v, v, v, v);
    SAME("%12g|%-12g|%012g|%+g|% g|%#.0f|%#.0e|%012.3f|%-+12.3e|", v, v, v, v, v, v, v, v, v);
    SAME("%.*g %.*f", 17, v, 3, v);
}

static void test_doubles_edge(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        check_double(edge[i]);
        check_double(-edge[i]);
    }
    check_double(INFINITY);
    check_double(-INFINITY);
    check_double(NAN);
    check_double(-NAN);
    for (int e = -1074; e <= 1023; e++) /* every power of two */
        check_double(ldexp(1.0, e));
    for (long long k = -2000; k <= 2000; k++) /* integers and halves near zero */
        check_double((double)k / 2);
    SAME("%.1074f %.760e", 5e-324, 5e-324); /* the longest exact expansions */
    SAME("%f %.20f", DBL_MAX, -DBL_MAX);
    SAME("%Lg %Le", (long double)0.1, (long double)-3.5); /* L: converted to double */
}

static void test_doubles_random(void **state)
{
    (void)state;
    tu_seed(20261201);
    for (int i = 0; i < 8000; i++) {
        uint64_t bits = (uint64_t)tu_rand() << 32 | tu_rand();
        double v = d_of(bits);
        SAME("%g %.9g %.17g %e %.3e", v, v, v, v, v);
        if (fabs(v) < 1e30)
            SAME("%f %.12f", v, v);
        float f = (float)(int32_t)tu_rand() / (float)(1 << (tu_rand() % 31));
        SAME("%g %.9g %.4f %.6g", (double)f, (double)f, (double)f, (double)f);
    }
}

/* The rounding rule on its own (not glibc's word for it): exact ties go to even, anything
 * above a tie goes up, and a carry can add a digit. */
static void test_rounding_literal(void **state)
{
    (void)state;
    char b[64];
    tosac_format(b, sizeof b, "%.0f %.0f %.0f %.1f %.2f %.2f %.1f", 0.5, 1.5, 2.5, 0.25, 0.125,
                 0.375, 9.96);
    assert_string_equal(b, "0 2 2 0.2 0.12 0.38 10.0"); /* 9.96 is 9.9600000000000008... */
    tosac_format(b, sizeof b, "%.1f %g %g %g %g", 0.35, 1e-5, 0.0001, 123456.0, 1234567.0);
    assert_string_equal(b, "0.3 1e-05 0.0001 123456 1.23457e+06"); /* 0.35 is 0.34999... */
    /* '#': trailing zeros stay (C11 7.21.6.1), also after a carry, where glibc prints
     * "1.e+06" (so %#g is not compared with glibc above) */
    tosac_format(b, sizeof b, "%#g %#g %#g %#.3g", 1.5, 999999.5, 0.0, 100.0);
    assert_string_equal(b, "1.50000 1.00000e+06 0.00000 100.");
    tosac_format(b, sizeof b, "%g %e %g %f", -0.0, 0.0, 5e-324, -1e-7);
    assert_string_equal(b, "-0 0.000000e+00 4.94066e-324 -0.000000");
}

/* tosac_vformat without the format attribute: directives the compiler would refuse */
static size_t unchecked(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t n = tosac_vformat(buf, cap, fmt, ap);
    va_end(ap);
    return n;
}

static void test_truncation(void **state)
{
    (void)state;
    char b[8];
    memset(b, 'x', sizeof b);
    assert_int_equal(tosac_format(b, sizeof b, "%s=%d", "tensor", 12345), 12);
    assert_string_equal(b, "tensor="); /* cap-1 characters and the NUL */
    memset(b, 'x', sizeof b);
    assert_int_equal(tosac_format(b, 1, "%g", 3.25), 4);
    assert_int_equal(b[0], '\0');
    assert_int_equal(b[1], 'x'); /* nothing past cap */
    assert_int_equal(tosac_format(NULL, 0, "%.3f", 1.0), 5);
    assert_int_equal(tosac_format(b, sizeof b, "%.9f", 0.1), 11);
    assert_string_equal(b, "0.10000");
    assert_int_equal(unchecked(b, sizeof b, "abc%"), 4); /* a dangling % stays as written */
    assert_string_equal(b, "abc%");
    assert_int_equal(unchecked(b, sizeof b, "%y%n"), 4); /* so does what is not supported */
    assert_string_equal(b, "%y%n");
}

/* tosac_fail formats through tosac_format and keeps the first failure. */
static void test_fail_message(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    tosac_fail(&err, TOSAC_ERR_INPUT, "tensor '%s': scale %g at %zu, shape %lld", "x", 0.0078125,
               (size_t)3, (long long)-1);
    assert_string_equal(err.msg, "tensor 'x': scale 0.0078125 at 3, shape -1");
    tosac_fail(&err, TOSAC_ERR_INTERNAL, "second");
    assert_string_equal(err.msg, "tensor 'x': scale 0.0078125 at 3, shape -1");
    char longname[700];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    tosac_error_clear(&err);
    tosac_fail(&err, TOSAC_ERR_INPUT, "%s", longname);
    assert_int_equal(strlen(err.msg), sizeof err.msg - 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integers),        cmocka_unit_test(test_strings_chars),
        cmocka_unit_test(test_doubles_edge),    cmocka_unit_test(test_doubles_random),
        cmocka_unit_test(test_rounding_literal), cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_fail_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
