/* Small helpers shared by the activation/elementwise/comparison/reduction operator tests:
 * build tensors, run one operator, compare results exactly. Header-only (static) because
 * tests/CMakeLists.txt links each test_*.c with testutil.c and interp_harness.c only. */
#ifndef TOSAC_INTERP_EW_TESTUTIL_H
#define TOSAC_INTERP_EW_TESTUTIL_H

#include <math.h>
#include <string.h>

#include "interp/interp_internal.h"
#include "interp_harness.h"
#include "testutil.h"

#define EW_N(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Shapes as compound literals: EW_SHAPE(2, 3) */
#define EW_SHAPE(...) ((const int64_t[]){__VA_ARGS__})

/* Runs op on in[0..n_in) into out; returns the code, leaves the message in *err. */
static inline tosac_code ew_run(tosa_op op, const tosa_attr *attr, tosac_tensor *in, int n_in,
                                tosac_tensor *out, tosac_error *err)
{
    tosac_tensor *ins[4];
    for (int i = 0; i < n_in; i++)
        ins[i] = &in[i];
    tosac_error_clear(err);
    return th_run_op(op, attr, ins, n_in, &out, 1, err);
}

static inline void ew_free(tosac_tensor *t, int n)
{
    for (int i = 0; i < n; i++)
        tosac_tensor_free(&t[i]);
}

static inline void ew_assert_ints(const tosac_tensor *t, const int64_t *expect, int n)
{
    assert_int_equal(tosac_tensor_numel(t), n);
    for (int i = 0; i < n; i++) {
        if (interp_get_int(t, i) != expect[i])
            fail_msg("element %d: got %lld, expected %lld", i, (long long)interp_get_int(t, i),
                     (long long)expect[i]);
    }
}

/* Exact float comparison (NaN matches NaN; -0 and +0 differ when sign_matters). */
static inline void ew_assert_floats(const tosac_tensor *t, const double *expect, int n,
                                    int sign_matters)
{
    assert_int_equal(tosac_tensor_numel(t), n);
    for (int i = 0; i < n; i++) {
        double got = interp_get_float(t, i);
        if (isnan(expect[i]) ? !isnan(got)
                             : (got != expect[i] || (sign_matters && signbit(got) != signbit(expect[i]))))
            fail_msg("element %d: got %.9g, expected %.9g", i, got, expect[i]);
    }
}

/* |got - expect| <= ulps units of fp32 precision at expect (for transcendental results). */
static inline void ew_assert_close(const tosac_tensor *t, const double *expect, int n, double ulps)
{
    assert_int_equal(tosac_tensor_numel(t), n);
    for (int i = 0; i < n; i++) {
        double got = interp_get_float(t, i);
        double tol = ulps * ldexp(1.0, ilogb(expect[i] == 0 ? 1e-30 : expect[i]) - 23);
        if (!(fabs(got - expect[i]) <= tol))
            fail_msg("element %d: got %.12g, expected %.12g", i, got, expect[i]);
    }
}

/* The call failed as an input error whose message names the operator and holds `what`. */
static inline void ew_assert_fails(tosac_code rc, const tosac_error *err, const char *opname,
                                   const char *what)
{
    assert_int_equal(rc, TOSAC_ERR_INPUT);
    if (!strstr(err->msg, opname) || !strstr(err->msg, what))
        fail_msg("message '%s' lacks '%s' or '%s'", err->msg, opname, what);
}

#endif
