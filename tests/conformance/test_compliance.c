/* Compliance modes on hand-made values. Every bound below is worked out by hand from the
 * README rules: fp32 has frac 23 (ulp(1) = 2^-23), fp16 frac 10 (ulp(1000) = 2^9 * 2^-10). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "compliance.h"

static cmp_rule rule(cmp_mode m, tosac_dtype dt)
{
    cmp_rule r;
    memset(&r, 0, sizeof r);
    r.mode = m;
    r.dtype = dt;
    r.abs_normal_divisor = 1;
    return r;
}

static bool one(const cmp_rule *r, double imp, double ref, double bnd)
{
    char why[400];
    return cmp_check(r, &imp, &ref, &bnd, 1, why, sizeof why);
}

static void test_exact(void **state)
{
    (void)state;
    cmp_rule r = rule(CMP_EXACT, TOSAC_DT_F32);
    assert_true(one(&r, 1.5, 1.5, 0));
    assert_true(one(&r, NAN, NAN, 0));
    assert_false(one(&r, 1.5, 1.5000001, 0));
    assert_false(one(&r, NAN, 1.0, 0));
    double imp[3] = {1, 2, 3}, ref[3] = {1, 2, 4};
    char why[400];
    assert_false(cmp_check(&r, imp, ref, NULL, 3, why, sizeof why));
    assert_string_equal(why, "element 2: got 3, expected 4");
}

static void test_ulp(void **state)
{
    (void)state;
    cmp_rule r = rule(CMP_ULP, TOSAC_DT_F32);
    r.ulp = 0.5; /* correctly rounded: err = 2^-24 around 1.0 */
    assert_true(one(&r, 1.0, 1.0, 0));
    assert_false(one(&r, 1.0 + ldexp(1, -23), 1.0, 0));
    assert_true(one(&r, 1.0, 1.0 + ldexp(1, -25), 0));
    assert_false(one(&r, 1.0 + ldexp(1, -23), 1.0 + ldexp(1, -25), 0)); /* off by 3*2^-25 */
    r.ulp = 1;
    assert_true(one(&r, 1.0 + ldexp(1, -23), 1.0, 0));
    /* negative ref is mirrored; ulp(3) = 2^1 * 2^-23 */
    assert_true(one(&r, -3.0 - ldexp(1, -22), -3.0, 0));
    assert_false(one(&r, -3.0 - ldexp(1, -21), -3.0, 0));
    double imp = -3.0 - ldexp(1, -21), ref = -3.0;
    char why[400];
    assert_false(cmp_check(&r, &imp, &ref, NULL, 1, why, sizeof why));
    assert_string_equal(why, "element 0: got -3.00000048, expected -3 within [-3.0000002384185791, "
                             "-2.9999997615814209]");
    /* NaN must match NaN */
    assert_true(one(&r, NAN, NAN, 0));
    assert_false(one(&r, 1.0, NAN, 0));
    assert_false(one(&r, NAN, 1.0, 0));
    /* infinity only matches itself; at the largest normal hi becomes +inf */
    assert_true(one(&r, INFINITY, INFINITY, 0));
    assert_false(one(&r, 3.4028234663852886e38, INFINITY, 0));
    assert_true(one(&r, INFINITY, 3.4028234663852886e38, 0));
    assert_true(one(&r, 3.4028234663852886e38 - ldexp(1, 104), 3.4028234663852886e38, 0));
    /* ref 0: exactly zero of either sign */
    assert_true(one(&r, 0.0, 0.0, 0));
    assert_true(one(&r, -0.0, 0.0, 0));
    assert_false(one(&r, ldexp(1, -149), 0.0, 0));
    /* below the smallest normal a flushed zero passes */
    r.ulp = 0.5;
    assert_true(one(&r, 0.0, ldexp(1, -130), 0));
    assert_false(one(&r, ldexp(1, -129), ldexp(1, -130), 0));
}

static void test_relative(void **state)
{
    (void)state;
    cmp_rule r = rule(CMP_RELATIVE, TOSAC_DT_F16);
    r.rel_max = 65504, r.rel_scale = 0.006, r.rel_ulp_bound = 20; /* err = 393.024 */
    assert_true(one(&r, 1393.0, 1000.0, 0));
    assert_false(one(&r, 1394.0, 1000.0, 0));
    r.rel_max = 1, r.rel_scale = 0.001; /* now 20 * ulp(1000) = 20 * 0.5 = 10 wins */
    assert_true(one(&r, 1010.0, 1000.0, 0));
    assert_false(one(&r, 1011.0, 1000.0, 0));
    /* fp16 overflow: hi beyond 65504 becomes inf */
    assert_true(one(&r, INFINITY, 65504.0, 0));
}

static void test_reduce_product(void **state)
{
    (void)state;
    cmp_rule r = rule(CMP_REDUCE_PRODUCT, TOSAC_DT_F32);
    r.rp_n = 2; /* err = |ref| * ((1 + 2^-24)^2 - 1) = 2^-23 + 2^-48 at ref 1 */
    assert_true(one(&r, 1.0 + ldexp(1, -23), 1.0, 0));
    assert_false(one(&r, 1.0 + ldexp(1, -22), 1.0, 0));
    assert_true(one(&r, -4.0 - ldexp(1, -21), -4.0, 0));
    assert_false(one(&r, -4.0 - ldexp(1, -20), -4.0, 0));
}

static void test_abs_error(void **state)
{
    (void)state;
    cmp_rule r = rule(CMP_ABS_ERROR, TOSAC_DT_F32);
    /* err = 2^-23 * max(|ref|, nmin) * bnd = 2^-23 * 2 * 4 = 2^-20 */
    assert_true(one(&r, 2.0 + ldexp(1, -20), 2.0, 4.0));
    assert_false(one(&r, 2.0 + ldexp(1, -19), 2.0, 4.0));
    /* lower_bound 0.5: v = max(0.5 / 1, 0.001) -> err 2^-24 */
    r.abs_lower_bound = 0.5;
    assert_true(one(&r, 0.001 + ldexp(1, -25), 0.001, 1.0));
    assert_false(one(&r, 0.001 + ldexp(1, -23), 0.001, 1.0));
    /* bound_as_magnitude: v = max(|bnd|, nmin) = 8, bnd := 1 -> err 2^-20 */
    r.abs_lower_bound = 0;
    r.abs_bound_as_magnitude = true;
    assert_true(one(&r, 0.5 + ldexp(1, -20), 0.5, -8.0));
    assert_false(one(&r, 0.5 + ldexp(1, -19), 0.5, -8.0));
    /* normal_divisor 2: err = 2^-11.5 = 3.4527e-4 */
    r.abs_bound_as_magnitude = false;
    r.abs_normal_divisor = 2;
    assert_true(one(&r, 1.0003, 1.0, 1.0));
    assert_false(one(&r, 1.0004, 1.0, 1.0));
    /* max_compare raises the bound to 0.1 */
    r.abs_normal_divisor = 1;
    r.abs_max_compare = 0.1;
    assert_true(one(&r, 1.09, 1.0, 1.0));
    assert_false(one(&r, 1.11, 1.0, 1.0));
    /* an infinite bound always passes */
    r.abs_max_compare = 0;
    assert_true(one(&r, -5.0, 1.0, INFINITY));
}

static void test_fp_special(void **state)
{
    (void)state;
    cmp_rule r = rule(CMP_FP_SPECIAL, TOSAC_DT_F32);
    assert_true(one(&r, INFINITY, INFINITY, 0));
    assert_false(one(&r, 3.4e38, INFINITY, 0));        /* finiteness differs */
    assert_true(one(&r, 0.0, -0.0, 0));                /* both zero */
    assert_false(one(&r, INFINITY, -INFINITY, 0));     /* sign differs */
    assert_true(one(&r, 5.0, 1.0, 0));                 /* same class and sign */
    assert_true(one(&r, NAN, 1.0, NAN));               /* fp32: NaN imp, NaN bnd */
    assert_false(one(&r, NAN, 1.0, 0));
    assert_false(one(&r, 1.0, NAN, 0));
    assert_true(one(&r, NAN, NAN, 0));
    r.dtype = TOSAC_DT_F16;
    assert_true(one(&r, -INFINITY, 1.0, NAN));         /* fp16: ref not NaN, bnd NaN */
    assert_false(one(&r, -INFINITY, 1.0, 0));
    assert_true(one(&r, -NAN, NAN, 0));
}

static void fill(double *imp, double *ref, double *bnd, int n, double e)
{
    /* ref 1, bnd 1: one error unit is 2^-24, so imp = 1 + e * 2^-24 gives error e */
    for (int i = 0; i < n; i++) {
        ref[i] = 1.0;
        bnd[i] = 1.0;
        imp[i] = 1.0 + e * ldexp(1, -24);
    }
}

static void test_dot_product(void **state)
{
    (void)state;
    cmp_rule r = rule(CMP_DOT_PRODUCT, TOSAC_DT_F32);
    double imp[100], ref[100], bnd[100];
    char why[400];
    r.dp_ks = 4;
    /* per element |e| <= KS */
    fill(imp, ref, bnd, 1, 5);
    assert_false(cmp_check(&r, imp, ref, bnd, 1, why, sizeof why));
    assert_non_null(strstr(why, "element 0"));
    /* T = 10, KS = 4: sum(e^2) <= 16 */
    fill(imp, ref, bnd, 10, 1.0);
    assert_true(cmp_check(&r, imp, ref, bnd, 10, why, sizeof why));
    fill(imp, ref, bnd, 10, 1.5); /* 22.5 > 16 */
    assert_false(cmp_check(&r, imp, ref, bnd, 10, why, sizeof why));
    assert_string_equal(why, "sum of squared errors 22.5 > 0.4*KS*T = 16");
    /* bound 0: both must be 0 */
    fill(imp, ref, bnd, 1, 0);
    ref[0] = 0, bnd[0] = 0, imp[0] = 0;
    assert_true(cmp_check(&r, imp, ref, bnd, 1, why, sizeof why));
    imp[0] = 1e-30;
    assert_false(cmp_check(&r, imp, ref, bnd, 1, why, sizeof why));
    /* NaN bound or a bound that overflows fp32 after the KS margin: anything goes */
    bnd[0] = NAN, imp[0] = 123;
    assert_true(cmp_check(&r, imp, ref, bnd, 1, why, sizeof why));
    bnd[0] = 3.4028234e38, ref[0] = 1, imp[0] = -3e38;
    assert_true(cmp_check(&r, imp, ref, bnd, 1, why, sizeof why));
    bnd[0] = 1e38; /* no overflow: error 4e38 / (1e38 * 2^-24) is far above KS */
    assert_false(cmp_check(&r, imp, ref, bnd, 1, why, sizeof why));
    /* bias: T = 100, KS = 9, e = 0.7: sum 70 > 2*sqrt(900) = 60 for s in 3..5 only */
    r.dp_ks = 9;
    fill(imp, ref, bnd, 100, 0.7);
    r.dp_s = 0;
    assert_true(cmp_check(&r, imp, ref, bnd, 100, why, sizeof why));
    r.dp_s = 3;
    assert_false(cmp_check(&r, imp, ref, bnd, 100, why, sizeof why));
    assert_non_null(strstr(why, "> 2*sqrt(KS*T) = 60"));
    r.dp_s = 6;
    assert_true(cmp_check(&r, imp, ref, bnd, 100, why, sizeof why));
}

static cmp_rule parse_rule(const char *json, tosac_code want, const char *msg)
{
    tosac_json *v;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_json_parse(json, strlen(json), &v, &err), TOSAC_OK);
    cmp_rule r;
    assert_int_equal(cmp_rule_from_json(v, &r, &err), want);
    if (msg)
        assert_string_equal(err.msg, msg);
    tosac_json_free(v);
    return r;
}

static void test_rule_from_json(void **state)
{
    (void)state;
    cmp_rule r = parse_rule("{\"mode\":\"ULP\",\"data_type\":\"FP16\",\"ulp_info\":{\"ulp\":5}}", TOSAC_OK, NULL);
    assert_int_equal(r.mode, CMP_ULP);
    assert_int_equal(r.dtype, TOSAC_DT_F16);
    assert_true(r.ulp == 5);
    r = parse_rule("{\"mode\":\"RELATIVE\",\"data_type\":\"FP32\",\"relative_info\":"
                   "{\"max\":65504,\"scale\":0.006,\"ulp_bound\":20.0}}", TOSAC_OK, NULL);
    assert_true(r.rel_max == 65504 && r.rel_scale == 0.006 && r.rel_ulp_bound == 20);
    r = parse_rule("{\"mode\":\"ABS_ERROR\",\"data_type\":\"FP32\"}", TOSAC_OK, NULL);
    assert_true(r.abs_lower_bound == 0 && r.abs_normal_divisor == 1 && r.abs_max_compare == 0);
    r = parse_rule("{\"mode\":\"ABS_ERROR\",\"data_type\":\"FP32\",\"abs_error_info\":"
                   "{\"lower_bound\":0.5,\"bound_as_magnitude\":true,\"normal_divisor\":2}}", TOSAC_OK, NULL);
    assert_true(r.abs_lower_bound == 0.5 && r.abs_bound_as_magnitude && r.abs_normal_divisor == 2);
    r = parse_rule("{\"mode\":\"DOT_PRODUCT\",\"data_type\":\"FP16\",\"dot_product_info\":{\"s\":3,\"ks\":9}}",
                   TOSAC_OK, NULL);
    assert_true(r.dp_ks == 9 && r.dp_s == 3);
    r = parse_rule("{\"mode\":\"REDUCE_PRODUCT\",\"data_type\":\"FP16\",\"reduce_product_info\":{\"n\":2}}",
                   TOSAC_OK, NULL);
    assert_true(r.rp_n == 2);
    r = parse_rule("{\"mode\":\"EXACT\",\"data_type\":\"INT48\"}", TOSAC_OK, NULL);
    assert_int_equal(r.mode, CMP_EXACT);
    parse_rule("{\"mode\":\"ULP\",\"data_type\":\"FP32\"}", TOSAC_ERR_INPUT,
               "compliance: 'ulp' is missing or not a number");
    parse_rule("{\"mode\":\"FUZZY\",\"data_type\":\"FP32\"}", TOSAC_ERR_INPUT,
               "compliance: unknown mode 'FUZZY'");
    parse_rule("{\"data_type\":\"FP32\"}", TOSAC_ERR_INPUT, "compliance: entry without mode/data_type");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact),          cmocka_unit_test(test_ulp),
        cmocka_unit_test(test_relative),       cmocka_unit_test(test_reduce_product),
        cmocka_unit_test(test_abs_error),      cmocka_unit_test(test_fp_special),
        cmocka_unit_test(test_dot_product),    cmocka_unit_test(test_rule_from_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
