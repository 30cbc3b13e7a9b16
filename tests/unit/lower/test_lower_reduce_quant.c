/* Quantized ReduceL1: RESCALE to int32 (zero point removed), ABS, REDUCE_SUM, one RESCALE to
 * the output; ReduceSumSquare: MUL (with its shift) instead of ABS; ReduceL2: that sum scaled
 * by 4^p, CLZ's power-of-two start and six Newton steps (INTDIV) of an integer square root.
 * Under a8w8 and a16w8, on random, all-zero and all-one inputs (EXT's degenerate data);
 * outputs against the CPU executor on the same QDQ model within one output step
 * (lower_core_testutil.h). */
#include "lower_core_testutil.h"

static float rx[2 * 3 * 8];

static void l1_model(lc_b *b, const void *arg)
{
    const char *op = arg ? arg : "ReduceL1";
    const int64_t xs[3] = {2, 3, 8}, ax = 2;
    int x = lc_input(b, "x", 3, xs, rx);
    /* axes: an attribute at opset 13 (a8w8 models), an input from 18 (a16w8: opset 21) */
    bool input = lc_mode_of(b) == LC_A16W8;
    int ins[2] = {x, input ? lc_ints(b, "axes", 1, &ax) : -1};
    int n = lc_node(b, op, "reduce", ins, input ? 2 : 1, 1);
    if (!input)
        ir_node_set_ints(lc_graph(b), n, "axes", &ax, 1, NULL);
    lc_output(b, lc_out(b, n, 0));
}

static void test_reduce_l1_quantized(void **state)
{
    (void)state;
    for (int data = 0; data < 3; data++) {
        if (data == 0)
            lc_fill(rx, 48, 41, 2.0f);
        for (int i = 0; data > 0 && i < 48; i++)
            rx[i] = data == 1 ? 0.0f : 1.0f;
        for (int m = 0; m < 2; m++) { /* lc_modes[0..1]: a8w8, a16w8 */
            lc_result r;
            lc_check(l1_model, NULL, lc_modes[m].mode, lc_modes[m].spec, 1, &r);
            if (r.delegated != 1)
                fail_msg("%s: CPU: %s", lc_modes[m].spec, r.reasons);
            assert_int_equal(lc_count(&r, TOSA_OP_ABS, TOSAC_DT_I32), 1);
            assert_int_equal(lc_count(&r, TOSA_OP_REDUCE_SUM, TOSAC_DT_I32), 1);
            assert_int_equal(lc_find(&r, TOSA_OP_REDUCE_SUM)->axis, 2);
        }
    }
}

static void test_reduce_l2_sumsq_quantized(void **state)
{
    (void)state;
    static const char *const ops[2] = {"ReduceL2", "ReduceSumSquare"};
    for (int k = 0; k < 2; k++)
        for (int data = 0; data < 4; data++) {
            if (data == 0 || data == 3) /* random in [-2, 2) and in [-60, 60) */
                lc_fill(rx, 48, 41 + (unsigned)data, data ? 60.0f : 2.0f);
            for (int i = 0; (data == 1 || data == 2) && i < 48; i++)
                rx[i] = data == 1 ? 0.0f : 1.0f;
            for (int m = 0; m < 2; m++) {
                lc_result r;
                lc_check(l1_model, ops[k], lc_modes[m].mode, lc_modes[m].spec, 1, &r);
                if (r.delegated != 1)
                    fail_msg("%s %s: CPU: %s", ops[k], lc_modes[m].spec, r.reasons);
                /* the square; L2 under a8w8 also scales its sum by 4^p (p = 7: 8 terms of up
                 * to 255^2); int16 sums already fill int32 (p = 0) */
                assert_int_equal(lc_count(&r, TOSA_OP_MUL, TOSAC_DT_I32), k == 0 && m == 0 ? 2 : 1);
                assert_int_equal(lc_count(&r, TOSA_OP_REDUCE_SUM, TOSAC_DT_I32), 1);
                assert_int_equal(lc_count(&r, TOSA_OP_INTDIV, TOSAC_DT_I32), k == 0 ? 6 : 0);
                assert_int_equal(lc_count(&r, TOSA_OP_CLZ, TOSAC_DT_I32), k == 0 ? 1 : 0);
            }
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduce_l1_quantized),
        cmocka_unit_test(test_reduce_l2_sumsq_quantized),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
