/* Conv whose strided windows stop short of the input's end (ResNet's 1x1 stride-2 downsample
 * on an even size): TOSA needs an exact division, so the unread trailing rows/columns are
 * sliced off before CONV2D. */
#include "testutil.h"

#include "lower_testutil.h"

static void test_1x1_stride2_even_input(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    int64_t xs[4] = {1, 1, 4, 4}, ws[4] = {2, 1, 1, 1}, bs[1] = {2}, ys[4] = {1, 2, 2, 2};
    int x = lt_input(g, "x", TOSAC_DT_F32, 4, xs);
    int w = lt_const(g, "w", TOSAC_DT_F32, 4, ws, (const float[]){2, -1});
    int b = lt_const(g, "b", TOSAC_DT_F32, 1, bs, (const float[]){0.5f, 0});
    int y = lt_tensor(g, "y", TOSAC_DT_F32, 4, ys);
    int node = lt_node(g, "Conv", (const int[]){x, w, b}, 3, &y, 1);
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(ir_node_set_ints(g, node, "strides", (const int64_t[]){2, 2}, 2, &err), TOSAC_OK);
    assert_int_equal(ir_node_set_ints(g, node, "kernel_shape", (const int64_t[]){1, 1}, 2, &err), TOSAC_OK);
    assert_string_equal(lt_trial("TOSA-1.0+FP", g, node), "");
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
    /* the input transpose moves past the SLICE and, with one channel, is a RESHAPE */
    assert_string_equal(lt_ops(tg), "SLICE RESHAPE CONV2D TRANSPOSE");
    float xv[16];
    for (int i = 0; i < 16; i++)
        xv[i] = (float)i;
    tosac_tensor in = lt_host(TOSAC_DT_F32, 4, xs, xv), out;
    lt_run(tg, &in, 1, &out);
    /* y[oc][oh][ow] = w[oc] * x[2oh][2ow] + b[oc]; x[r][c] = 4r + c: reads 0, 2, 8, 10 */
    lt_expect_f32(&out, (const float[]){0.5f, 4.5f, 16.5f, 20.5f, 0, -2, -8, -10}, 8, 0, 0);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_1x1_stride2_even_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
