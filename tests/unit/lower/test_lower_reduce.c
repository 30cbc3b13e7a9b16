/* Lowering ReduceSum/Mean/Max/Min/Prod and ArgMax/ArgMin: the operators emitted, their
 * dtypes, legality per spec, and interpreter runs against hand-computed values. */
#include "lower_testutil.h"

static void set_ints(ir_graph *g, int node, const char *name, const int64_t *v, int n)
{
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(ir_node_set_ints(g, node, name, v, n, &err), TOSAC_OK);
}

static void set_int(ir_graph *g, int node, const char *name, int64_t v)
{
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(ir_node_set_int(g, node, name, v, &err), TOSAC_OK);
}

/* ReduceMean over axes {0, 2} of [2,2,3] with keepdims=0: two REDUCE_SUMs, a MUL by 1/6 and
 * the RESHAPE dropping the axes. x = 0..11: mean of {0,1,2,6,7,8} = 4, of {3,4,5,9,10,11} = 7. */
static void test_float_mean_two_axes(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t xs[3] = {2, 2, 3}, ys[1] = {2};
    int x = lt_input(g, "x", TOSAC_DT_F32, 3, xs);
    int y = lt_tensor(g, "y", TOSAC_DT_F32, 1, ys);
    int k = lt_node(g, "ReduceMean", &x, 1, &y, 1);
    const int64_t axes[2] = {2, 0};
    set_ints(g, k, "axes", axes, 2);
    set_int(g, k, "keepdims", 0);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
    assert_string_equal(lt_ops(tg), "REDUCE_SUM REDUCE_SUM MUL RESHAPE");
    assert_int_equal(lt_find_op(tg, TOSA_OP_REDUCE_SUM, 0)->attr.axis, 0);
    assert_int_equal(lt_find_op(tg, TOSA_OP_REDUCE_SUM, 1)->attr.axis, 2);
    float xv[12];
    for (int i = 0; i < 12; i++)
        xv[i] = (float)i;
    tosac_tensor in = lt_host(TOSAC_DT_F32, 3, xs, xv), out;
    lt_run(tg, &in, 1, &out);
    const float want[2] = {4.0f, 7.0f};
    lt_expect_f32(&out, want, 2, 1e-6, 1e-6);
    tosac_tensor_free(&out);
    assert_string_equal(lt_trial("TOSA-1.0+INT", g, 0), "REDUCE_SUM: in_out_t=f32 needs PRO-FP");
    tosa_graph_free(tg);
    ir_graph_free(g);
}

/* ReduceSum (opset 13): axes from a constant input, negative axis, keepdims default. */
static void test_float_sum_axes_input(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t xs[2] = {2, 3}, ys[2] = {2, 1}, one = 1, ax = -1;
    int x = lt_input(g, "x", TOSAC_DT_F32, 2, xs);
    int a = lt_const(g, "axes", TOSAC_DT_I64, 1, &one, &ax);
    int y = lt_tensor(g, "y", TOSAC_DT_F32, 2, ys);
    int ins[2] = {x, a};
    lt_node(g, "ReduceSum", ins, 2, &y, 1);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
    assert_string_equal(lt_ops(tg), "REDUCE_SUM");
    assert_int_equal(lt_find_op(tg, TOSA_OP_REDUCE_SUM, 0)->attr.axis, 1);
    const float xv[6] = {1, 2, 3, 4, 5, 6}, want[2] = {6, 15};
    tosac_tensor in = lt_host(TOSAC_DT_F32, 2, xs, xv), out;
    lt_run(tg, &in, 1, &out);
    lt_expect_f32(&out, want, 2, 0, 0);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

/* No axes: all of them, unless noop_with_empty_axes, which passes the data through. */
static void test_empty_axes(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t xs[2] = {2, 2}, ys[2] = {1, 1};
    int x = lt_input(g, "x", TOSAC_DT_F32, 2, xs);
    int y = lt_tensor(g, "y", TOSAC_DT_F32, 2, ys);
    lt_node(g, "ReduceMin", &x, 1, &y, 1);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
    assert_string_equal(lt_ops(tg), "REDUCE_MIN REDUCE_MIN");
    assert_int_equal(lt_find_op(tg, TOSA_OP_REDUCE_MIN, 0)->attr.nan_mode, TOSA_NAN_PROPAGATE);
    const float xv[4] = {3, -2, 8, 0.5f}, want[1] = {-2};
    tosac_tensor in = lt_host(TOSAC_DT_F32, 2, xs, xv), out;
    lt_run(tg, &in, 1, &out);
    lt_expect_f32(&out, want, 1, 0, 0);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);

    g = ir_graph_new("g", NULL);
    x = lt_input(g, "x", TOSAC_DT_F32, 2, xs);
    y = lt_tensor(g, "y", TOSAC_DT_F32, 2, xs);
    int k = lt_node(g, "ReduceMax", &x, 1, &y, 1);
    set_int(g, k, "noop_with_empty_axes", 1);
    tg = lt_lower_ok("TOSA-1.0+FP", g);
    assert_string_equal(lt_ops(tg), "IDENTITY");
    tosa_graph_free(tg);
    ir_graph_free(g);
}

/* int8 ReduceMean: zero point removed while rescaling to int32, REDUCE_SUM in int32, one
 * RESCALE by s_in / (s_out * 4). x q = [-2,0,6,10] at (0.5, zp -2) is [0,1,4,6], mean 2.75;
 * at (0.25, zp 3) that is q = 2.75/0.25 + 3 = 14. */
static void test_int8_mean(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t xs[2] = {1, 4}, ys[2] = {1, 1};
    int x = lt_input(g, "x", TOSAC_DT_I8, 2, xs);
    int y = lt_tensor(g, "y", TOSAC_DT_I8, 2, ys);
    lt_quant(g, x, 0.5f, -2);
    lt_quant(g, y, 0.25f, 3);
    int k = lt_node(g, "ReduceMean", &x, 1, &y, 1);
    const int64_t ax = 1;
    set_ints(g, k, "axes", &ax, 1);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+INT", g);
    assert_string_equal(lt_ops(tg), "RESCALE REDUCE_SUM RESCALE");
    assert_int_equal(lt_out_dtype(tg, lt_find_op(tg, TOSA_OP_REDUCE_SUM, 0)), TOSAC_DT_I32);
    assert_int_equal(lt_out_dtype(tg, lt_find_op(tg, TOSA_OP_RESCALE, 0)), TOSAC_DT_I32);
    const int8_t xv[4] = {-2, 0, 6, 10}, want[1] = {14};
    tosac_tensor in = lt_host(TOSAC_DT_I8, 2, xs, xv), out;
    lt_run(tg, &in, 1, &out);
    lt_expect_bytes(&out, TOSAC_DT_I8, want, 1);
    const float ref[1] = {2.75f};
    lt_expect_dequant(&out, 0.25f, 3, ref, 1);
    tosac_tensor_free(&out);
    assert_string_equal(lt_trial("TOSA-1.0+FP", g, 0), "RESCALE: in_t=i8 out_t=i32 needs PRO-INT");
    tosa_graph_free(tg);
    ir_graph_free(g);
}

/* int16 ReduceSum: same shape of graph, i16 in and out. Real x =
 * 0.01*[100, -50, 25] sums to 0.75, at output scale 0.005 that is 150. */
static void test_int16_sum(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t xs[1] = {3}, ys[1] = {1};
    int x = lt_input(g, "x", TOSAC_DT_I16, 1, xs);
    int y = lt_tensor(g, "y", TOSAC_DT_I16, 1, ys);
    lt_quant(g, x, 0.01f, 0);
    lt_quant(g, y, 0.005f, 0);
    lt_node(g, "ReduceSum", &x, 1, &y, 1);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+INT+int16", g);
    assert_string_equal(lt_ops(tg), "RESCALE REDUCE_SUM RESCALE");
    const int16_t xv[3] = {100, -50, 25}, want[1] = {150};
    tosac_tensor in = lt_host(TOSAC_DT_I16, 1, xs, xv), out;
    lt_run(tg, &in, 1, &out);
    lt_expect_bytes(&out, TOSAC_DT_I16, want, 1);
    tosac_tensor_free(&out);
    /* every operator here (RESCALE i16->i32, REDUCE_SUM i32) is plain PRO-INT */
    assert_string_equal(lt_trial("TOSA-1.0+INT", g, 0), "");
    assert_string_equal(lt_trial("TOSA-1.0+FP", g, 0), "RESCALE: in_t=i16 out_t=i32 needs PRO-INT");
    tosa_graph_free(tg);
    ir_graph_free(g);
}

/* int8 ReduceMax reduces the integers; a RESCALE follows only when the quantization
 * changes. q = [5, -7, 20, 3] at (0.1, zp 1): max q 20 -> real 1.9 -> at (0.2, zp -1): 8.5,
 * rounded half up by RESCALE to 9 -> 1.9 within one output step. */
static void test_int8_max(void **state)
{
    (void)state;
    for (int same = 0; same < 2; same++) {
        ir_graph *g = ir_graph_new("g", NULL);
        const int64_t xs[2] = {2, 2}, ys[2] = {1, 1};
        int x = lt_input(g, "x", TOSAC_DT_I8, 2, xs);
        int y = lt_tensor(g, "y", TOSAC_DT_I8, 2, ys);
        lt_quant(g, x, 0.1f, 1);
        lt_quant(g, y, same ? 0.1f : 0.2f, same ? 1 : -1);
        lt_node(g, "ReduceMax", &x, 1, &y, 1);
        tosa_graph *tg = lt_lower_ok("TOSA-1.0+INT", g);
        assert_string_equal(lt_ops(tg), same ? "REDUCE_MAX REDUCE_MAX"
                                             : "REDUCE_MAX REDUCE_MAX RESCALE");
        assert_int_equal(lt_out_dtype(tg, lt_find_op(tg, TOSA_OP_REDUCE_MAX, 0)), TOSAC_DT_I8);
        const int8_t xv[4] = {5, -7, 20, 3};
        const int8_t want = same ? 20 : 9;
        tosac_tensor in = lt_host(TOSAC_DT_I8, 2, xs, xv), out;
        lt_run(tg, &in, 1, &out);
        lt_expect_bytes(&out, TOSAC_DT_I8, &want, 1);
        const float ref[1] = {1.9f};
        lt_expect_dequant(&out, same ? 0.1f : 0.2f, same ? 1 : -1, ref, 1);
        tosac_tensor_free(&out);
        tosa_graph_free(tg);
        ir_graph_free(g);
    }
}

/* ArgMax keeps the first maximum; ArgMin negates floats, and maps integers through
 * BITWISE_NOT (-x-1: no overflow at -128). keepdims needs a RESHAPE of the int32 indices,
 * which only the INT profile has. */
static void test_argmax_argmin(void **state)
{
    (void)state;
    const int64_t xs[2] = {2, 3}, ks[2] = {2, 1}, ds[1] = {2};
    const char *ops[3] = {"ArgMax", "ArgMin", "ArgMin"};
    const char *want_ops[3] = {"ARGMAX RESHAPE", "NEGATE ARGMAX RESHAPE", "BITWISE_NOT ARGMAX"};
    const char *spec[3] = {"TOSA-1.0+INT+FP", "TOSA-1.0+INT+FP", "TOSA-1.0+INT"};
    const float xf[6] = {1, 5, 3, 7, 2, 7};
    const int8_t xi[6] = {-128, 5, -128, 3, 127, -1};
    const int32_t want[3][2] = {{1, 0}, {0, 1}, {0, 2}};
    for (int t = 0; t < 3; t++) {
        ir_graph *g = ir_graph_new("g", NULL);
        tosac_dtype dt = t == 2 ? TOSAC_DT_I8 : TOSAC_DT_F32;
        int x = lt_input(g, "x", dt, 2, xs);
        int y = lt_tensor(g, "y", TOSAC_DT_I32, t == 2 ? 1 : 2, t == 2 ? ds : ks);
        int k = lt_node(g, ops[t], &x, 1, &y, 1);
        set_int(g, k, "axis", -1);
        if (t == 2)
            set_int(g, k, "keepdims", 0);
        tosa_graph *tg = lt_lower_ok(spec[t], g);
        assert_string_equal(lt_ops(tg), want_ops[t]);
        if (t < 2)
            assert_string_equal(lt_trial("TOSA-1.0+FP", g, 0),
                                "RESHAPE: in_out_t=i32 needs PRO-INT");
        tosac_tensor in = lt_host(dt, 2, xs, t == 2 ? (const void *)xi : (const void *)xf), out;
        lt_run(tg, &in, 1, &out);
        lt_expect_bytes(&out, TOSAC_DT_I32, want[t], 2);
        tosac_tensor_free(&out);
        tosa_graph_free(tg);
        ir_graph_free(g);
    }
}

/* Float norms over axis 1 of [[3,-4],[1,2]] (values from numpy, float32), keepdims. */
static void test_float_norms(void **state)
{
    (void)state;
    static const struct {
        const char *op, *ops;
        float want[2];
    } cases[] = {
        {"ReduceL1", "ABS REDUCE_SUM", {7, 3}},
        {"ReduceL2", "MUL REDUCE_SUM RSQRT RECIPROCAL", {5, 2.236068f}},
        {"ReduceSumSquare", "MUL REDUCE_SUM", {25, 5}},
        {"ReduceLogSumExp", "REDUCE_MAX SUB EXP REDUCE_SUM LOG ADD", {3.0009115f, 2.3132617f}},
    };
    const int64_t xs[2] = {2, 2}, ys[2] = {2, 1}, ax = 1;
    const float xv[4] = {3, -4, 1, 2};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ir_graph *g = ir_graph_new("g", NULL);
        int x = lt_input(g, "x", TOSAC_DT_F32, 2, xs);
        int y = lt_tensor(g, "y", TOSAC_DT_F32, 2, ys);
        set_ints(g, lt_node(g, cases[i].op, &x, 1, &y, 1), "axes", &ax, 1);
        tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
        assert_string_equal(lt_ops(tg), cases[i].ops);
        tosac_tensor in = lt_host(TOSAC_DT_F32, 2, xs, xv), out;
        lt_run(tg, &in, 1, &out);
        lt_expect_f32(&out, cases[i].want, 2, 1e-6, 1e-6);
        tosac_tensor_free(&out);
        tosa_graph_free(tg);
        ir_graph_free(g);
    }
    /* ReduceLogSum of [[1,2],[3,4]]: log 3, log 7 */
    ir_graph *g = ir_graph_new("g", NULL);
    int x = lt_input(g, "x", TOSAC_DT_F32, 2, xs), y = lt_tensor(g, "y", TOSAC_DT_F32, 2, ys);
    set_ints(g, lt_node(g, "ReduceLogSum", &x, 1, &y, 1), "axes", &ax, 1);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
    assert_string_equal(lt_ops(tg), "REDUCE_SUM LOG");
    const float pv[4] = {1, 2, 3, 4}, want[2] = {1.0986123f, 1.9459101f};
    tosac_tensor in = lt_host(TOSAC_DT_F32, 2, xs, pv), out;
    lt_run(tg, &in, 1, &out);
    lt_expect_f32(&out, want, 2, 1e-6, 1e-6);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

/* What the spec or TOSA forbids stays on the CPU with a reason. */
static void test_rejections(void **state)
{
    (void)state;
    const int64_t xs[2] = {2, 3}, ys[2] = {2, 1};
    /* i64 sums: illegal in 1.0 (no int64 anywhere), legal with 1.1 EXT-INT64 */
    ir_graph *g = ir_graph_new("g", NULL);
    int x = lt_input(g, "x", TOSAC_DT_I64, 2, xs);
    int y = lt_tensor(g, "y", TOSAC_DT_I64, 2, ys);
    int k = lt_node(g, "ReduceSum", &x, 1, &y, 1);
    const int64_t ax = 1;
    set_ints(g, k, "axes", &ax, 1);
    assert_string_equal(lt_trial("TOSA-1.0+INT", g, 0), "REDUCE_SUM: no form for in_out_t=i64");
    assert_string_equal(lt_trial("TOSA-1.1+INT+int64", g, 0), "");
    ir_graph_free(g);

    /* ARGMAX writing int64 indices directly: a 1.1 EXT-INT64 form */
    g = ir_graph_new("g", NULL);
    x = lt_input(g, "x", TOSAC_DT_I8, 2, xs);
    y = lt_tensor(g, "y", TOSAC_DT_I64, 1, ys);
    k = lt_node(g, "ArgMax", &x, 1, &y, 1);
    set_int(g, k, "axis", 1);
    set_int(g, k, "keepdims", 0);
    assert_string_equal(lt_trial("TOSA-1.0+INT", g, 0), "ARGMAX: no form for in_t=i8 out_t=i64");
    assert_string_equal(lt_trial("TOSA-1.1+INT+int64", g, 0), "");
    ir_graph_free(g);

    /* quantized product */
    g = ir_graph_new("g", NULL);
    x = lt_input(g, "x", TOSAC_DT_I8, 2, xs);
    y = lt_tensor(g, "y", TOSAC_DT_I8, 2, ys);
    lt_quant(g, x, 0.1f, 0);
    lt_quant(g, y, 0.1f, 0);
    k = lt_node(g, "ReduceProd", &x, 1, &y, 1);
    set_ints(g, k, "axes", &ax, 1);
    assert_string_equal(lt_trial("TOSA-1.0+INT", g, 0),
                        "ReduceProd: quantized products have no TOSA form");
    ir_graph_free(g);

    /* last index among ties, and axes that are not constant */
    g = ir_graph_new("g", NULL);
    x = lt_input(g, "x", TOSAC_DT_F32, 2, xs);
    y = lt_tensor(g, "y", TOSAC_DT_I32, 2, ys);
    k = lt_node(g, "ArgMax", &x, 1, &y, 1);
    set_int(g, k, "select_last_index", 1);
    assert_string_equal(lt_trial("TOSA-1.0+FP", g, 0),
                        "ArgMax: select_last_index=1 (ARGMAX returns the first index)");
    const int64_t one = 1;
    int a = lt_input(g, "axes", TOSAC_DT_I64, 1, &one);
    int y2 = lt_tensor(g, "y2", TOSAC_DT_F32, 2, ys);
    int ins[2] = {x, a};
    lt_node(g, "ReduceSum", ins, 2, &y2, 1);
    assert_string_equal(lt_trial("TOSA-1.0+FP", g, 1),
                        "ReduceSum: axes must be a constant integer tensor of at most 8 values");
    ir_graph_free(g);
}

/* Bool ReduceMax / ReduceMin (opset 20) over axis 1 of [2,3]: REDUCE_ANY / REDUCE_ALL, legal
 * under both profiles (before, bool REDUCE_MAX was illegal and the node went to a CPU that
 * had no bool ReduceMax). Rows {1,0,0} and {0,0,0}: any = {1,0}, all = {0,0}; {1,1,1}: all 1. */
static void test_bool_max_min(void **state)
{
    (void)state;
    const char *ops[2] = {"ReduceMax", "ReduceMin"};
    const tosa_op want_op[2] = {TOSA_OP_REDUCE_ANY, TOSA_OP_REDUCE_ALL};
    const uint8_t xv[2][6] = {{1, 0, 0, 0, 0, 0}, {1, 1, 1, 0, 1, 0}};
    const uint8_t want[2][2] = {{1, 0}, {1, 0}};
    for (int k = 0; k < 2; k++) {
        ir_graph *g = ir_graph_new("g", NULL);
        const int64_t xs[2] = {2, 3}, ys[2] = {2, 1}, one = 1, ax = 1;
        int x = lt_input(g, "x", TOSAC_DT_BOOL, 2, xs);
        int a = lt_const(g, "axes", TOSAC_DT_I64, 1, &one, &ax);
        int y = lt_tensor(g, "y", TOSAC_DT_BOOL, 2, ys);
        int ins[2] = {x, a};
        lt_node(g, ops[k], ins, 2, &y, 1);
        const char *specs[2] = {"TOSA-1.0+FP", "TOSA-1.0+INT"};
        for (int s = 0; s < 2; s++) {
            tosa_graph *tg = lt_lower_ok(specs[s], g);
            assert_int_equal(lt_find_op(tg, want_op[k], 0)->attr.axis, 1);
            tosac_tensor in = lt_host(TOSAC_DT_BOOL, 2, xs, xv[k]), out;
            lt_run(tg, &in, 1, &out);
            lt_expect_bytes(&out, TOSAC_DT_BOOL, want[k], 2);
            tosac_tensor_free(&out);
            tosa_graph_free(tg);
        }
        ir_graph_free(g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_mean_two_axes),
        cmocka_unit_test(test_float_sum_axes_input),
        cmocka_unit_test(test_empty_axes),
        cmocka_unit_test(test_int8_mean),
        cmocka_unit_test(test_int16_sum),
        cmocka_unit_test(test_int8_max),
        cmocka_unit_test(test_argmax_argmin),
        cmocka_unit_test(test_float_norms),
        cmocka_unit_test(test_rejections),
        cmocka_unit_test(test_bool_max_min),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
