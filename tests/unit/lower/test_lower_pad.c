/* Lowering Pad (constant mode): ONNX begin/end pads reordered per dimension, the pad value
 * (float, quantized to the zero point's grid), the opset-18 axes input, the older
 * attribute form, rejections, and interpreter runs. */
#include "lower_testutil.h"

static const int64_t s22[2] = {2, 2};
static const float data22[4] = {1, 2, 3, 4};

/* pads [1,0, 0,2] (begins, then ends) = TOSA padding [1,0, 0,2] per dim; value 9.5. */
static void test_float_pad(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t four = 4, pv[4] = {1, 0, 0, 2}, ys[2] = {3, 4};
    const float v = 9.5f;
    int x = lt_input(g, "x", TOSAC_DT_F32, 2, s22);
    int p = lt_const(g, "pads", TOSAC_DT_I64, 1, &four, pv);
    int c = lt_const(g, "value", TOSAC_DT_F32, 0, NULL, &v);
    int y = lt_tensor(g, "y", TOSAC_DT_F32, 2, ys);
    int ins[3] = {x, p, c};
    lt_node(g, "Pad", ins, 3, &y, 1);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
    assert_string_equal(lt_ops(tg), "PAD");
    const tosa_block *b = tosa_graph_main_block(tg);
    const tosa_operator *o = lt_find_op(tg, TOSA_OP_PAD, 0);
    const int64_t *padding = b->tensors[o->inputs[1]].data;
    assert_int_equal(padding[0], 1);
    assert_int_equal(padding[1], 0);
    assert_int_equal(padding[2], 0);
    assert_int_equal(padding[3], 2);
    tosac_tensor in = lt_host(TOSAC_DT_F32, 2, s22, data22), out;
    lt_run(tg, &in, 1, &out);
    const float w = 9.5f, want[12] = {w, w, w, w, 1, 2, w, w, 3, 4, w, w};
    lt_expect_f32(&out, want, 12, 0, 0);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

/* int8 at (0.5, zp -3): value 0 pads with the zero point -3, value 1.0 with -1. */
static void test_int8_pad_value(void **state)
{
    (void)state;
    const int8_t xv[4] = {1, 2, 3, 4};
    for (int k = 0; k < 2; k++) {
        ir_graph *g = ir_graph_new("g", NULL);
        const int64_t four = 4, pv[4] = {0, 1, 0, 0}, ys[2] = {2, 3};
        const float v = k ? 1.0f : 0.0f;
        int x = lt_input(g, "x", TOSAC_DT_I8, 2, s22);
        int p = lt_const(g, "pads", TOSAC_DT_I64, 1, &four, pv);
        int c = lt_const(g, "value", TOSAC_DT_F32, 0, NULL, &v);
        int y = lt_tensor(g, "y", TOSAC_DT_I8, 2, ys);
        lt_quant(g, x, 0.5f, -3);
        lt_quant(g, y, 0.5f, -3);
        int ins[3] = {x, p, c};
        lt_node(g, "Pad", ins, 3, &y, 1);
        tosa_graph *tg = lt_lower_ok("TOSA-1.0+INT", g);
        assert_string_equal(lt_ops(tg), "PAD");
        tosac_tensor in = lt_host(TOSAC_DT_I8, 2, s22, xv), out;
        lt_run(tg, &in, 1, &out);
        int8_t pad = k ? -1 : -3;
        const int8_t want[6] = {pad, 1, 2, pad, 3, 4};
        lt_expect_bytes(&out, TOSAC_DT_I8, want, 6);
        tosac_tensor_free(&out);
        tosa_graph_free(tg);
        ir_graph_free(g);
    }
}

/* Opset 18 axes input: pads [1, 1] for axis -1 only. */
static void test_axes_input(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t two = 2, one = 1, pv[2] = {1, 1}, av[1] = {-1}, ys[2] = {2, 4};
    int x = lt_input(g, "x", TOSAC_DT_F32, 2, s22);
    int p = lt_const(g, "pads", TOSAC_DT_I64, 1, &two, pv);
    int a = lt_const(g, "axes", TOSAC_DT_I64, 1, &one, av);
    int y = lt_tensor(g, "y", TOSAC_DT_F32, 2, ys);
    int ins[4] = {x, p, -1, a};
    lt_node(g, "Pad", ins, 4, &y, 1);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
    tosac_tensor in = lt_host(TOSAC_DT_F32, 2, s22, data22), out;
    lt_run(tg, &in, 1, &out);
    const float want[8] = {0, 1, 2, 0, 0, 3, 4, 0};
    lt_expect_f32(&out, want, 8, 0, 0);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

/* Opset < 11: pads and value are attributes; other modes and negative pads are refused. */
static void test_attributes_and_rejections(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t pv[4] = {0, 1, 0, 0}, ys[2] = {2, 3};
    int x = lt_input(g, "x", TOSAC_DT_F32, 2, s22);
    int y = lt_tensor(g, "y", TOSAC_DT_F32, 2, ys);
    int k = lt_node(g, "Pad", &x, 1, &y, 1);
    assert_int_equal(ir_node_set_ints(g, k, "pads", pv, 4, &err), TOSAC_OK);
    assert_int_equal(ir_node_set_float(g, k, "value", -1.5f, &err), TOSAC_OK);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
    tosac_tensor in = lt_host(TOSAC_DT_F32, 2, s22, data22), out;
    lt_run(tg, &in, 1, &out);
    const float want[6] = {-1.5f, 1, 2, -1.5f, 3, 4};
    lt_expect_f32(&out, want, 6, 0, 0);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);

    assert_int_equal(ir_node_set_string(g, k, "mode", "reflect", &err), TOSAC_OK);
    assert_string_equal(lt_trial("TOSA-1.0+FP", g, 0), "Pad: mode 'reflect' (only constant)");
    const int64_t neg[4] = {0, -1, 0, 2};
    assert_int_equal(ir_node_set_string(g, k, "mode", "constant", &err), TOSAC_OK);
    assert_int_equal(ir_node_set_ints(g, k, "pads", neg, 4, &err), TOSAC_OK);
    assert_string_equal(lt_trial("TOSA-1.0+FP", g, 0), "Pad: negative pads (cropping)");
    ir_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_pad),
        cmocka_unit_test(test_int8_pad_value),
        cmocka_unit_test(test_axes_input),
        cmocka_unit_test(test_attributes_and_rejections),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
