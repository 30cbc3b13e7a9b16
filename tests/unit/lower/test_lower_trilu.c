/* Trilu as SELECT with a constant mask (lower_trilu.c): upper/lower with k -1, 0, 2, float,
 * a8w8 and a16w8, inf outside the band, all-zero / all-one inputs, against the CPU executor
 * (lower_core_testutil.h). */
#include "lower_core_testutil.h"

#include <math.h>
#include <string.h>

#define INT8 "TOSA-1.0+INT"
#define INT16 "TOSA-1.0+INT+int16"
#define FP "TOSA-1.0+FP"

typedef struct tcase {
    int64_t upper, k;
    bool no_k;
    const float *x;
} tcase;

static float trx[40];

static void trilu_model(lc_b *b, const void *arg)
{
    const tcase *t = arg;
    const int64_t s[3] = {2, 4, 5};
    int ins[2] = {lc_input(b, "x", 3, s, t->x ? t->x : trx), -1};
    if (!t->no_k)
        ins[1] = lc_ints(b, "k", 1, &t->k);
    int n = lc_node(b, "Trilu", "trilu", ins, t->no_k ? 1 : 2, 1);
    ir_node_set_int(lc_graph(b), n, "upper", t->upper, NULL);
    lc_output(b, lc_out(b, n, 0));
}

static void test_modes(void **s)
{
    (void)s;
    const tcase cases[] = {{1, 0, true, NULL}, {1, -1, false, NULL}, {0, 2, false, NULL},
                           {0, 0, false, NULL}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lc_fill(trx, 40, 5u + (unsigned)i, 2.0f);
        lc_result r;
        lc_check(trilu_model, &cases[i], LC_FLOAT, FP, 0, &r);
        assert_int_equal(r.delegated, 1);
        assert_int_equal(lc_count(&r, TOSA_OP_SELECT, TOSAC_DT_F32), 1);
        assert_int_equal(lc_count(&r, TOSA_OP_MUL, TOSAC_DT_UNKNOWN), 0);
        lc_check(trilu_model, &cases[i], LC_A8W8, INT8, 1, &r);
        assert_int_equal(r.delegated, 1);
        assert_int_equal(lc_count(&r, TOSA_OP_SELECT, TOSAC_DT_I8), 1);
        lc_check(trilu_model, &cases[i], LC_A16W8, INT16, 1, &r);
        assert_int_equal(r.delegated, 1);
        assert_int_equal(lc_count(&r, TOSA_OP_SELECT, TOSAC_DT_I16), 1);
    }
}

/* inf and NaN below the diagonal become 0 (a MUL by a 0/1 mask would give NaN there). */
static void test_inf_outside(void **s)
{
    (void)s;
    static float x[40];
    for (int i = 0; i < 40; i++)
        x[i] = (i % 5) < ((i / 5) % 4) ? (i % 2 ? INFINITY : NAN) : (float)i;
    tcase t = {1, 0, true, x};
    lc_result r;
    lc_check(trilu_model, &t, LC_FLOAT, FP, 0, &r);
    assert_int_equal(r.delegated, 1);
}

static void test_degenerate(void **s)
{
    (void)s;
    static float zeros[40], ones[40];
    for (int i = 0; i < 40; i++)
        ones[i] = 1.0f;
    for (int k = 0; k < 2; k++) {
        tcase t = {1, 1, false, k ? ones : zeros};
        lc_result r;
        lc_check(trilu_model, &t, LC_A8W8, INT8, 1, &r);
        assert_int_equal(r.delegated, 1);
        lc_check(trilu_model, &t, LC_A16W8, INT16, 1, &r);
        assert_int_equal(r.delegated, 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_modes),
        cmocka_unit_test(test_inf_outside),
        cmocka_unit_test(test_degenerate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
