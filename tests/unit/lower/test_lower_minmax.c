/* Lowering variadic Min/Max: MINIMUM/MAXIMUM chains with broadcasting, the single-input
 * IDENTITY, quantized inputs rescaled to the output scale in int32, plain int8 widened, and
 * interpreter runs against hand-computed values. */
#include "lower_testutil.h"

/* Max/Min(a [2,2] = [1,5,3,2], b [2] = [2,4], c scalar 3). */
static void test_float_variadic(void **state)
{
    (void)state;
    const int64_t s22[2] = {2, 2}, s2[1] = {2};
    const float av[4] = {1, 5, 3, 2}, bv[2] = {2, 4}, cv = 3;
    const float want_max[4] = {3, 5, 3, 4}, want_min[4] = {1, 3, 2, 2};
    for (int k = 0; k < 2; k++) {
        ir_graph *g = ir_graph_new("g", NULL);
        int a = lt_input(g, "a", TOSAC_DT_F32, 2, s22), b = lt_input(g, "b", TOSAC_DT_F32, 1, s2);
        int c = lt_input(g, "c", TOSAC_DT_F32, 0, NULL), y = lt_tensor(g, "y", TOSAC_DT_F32, 2, s22);
        int ins[3] = {a, b, c};
        lt_node(g, k ? "Min" : "Max", ins, 3, &y, 1);
        tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
        assert_string_equal(lt_ops(tg), k ? "RESHAPE MINIMUM RESHAPE MINIMUM"
                                          : "RESHAPE MAXIMUM RESHAPE MAXIMUM");
        assert_int_equal(lt_find_op(tg, k ? TOSA_OP_MINIMUM : TOSA_OP_MAXIMUM, 0)->attr.nan_mode,
                         TOSA_NAN_PROPAGATE);
        tosac_tensor in[3] = {lt_host(TOSAC_DT_F32, 2, s22, av), lt_host(TOSAC_DT_F32, 1, s2, bv),
                              lt_host(TOSAC_DT_F32, 0, NULL, &cv)};
        tosac_tensor out;
        lt_run(tg, in, 3, &out);
        lt_expect_f32(&out, k ? want_min : want_max, 4, 0, 0);
        tosac_tensor_free(&out);
        tosa_graph_free(tg);
        ir_graph_free(g);
    }
}

static void test_single_input(void **state)
{
    (void)state;
    const int64_t s4[1] = {4};
    ir_graph *g = ir_graph_new("g", NULL);
    int a = lt_input(g, "a", TOSAC_DT_F32, 1, s4), y = lt_tensor(g, "y", TOSAC_DT_F32, 1, s4);
    lt_node(g, "Max", &a, 1, &y, 1);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
    assert_string_equal(lt_ops(tg), "IDENTITY");
    tosa_graph_free(tg);
    ir_graph_free(g);
}

/* a (0.5, zp 1) q [3,-5,11,1] = [1,-3,5,0]; b (0.25, zp -2) q [2,0,10,-10] = [1,0.5,3,-2];
 * max = [1, 0.5, 5, 0] at (0.2, zp 3): q [8, 5, 28, 3] (0.5 / 0.2f = 2.4999999: 0.2f is
 * slightly above 0.2, so it rounds down to 2, + zp 3). */
static void test_int8_max(void **state)
{
    (void)state;
    const int64_t s4[1] = {4};
    ir_graph *g = ir_graph_new("g", NULL);
    int a = lt_input(g, "a", TOSAC_DT_I8, 1, s4), b = lt_input(g, "b", TOSAC_DT_I8, 1, s4);
    int y = lt_tensor(g, "y", TOSAC_DT_I8, 1, s4);
    lt_quant(g, a, 0.5f, 1);
    lt_quant(g, b, 0.25f, -2);
    lt_quant(g, y, 0.2f, 3);
    int ins[2] = {a, b};
    lt_node(g, "Max", ins, 2, &y, 1);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+INT", g);
    assert_string_equal(lt_ops(tg), "RESCALE RESCALE MAXIMUM RESCALE");
    assert_int_equal(lt_out_dtype(tg, lt_find_op(tg, TOSA_OP_MAXIMUM, 0)), TOSAC_DT_I32);
    const int8_t av[4] = {3, -5, 11, 1}, bv[4] = {2, 0, 10, -10}, want[4] = {8, 5, 28, 3};
    tosac_tensor in[2] = {lt_host(TOSAC_DT_I8, 1, s4, av), lt_host(TOSAC_DT_I8, 1, s4, bv)};
    tosac_tensor out;
    lt_run(tg, in, 2, &out);
    lt_expect_bytes(&out, TOSAC_DT_I8, want, 4);
    const float ref[4] = {1, 0.5f, 5, 0};
    lt_expect_dequant(&out, 0.2f, 3, ref, 4);
    tosac_tensor_free(&out);
    assert_string_equal(lt_trial("TOSA-1.0+FP", g, 0), "RESCALE: in_t=i8 out_t=i32 needs PRO-INT");
    tosa_graph_free(tg);
    ir_graph_free(g);
}

static void test_plain_int8_min(void **state)
{
    (void)state;
    const int64_t s4[1] = {4};
    ir_graph *g = ir_graph_new("g", NULL);
    int a = lt_input(g, "a", TOSAC_DT_I8, 1, s4), b = lt_input(g, "b", TOSAC_DT_I8, 1, s4);
    int y = lt_tensor(g, "y", TOSAC_DT_I8, 1, s4);
    int ins[2] = {a, b};
    lt_node(g, "Min", ins, 2, &y, 1);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+INT", g);
    assert_string_equal(lt_ops(tg), "CAST CAST MINIMUM CAST");
    const int8_t av[4] = {-128, 5, 127, 0}, bv[4] = {0, -3, 126, 0}, want[4] = {-128, -3, 126, 0};
    tosac_tensor in[2] = {lt_host(TOSAC_DT_I8, 1, s4, av), lt_host(TOSAC_DT_I8, 1, s4, bv)};
    tosac_tensor out;
    lt_run(tg, in, 2, &out);
    lt_expect_bytes(&out, TOSAC_DT_I8, want, 4);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_variadic),
        cmocka_unit_test(test_single_input),
        cmocka_unit_test(test_int8_max),
        cmocka_unit_test(test_plain_int8_min),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
