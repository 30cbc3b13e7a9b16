/* Lowering Tile, Expand, DepthToSpace and SpaceToDepth: TILE multiples, rank broadcast
 * before TILE, the reshape/transpose/reshape shuffles (expected values from numpy applying
 * the ONNX reference formulas to arange inputs), quantized pass-through and rejections. */
#include "lower_testutil.h"

static float arange[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

static void test_tile(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t xs[2] = {2, 3}, ys[2] = {4, 3}, two = 2, rep[2] = {2, 1};
    int x = lt_input(g, "x", TOSAC_DT_F32, 2, xs);
    int r = lt_const(g, "repeats", TOSAC_DT_I64, 1, &two, rep);
    int y = lt_tensor(g, "y", TOSAC_DT_F32, 2, ys);
    int ins[2] = {x, r};
    lt_node(g, "Tile", ins, 2, &y, 1);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
    assert_string_equal(lt_ops(tg), "TILE");
    tosac_tensor in = lt_host(TOSAC_DT_F32, 2, xs, arange), out;
    lt_run(tg, &in, 1, &out);
    const float want[12] = {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5};
    lt_expect_f32(&out, want, 12, 0, 0);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

/* Expand [3] to [2,3]: RESHAPE to [1,3], TILE by [2,1]. Expanding to the same shape is an
 * IDENTITY. */
static void test_expand(void **state)
{
    (void)state;
    for (int grow = 0; grow < 2; grow++) {
        ir_graph *g = ir_graph_new("g", NULL);
        const int64_t xs[1] = {3}, ys[2] = {2, 3}, n = grow ? 2 : 1;
        int x = lt_input(g, "x", TOSAC_DT_F32, 1, xs);
        int s = lt_const(g, "shape", TOSAC_DT_I64, 1, &n, grow ? ys : xs);
        int y = lt_tensor(g, "y", TOSAC_DT_F32, grow ? 2 : 1, grow ? ys : xs);
        int ins[2] = {x, s};
        lt_node(g, "Expand", ins, 2, &y, 1);
        tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
        assert_string_equal(lt_ops(tg), grow ? "RESHAPE TILE" : "IDENTITY");
        if (grow) {
            const int64_t *m = tosa_graph_main_block(tg)
                                   ->tensors[lt_find_op(tg, TOSA_OP_TILE, 0)->inputs[1]].data;
            assert_int_equal(m[0], 2);
            assert_int_equal(m[1], 1);
            tosac_tensor in = lt_host(TOSAC_DT_F32, 1, xs, arange), out;
            lt_run(tg, &in, 1, &out);
            const float want[6] = {0, 1, 2, 0, 1, 2};
            lt_expect_f32(&out, want, 6, 0, 0);
            tosac_tensor_free(&out);
        }
        tosa_graph_free(tg);
        ir_graph_free(g);
    }
}

static void run_shuffle(const char *op, const char *mode, const int64_t *xs, const int64_t *ys,
                        const float *want)
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_graph *g = ir_graph_new("g", NULL);
    int x = lt_input(g, "x", TOSAC_DT_F32, 4, xs), y = lt_tensor(g, "y", TOSAC_DT_F32, 4, ys);
    int k = lt_node(g, op, &x, 1, &y, 1);
    assert_int_equal(ir_node_set_int(g, k, "blocksize", 2, &err), TOSAC_OK);
    if (mode)
        assert_int_equal(ir_node_set_string(g, k, "mode", mode, &err), TOSAC_OK);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
    assert_string_equal(lt_ops(tg), "RESHAPE TRANSPOSE RESHAPE");
    assert_int_equal(tosa_graph_main_block(tg)->tensors[lt_find_op(tg, TOSA_OP_TRANSPOSE, 0)
                                                            ->outputs[0]].rank, 6);
    tosac_tensor in = lt_host(TOSAC_DT_F32, 4, xs, arange), out;
    lt_run(tg, &in, 1, &out);
    lt_expect_f32(&out, want, 16, 0, 0);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

/* arange(16) as [1,8,1,2] -> [1,2,2,4]; arange(16) as [1,1,4,4] -> [1,4,2,2]. */
static void test_depth_space(void **state)
{
    (void)state;
    const int64_t d[4] = {1, 8, 1, 2}, s[4] = {1, 2, 2, 4}, sq[4] = {1, 1, 4, 4}, dq[4] = {1, 4, 2, 2};
    const float dcr[16] = {0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15};
    const float crd[16] = {0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15};
    const float s2d[16] = {0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15};
    run_shuffle("DepthToSpace", NULL, d, s, dcr);
    run_shuffle("DepthToSpace", "CRD", d, s, crd);
    run_shuffle("SpaceToDepth", NULL, sq, dq, s2d);
}

/* Data movement keeps integers: quantization must not change. */
static void test_quantized(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t xs[1] = {2}, ys[1] = {4}, one = 1, rep[1] = {2};
    int x = lt_input(g, "x", TOSAC_DT_I8, 1, xs);
    int r = lt_const(g, "repeats", TOSAC_DT_I64, 1, &one, rep);
    int y = lt_tensor(g, "y", TOSAC_DT_I8, 1, ys);
    lt_quant(g, x, 0.5f, 3);
    lt_quant(g, y, 0.5f, 3);
    int ins[2] = {x, r};
    lt_node(g, "Tile", ins, 2, &y, 1);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+INT", g);
    assert_string_equal(lt_ops(tg), "TILE");
    const int8_t q[2] = {-7, 9}, want[4] = {-7, 9, -7, 9};
    tosac_tensor in = lt_host(TOSAC_DT_I8, 1, xs, q), out;
    lt_run(tg, &in, 1, &out);
    lt_expect_bytes(&out, TOSAC_DT_I8, want, 4);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    lt_quant(g, y, 0.25f, 3);
    assert_string_equal(lt_trial("TOSA-1.0+INT", g, 0),
                        "Tile: input and output quantization differ");
    ir_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tile),
        cmocka_unit_test(test_expand),
        cmocka_unit_test(test_depth_space),
        cmocka_unit_test(test_quantized),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
