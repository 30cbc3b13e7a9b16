/* Pow (lower_pow.c): float constant exponents as products/RSQRT/RECIPROCAL (no POW), other
 * exponents as POW, quantized constant exponents as a TABLE (a8w8, a16w8), all-zero and
 * all-one inputs, and the refusals. Outputs against the CPU executor (lower_core_testutil.h:
 * float within 1e-5 of (|ref| + max |ref|), quantized within 1 output step). */
#include "lower_core_testutil.h"

#include <math.h>
#include <string.h>

#define INT8 "TOSA-1.0+INT"
#define INT16 "TOSA-1.0+INT+int16"
#define FP "TOSA-1.0+FP"

typedef struct pcase {
    float e;
    bool runtime;           /* the exponent is a second graph input */
    const float *x;         /* NULL: px */
} pcase;

static float px[24], pe[24];

static void pow_model(lc_b *b, const void *arg)
{
    const pcase *p = arg;
    const int64_t s[3] = {2, 3, 4}, one[1] = {1};
    int ins[2];
    ins[0] = lc_input(b, "x", 3, s, p->x ? p->x : px);
    ins[1] = p->runtime ? lc_input(b, "e", 3, s, pe) : lc_weight(b, "e", 1, one, &p->e, -1);
    int n = lc_node(b, "Pow", "pow", ins, 2, 1);
    lc_output(b, lc_out(b, n, 0));
}

/* x in [0.25, 3) (POW is defined for x > 0 only) */
static void positive(unsigned seed)
{
    lc_fill(px, 24, seed, 1.0f);
    for (int i = 0; i < 24; i++)
        px[i] = 0.25f + (px[i] + 1.0f) * 1.375f;
}

static void test_float_special(void **s)
{
    (void)s;
    static const struct {
        float e;
        int muls;
        tosa_op other;      /* an operator the form needs (UNKNOWN: none) */
    } cases[] = {
        {2, 1, TOSA_OP_UNKNOWN}, {3, 2, TOSA_OP_UNKNOWN}, {5, 3, TOSA_OP_UNKNOWN},
        {-1, 0, TOSA_OP_RECIPROCAL}, {-2, 1, TOSA_OP_RECIPROCAL}, {0.5f, 0, TOSA_OP_RSQRT},
        {-0.5f, 0, TOSA_OP_RSQRT}, {1, 0, TOSA_OP_UNKNOWN},
    };
    lc_fill(px, 24, 3, 3.0f); /* negative bases too: products are defined there */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].e != nearbyintf(cases[i].e))
            positive(4);
        pcase p = {cases[i].e, false, NULL};
        lc_result r;
        lc_check(pow_model, &p, LC_FLOAT, FP, 0, &r);
        assert_int_equal(r.delegated, 1);
        assert_int_equal(lc_count(&r, TOSA_OP_POW, TOSAC_DT_UNKNOWN), 0);
        assert_int_equal(lc_count(&r, TOSA_OP_MUL, TOSAC_DT_UNKNOWN), cases[i].muls);
        if (cases[i].other != TOSA_OP_UNKNOWN)
            assert_non_null(lc_find(&r, cases[i].other));
    }
}

static void test_float_pow(void **s)
{
    (void)s;
    positive(5);
    pcase p = {1.7f, false, NULL};
    lc_result r;
    lc_check(pow_model, &p, LC_FLOAT, FP, 0, &r);
    assert_int_equal(r.delegated, 1);
    assert_int_equal(lc_count(&r, TOSA_OP_POW, TOSAC_DT_F32), 1);
    lc_fill(pe, 24, 6, 2.0f);
    p.runtime = true;
    lc_check(pow_model, &p, LC_FLOAT, FP, 0, &r);
    assert_int_equal(r.delegated, 1);
    assert_int_equal(lc_count(&r, TOSA_OP_POW, TOSAC_DT_F32), 1);
}

static void test_quantized(void **s)
{
    (void)s;
    static const float es[3] = {2, 0.5f, 1.7f};
    for (int i = 0; i < 3; i++) {
        positive(7u + (unsigned)i);
        pcase p = {es[i], false, NULL};
        lc_result r;
        lc_check(pow_model, &p, LC_A8W8, INT8, 1, &r);
        assert_int_equal(r.delegated, 1);
        assert_int_equal(lc_count(&r, TOSA_OP_TABLE, TOSAC_DT_I8), 1);
        lc_check(pow_model, &p, LC_A16W8, INT16, 2, &r); /* 2: interpolated table, as above */
        assert_int_equal(r.delegated, 1);
        assert_int_equal(lc_count(&r, TOSA_OP_TABLE, TOSAC_DT_I32), 1);
    }
    /* a runtime exponent has no integer form */
    positive(11);
    lc_fill(pe, 24, 12, 2.0f);
    pcase p = {0, true, NULL};
    lc_result r;
    lc_check(pow_model, &p, LC_A8W8, INT8, 1, &r);
    assert_int_equal(r.delegated, 0);
    assert_non_null(strstr(r.reasons, "Pow: quantized with an exponent that is not one constant"));
}

/* All-zero / all-one inputs under a8w8 only: under a16w8 the shared int16 table's
 * mid-segment correction moves the exactly hit entry (see test_lower_unary_more). */
static void test_degenerate(void **s)
{
    (void)s;
    static float zeros[24], ones[24];
    for (int i = 0; i < 24; i++)
        ones[i] = 1.0f;
    for (int k = 0; k < 2; k++) {
        pcase p = {2, false, k ? ones : zeros};
        lc_result r;
        lc_check(pow_model, &p, LC_A8W8, INT8, 1, &r);
        assert_int_equal(r.delegated, 1);
        assert_int_equal(lc_count(&r, TOSA_OP_TABLE, TOSAC_DT_I8), 1);
    }
}

static void int_model(lc_b *b, const void *arg)
{
    (void)arg;
    static const int32_t v[4] = {1, 2, 3, 4}, e[4] = {2, 2, 2, 2};
    const int64_t s[1] = {4};
    int ins[2] = {lc_input_typed(b, "x", TOSAC_DT_I32, 1, s, v),
                  lc_input_typed(b, "e", TOSAC_DT_I32, 1, s, e)};
    int n = lc_node(b, "Pow", "pow", ins, 2, 1);
    lc_output_plain(b, lc_out(b, n, 0));
}

static void test_integer_refused(void **s)
{
    (void)s;
    lc_result r;
    lc_check(int_model, NULL, LC_FLOAT, "TOSA-1.0+INT+FP", 0, &r);
    assert_int_equal(r.delegated, 0);
    assert_non_null(strstr(r.reasons, "Pow: i32 base (TOSA has no integer POW)"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_special), cmocka_unit_test(test_float_pow),
        cmocka_unit_test(test_quantized),     cmocka_unit_test(test_degenerate),
        cmocka_unit_test(test_integer_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
