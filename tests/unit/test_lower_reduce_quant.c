/* Quantized ReduceL1: RESCALE to int32 (zero point removed), ABS, REDUCE_SUM, one RESCALE to
 * the output, under a8w8 and a16w8, on random, all-zero and all-one inputs; outputs against
 * the CPU executor on the same QDQ model within one output step (lower_core_testutil.h). */
#include "lower_core_testutil.h"

static float rx[2 * 3 * 8];

static void l1_model(lc_b *b, const void *arg)
{
    (void)arg;
    const int64_t xs[3] = {2, 3, 8}, ax = 2;
    int x = lc_input(b, "x", 3, xs, rx);
    /* axes: an attribute at opset 13 (a8w8 models), an input from 18 (a16w8: opset 21) */
    bool input = lc_mode_of(b) == LC_A16W8;
    int ins[2] = {x, input ? lc_ints(b, "axes", 1, &ax) : -1};
    int n = lc_node(b, "ReduceL1", "l1", ins, input ? 2 : 1, 1);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduce_l1_quantized),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
