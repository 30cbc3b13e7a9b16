/* Lowering Gather / GatherElements through TOSA GATHER [N,K,C]: runtime indices (negative
 * ones fixed up, tiled over N), constant indices, folding, quantized data, and interpreter
 * runs against hand-computed values. */
#include "lower_testutil.h"

static void set_axis(ir_graph *g, int node, int64_t axis)
{
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(ir_node_set_int(g, node, "axis", axis, &err), TOSAC_OK);
}

/* data [[1,2,3],[4,5,6]], runtime indices [0,-1] on axis 1 -> [[1,3],[4,6]]. */
static void test_runtime_indices(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t ds[2] = {2, 3}, is[1] = {2}, ys[2] = {2, 2};
    int d = lt_input(g, "d", TOSAC_DT_F32, 2, ds), i = lt_input(g, "i", TOSAC_DT_I32, 1, is);
    int y = lt_tensor(g, "y", TOSAC_DT_F32, 2, ys);
    int ins[2] = {d, i};
    set_axis(g, lt_node(g, "Gather", ins, 2, &y, 1), 1);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+INT+FP", g);
    assert_string_equal(lt_ops(tg), "RESHAPE RESHAPE GREATER ADD SELECT TILE GATHER RESHAPE");
    const tosa_block *b = tosa_graph_main_block(tg);
    const tosa_operator *ga = lt_find_op(tg, TOSA_OP_GATHER, 0);
    /* values [N=2, K=3, C=1], indices [N=2, W=2] */
    assert_int_equal(b->tensors[ga->inputs[0]].shape[1], 3);
    assert_int_equal(b->tensors[ga->inputs[1]].shape[0], 2);
    const float dv[6] = {1, 2, 3, 4, 5, 6}, want[4] = {1, 3, 4, 6};
    const int32_t iv[2] = {0, -1};
    tosac_tensor in[2] = {lt_host(TOSAC_DT_F32, 2, ds, dv), lt_host(TOSAC_DT_I32, 1, is, iv)};
    tosac_tensor out;
    lt_run(tg, in, 2, &out);
    lt_expect_f32(&out, want, 4, 0, 0);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    /* the FP profile has no int32 RESHAPE/TILE/GREATER/SELECT: the indices are prepared in
     * f32 and cast back, same values (integers below 2^24 are exact in f32) */
    tg = lt_lower_ok("TOSA-1.0+FP", g);
    assert_string_equal(lt_ops(tg),
                        "RESHAPE CAST RESHAPE GREATER ADD SELECT TILE CAST GATHER RESHAPE");
    const tosa_operator *ga2 = lt_find_op(tg, TOSA_OP_GATHER, 0);
    assert_int_equal(tosa_graph_main_block(tg)->tensors[ga2->inputs[1]].dtype, TOSAC_DT_I32);
    lt_run(tg, in, 2, &out);
    lt_expect_f32(&out, want, 4, 0, 0);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);

    /* an axis beyond 2^24 would not be exact in f32: refused under FP alone */
    g = ir_graph_new("g", NULL);
    const int64_t big[1] = {(1 << 24) + 1}, one[1] = {1};
    d = lt_input(g, "d", TOSAC_DT_F32, 1, big);
    i = lt_input(g, "i", TOSAC_DT_I32, 1, one);
    y = lt_tensor(g, "y", TOSAC_DT_F32, 1, one);
    int ins2[2] = {d, i};
    lt_node(g, "Gather", ins2, 2, &y, 1);
    assert_string_equal(lt_trial("TOSA-1.0+FP", g, 0),
                        "Gather: runtime indices into an axis of 16777217 under a profile "
                        "without int32 arithmetic (computed in f32: exact to 2^24)");
    ir_graph_free(g);
}

/* Constant indices [[2],[0]] (shape [2,1]) on axis 0 of [[1,2],[3,4],[5,6]] ->
 * [[[5,6]],[[1,2]]]; legal in the FP profile alone. */
static void test_const_indices(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t ds[2] = {3, 2}, is[2] = {2, 1}, ys[3] = {2, 1, 2};
    const int64_t iv[2] = {2, -3};
    int d = lt_input(g, "d", TOSAC_DT_F32, 2, ds);
    int i = lt_const(g, "i", TOSAC_DT_I64, 2, is, iv);
    int y = lt_tensor(g, "y", TOSAC_DT_F32, 3, ys);
    int ins[2] = {d, i};
    lt_node(g, "Gather", ins, 2, &y, 1);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
    assert_string_equal(lt_ops(tg), "RESHAPE GATHER RESHAPE");
    const float dv[6] = {1, 2, 3, 4, 5, 6}, want[4] = {5, 6, 1, 2};
    tosac_tensor in = lt_host(TOSAC_DT_F32, 2, ds, dv), out;
    lt_run(tg, &in, 1, &out);
    lt_expect_f32(&out, want, 4, 0, 0);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);

    const int64_t bad = 3, one = 1;
    int j = lt_const(g, "j", TOSAC_DT_I64, 1, &one, &bad);
    const int64_t ys2[2] = {1, 2};
    int y2 = lt_tensor(g, "y2", TOSAC_DT_F32, 2, ys2);
    int ins2[2] = {d, j};
    lt_node(g, "Gather", ins2, 2, &y2, 1);
    assert_string_equal(lt_trial("TOSA-1.0+FP", g, 1), "Gather: index 3 out of range [-3, 3)");
    ir_graph_free(g);
}

/* Constant data and indices: folded into a CONST (no operator runs). */
static void test_folded(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t ds[1] = {4}, is[1] = {3};
    const int32_t dv[4] = {10, 20, 30, 40};
    const int64_t iv[3] = {3, 0, -2};
    int d = lt_const(g, "d", TOSAC_DT_I32, 1, ds, dv), i = lt_const(g, "i", TOSAC_DT_I64, 1, is, iv);
    int y = lt_tensor(g, "y", TOSAC_DT_I32, 1, is);
    int ins[2] = {d, i};
    lt_node(g, "Gather", ins, 2, &y, 1);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+INT", g);
    assert_string_equal(lt_ops(tg), "");
    tosac_tensor out;
    lt_run(tg, NULL, 0, &out);
    const int32_t want[3] = {40, 10, 30};
    lt_expect_bytes(&out, TOSAC_DT_I32, want, 3);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

/* int8 data keeps its integers; a different output quantization adds a RESCALE:
 * q 10 at (0.5, 0) = 5.0 -> at (0.25, 1) q 21. */
static void test_int8(void **state)
{
    (void)state;
    const int64_t ds[2] = {2, 2}, is[1] = {1}, ys[2] = {1, 2};
    const int64_t iv[1] = {1};
    const int8_t dv[4] = {1, 2, 10, -4};
    for (int same = 0; same < 2; same++) {
        ir_graph *g = ir_graph_new("g", NULL);
        int d = lt_input(g, "d", TOSAC_DT_I8, 2, ds);
        int i = lt_const(g, "i", TOSAC_DT_I64, 1, is, iv);
        int y = lt_tensor(g, "y", TOSAC_DT_I8, 2, ys);
        lt_quant(g, d, 0.5f, 0);
        lt_quant(g, y, same ? 0.5f : 0.25f, same ? 0 : 1);
        int ins[2] = {d, i};
        lt_node(g, "Gather", ins, 2, &y, 1);
        tosa_graph *tg = lt_lower_ok("TOSA-1.0+INT", g);
        assert_string_equal(lt_ops(tg), same ? "RESHAPE GATHER RESHAPE"
                                             : "RESHAPE GATHER RESCALE RESHAPE");
        tosac_tensor in = lt_host(TOSAC_DT_I8, 2, ds, dv), out;
        lt_run(tg, &in, 1, &out);
        const int8_t want_same[2] = {10, -4}, want_other[2] = {21, -7};
        lt_expect_bytes(&out, TOSAC_DT_I8, same ? want_same : want_other, 2);
        tosac_tensor_free(&out);
        tosa_graph_free(tg);
        ir_graph_free(g);
    }
}

/* GatherElements: constant indices [[2,0],[1,1]] on axis 1 of [[1,2,3],[4,5,6]] ->
 * [[3,1],[5,5]]; runtime indices [[1,0,1]] on axis 0 -> [[4,2,6]] (flat offset =
 * index * 3 + column: MUL then ADD of the base offsets). */
static void test_gather_elements(void **state)
{
    (void)state;
    const int64_t ds[2] = {2, 3}, is[2] = {2, 2}, rs[2] = {1, 3};
    const float dv[6] = {1, 2, 3, 4, 5, 6};
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t iv[4] = {2, 0, 1, -2};
    int d = lt_input(g, "d", TOSAC_DT_F32, 2, ds), i = lt_const(g, "i", TOSAC_DT_I64, 2, is, iv);
    int y = lt_tensor(g, "y", TOSAC_DT_F32, 2, is);
    int ins[2] = {d, i};
    set_axis(g, lt_node(g, "GatherElements", ins, 2, &y, 1), 1);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
    assert_string_equal(lt_ops(tg), "RESHAPE GATHER RESHAPE");
    tosac_tensor in = lt_host(TOSAC_DT_F32, 2, ds, dv), out;
    lt_run(tg, &in, 1, &out);
    const float want[4] = {3, 1, 5, 5};
    lt_expect_f32(&out, want, 4, 0, 0);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);

    g = ir_graph_new("g", NULL);
    d = lt_input(g, "d", TOSAC_DT_F32, 2, ds);
    i = lt_input(g, "i", TOSAC_DT_I32, 2, rs);
    y = lt_tensor(g, "y", TOSAC_DT_F32, 2, rs);
    int ins2[2] = {d, i};
    set_axis(g, lt_node(g, "GatherElements", ins2, 2, &y, 1), 0);
    tg = lt_lower_ok("TOSA-1.0+INT+FP", g);
    /* the constant's RESHAPE folded */
    assert_string_equal(lt_ops(tg), "RESHAPE GREATER ADD SELECT MUL ADD GATHER RESHAPE");
    const int32_t ri[3] = {1, 0, -1};
    tosac_tensor in2[2] = {lt_host(TOSAC_DT_F32, 2, ds, dv), lt_host(TOSAC_DT_I32, 2, rs, ri)};
    lt_run(tg, in2, 2, &out);
    const float want2[3] = {4, 2, 6};
    lt_expect_f32(&out, want2, 3, 0, 0);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

/* Shapes the rules cannot size (unknown, or too large to count) are refused up front. */
static void test_unsized(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t ds[2] = {2, 3}, is[1] = {2}, ys[2] = {-1, 2};
    int d = lt_input(g, "d", TOSAC_DT_F32, 2, ds), i = lt_input(g, "i", TOSAC_DT_I32, 1, is);
    int y = lt_tensor(g, "y", TOSAC_DT_F32, 2, ys);
    int ins[2] = {d, i};
    set_axis(g, lt_node(g, "Gather", ins, 2, &y, 1), 1);
    assert_string_equal(lt_trial("TOSA-1.0+INT+FP", g, 0), "Gather: 'y' has an unknown dimension 0");
    ir_graph_free(g);

    g = ir_graph_new("g", NULL);
    const int64_t big[2] = {INT64_C(1) << 40, INT64_C(1) << 40}, bs[1] = {1};
    d = lt_input(g, "d", TOSAC_DT_F32, 2, big);
    i = lt_input(g, "i", TOSAC_DT_I32, 1, bs);
    y = lt_tensor(g, "y", TOSAC_DT_F32, 2, big);
    int ins2[2] = {d, i};
    lt_node(g, "GatherElements", ins2, 2, &y, 1);
    assert_string_equal(lt_trial("TOSA-1.0+INT+FP", g, 0), "GatherElements: 'd' is too large");
    ir_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runtime_indices),
        cmocka_unit_test(test_const_indices),
        cmocka_unit_test(test_folded),
        cmocka_unit_test(test_int8),
        cmocka_unit_test(test_gather_elements),
        cmocka_unit_test(test_unsized),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
