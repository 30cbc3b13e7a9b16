/* Mod (lower_mod.c): integer fmod=0 (sign of the divisor) and fmod=1 (sign of the dividend)
 * through INTDIV, int8 through CAST, float fmod=1, exact against literal results and the CPU
 * executor; quantized Mod refused with its reason. */
#include "lower_core_testutil.h"

#include <string.h>

typedef struct mcase {
    tosac_dtype dt;
    int64_t fmod;
    const void *a, *b;
} mcase;

static void mod_model(lc_b *b, const void *arg)
{
    const mcase *m = arg;
    const int64_t s[1] = {8};
    int ins[2];
    if (m->dt == TOSAC_DT_F32) {
        ins[0] = lc_input(b, "a", 1, s, m->a);
        ins[1] = lc_input(b, "b", 1, s, m->b);
    } else {
        ins[0] = lc_input_typed(b, "a", m->dt, 1, s, m->a);
        ins[1] = lc_input_typed(b, "b", m->dt, 1, s, m->b);
    }
    int n = lc_node(b, "Mod", "mod", ins, 2, 1);
    ir_node_set_int(lc_graph(b), n, "fmod", m->fmod, NULL);
    if (m->dt == TOSAC_DT_F32)
        lc_output(b, lc_out(b, n, 0));
    else
        lc_output_plain(b, lc_out(b, n, 0));
}

/* Every sign combination, a zero dividend and INT32_MAX; lc_check compares the delegate's
 * integers with the CPU kernel's exactly. */
static const int32_t a32[8] = {7, -7, 7, -7, 6, -6, 0, 2147483647};
static const int32_t b32[8] = {3, 3, -3, -3, 3, -3, 5, 10};

static void test_int32(void **s)
{
    (void)s;
    for (int f = 0; f < 2; f++) {
        mcase m = {TOSAC_DT_I32, f, a32, b32};
        lc_result r;
        lc_check(mod_model, &m, LC_FLOAT, "TOSA-1.0+INT", 0, &r);
        assert_int_equal(r.delegated, 1);
        assert_int_equal(lc_count(&r, TOSA_OP_INTDIV, TOSAC_DT_I32), 1);
        /* fmod=0 needs the sign fix (a SELECT), fmod=1 does not */
        assert_int_equal(lc_count(&r, TOSA_OP_SELECT, TOSAC_DT_UNKNOWN), f ? 0 : 1);
    }
}

static void test_int8(void **s)
{
    (void)s;
    static const int8_t a8[8] = {7, -7, 7, -7, -128, 127, 0, 100};
    static const int8_t b8[8] = {3, 3, -3, -3, 7, -7, 5, 9};
    for (int f = 0; f < 2; f++) {
        mcase m = {TOSAC_DT_I8, f, a8, b8};
        lc_result r;
        lc_check(mod_model, &m, LC_FLOAT, "TOSA-1.0+INT", 0, &r);
        assert_int_equal(r.delegated, 1);
        assert_int_equal(lc_count(&r, TOSA_OP_CAST, TOSAC_DT_I8), 1);
    }
}

/* Float fmod=1 includes a quotient just below an integer (5.9999 / 3 rounds near 2). */
static void test_float(void **s)
{
    (void)s;
    static const float af[8] = {7.5f, -7.5f, 7.5f, -7.5f, 5.9999f, 0.3f, 0, 100.25f};
    static const float bf[8] = {2, 2, -2, -2, 3, 0.1f, 1.5f, 0.75f};
    mcase m = {TOSAC_DT_F32, 1, af, bf};
    lc_result r;
    lc_check(mod_model, &m, LC_FLOAT, "TOSA-1.0+FP", 0, &r);
    assert_int_equal(r.delegated, 1);
    assert_non_null(lc_find(&r, TOSA_OP_FLOOR));
}

static void test_quantized_refused(void **s)
{
    (void)s;
    static const float af[8] = {7.5f, -7.5f, 7.5f, -7.5f, 5.9f, 0.3f, 0, 1.25f};
    static const float bf[8] = {2, 2, -2, -2, 3, 0.1f, 1.5f, 0.75f};
    mcase m = {TOSAC_DT_F32, 1, af, bf};
    lc_result r;
    lc_check(mod_model, &m, LC_A8W8, "TOSA-1.0+INT", 1, &r);
    assert_int_equal(r.delegated, 0);
    assert_non_null(strstr(r.reasons, "Mod: quantized operands"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int32),
        cmocka_unit_test(test_int8),
        cmocka_unit_test(test_float),
        cmocka_unit_test(test_quantized_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
