/* Lowering elementwise unary operators: the TOSA operator(s) per ONNX op, the Round and
 * Sign compositions, integer and quantized forms, rejections, and interpreter runs against
 * numpy float32 values (pasted literals). */
#include "lower_testutil.h"

static const int64_t s4[1] = {4}, s8[1] = {8};

static ir_graph *unary(const char *op, tosac_dtype dt, int n)
{
    ir_graph *g = ir_graph_new("g", NULL);
    int x = lt_input(g, "x", dt, 1, n == 4 ? s4 : s8);
    int y = lt_tensor(g, "y", dt, 1, n == 4 ? s4 : s8);
    lt_node(g, op, &x, 1, &y, 1);
    return g;
}

static void run1(const tosa_graph *tg, tosac_dtype dt, int n, const void *x, tosac_tensor *out)
{
    tosac_tensor in = lt_host(dt, 1, n == 4 ? s4 : s8, x);
    lt_run(tg, &in, 1, out);
}

/* x = [0.25, 1, 2.5, 4]; expected values from numpy float32 (math.erf for Erf). */
static void test_float_ops(void **state)
{
    (void)state;
    static const struct {
        const char *op, *ops;
        float want[4];
    } cases[] = {
        {"Abs", "ABS", {0.25f, 1, 2.5f, 4}},
        {"Neg", "NEGATE", {-0.25f, -1, -2.5f, -4}},
        {"Floor", "FLOOR", {0, 1, 2, 4}},
        {"Ceil", "CEIL", {1, 1, 3, 4}},
        {"Reciprocal", "RECIPROCAL", {4, 1, 0.400000006f, 0.25f}},
        {"Exp", "EXP", {1.28402555f, 2.71828198f, 12.1824932f, 54.5981483f}},
        {"Log", "LOG", {-1.38629436f, 0, 0.91629076f, 1.38629436f}},
        {"Sqrt", "RSQRT RECIPROCAL", {0.5f, 1, 1.58113885f, 2}},
        {"Sin", "SIN", {0.247403964f, 0.841471016f, 0.598472178f, -0.756802499f}},
        {"Cos", "COS", {0.968912423f, 0.540302277f, -0.801143587f, -0.653643608f}},
        {"Erf", "ERF", {0.276326388f, 0.842700779f, 0.999593019f, 1}},
    };
    const float x[4] = {0.25f, 1, 2.5f, 4};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ir_graph *g = unary(cases[i].op, TOSAC_DT_F32, 4);
        tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
        assert_string_equal(lt_ops(tg), cases[i].ops);
        tosac_tensor out;
        run1(tg, TOSAC_DT_F32, 4, x, &out);
        lt_expect_f32(&out, cases[i].want, 4, 1e-6, 1e-6);
        tosac_tensor_free(&out);
        tosa_graph_free(tg);
        ir_graph_free(g);
    }
    ir_graph *g = unary("Exp", TOSAC_DT_F32, 4);
    assert_string_equal(lt_trial("TOSA-1.0+INT", g, 0), "EXP: in_out_t=f32 needs PRO-FP");
    ir_graph_free(g);
}

/* Round half to even (numpy.round): CAST to int32 and back where |x| < 2^23. */
static void test_round(void **state)
{
    (void)state;
    ir_graph *g = unary("Round", TOSAC_DT_F32, 8);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
    assert_string_equal(lt_ops(tg), "CAST CAST ABS GREATER SELECT");
    assert_int_equal(lt_out_dtype(tg, lt_find_op(tg, TOSA_OP_CAST, 0)), TOSAC_DT_I32);
    const float x[8] = {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 2.4f, 1e10f, NAN};
    const float want[8] = {0, 2, 2, 0, -2, 2, 1e10f, NAN};
    tosac_tensor out;
    run1(tg, TOSAC_DT_F32, 8, x, &out);
    lt_expect_f32(&out, want, 8, 0, 0);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

static void test_sign(void **state)
{
    (void)state;
    ir_graph *g = unary("Sign", TOSAC_DT_F32, 4);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
    assert_string_equal(lt_ops(tg), "GREATER GREATER SELECT SELECT");
    const float x[4] = {-3, 0, 2, NAN}, want[4] = {-1, 0, 1, NAN};
    tosac_tensor out;
    run1(tg, TOSAC_DT_F32, 4, x, &out);
    lt_expect_f32(&out, want, 4, 0, 0);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);

    g = unary("Sign", TOSAC_DT_I32, 4);
    tg = lt_lower_ok("TOSA-1.0+INT", g);
    const int32_t xi[4] = {-30, 0, 7, INT32_MIN}, wi[4] = {-1, 0, 1, -1};
    run1(tg, TOSAC_DT_I32, 4, xi, &out);
    lt_expect_bytes(&out, TOSAC_DT_I32, wi, 4);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

static void test_integer_abs_neg(void **state)
{
    (void)state;
    const int32_t x[4] = {-5, 0, 7, -2147483647};
    const int32_t abs_want[4] = {5, 0, 7, 2147483647}, neg_want[4] = {5, 0, -7, 2147483647};
    for (int k = 0; k < 2; k++) {
        ir_graph *g = unary(k ? "Neg" : "Abs", TOSAC_DT_I32, 4);
        tosa_graph *tg = lt_lower_ok("TOSA-1.0+INT", g);
        assert_string_equal(lt_ops(tg), k ? "NEGATE" : "ABS");
        tosac_tensor out;
        run1(tg, TOSAC_DT_I32, 4, x, &out);
        lt_expect_bytes(&out, TOSAC_DT_I32, k ? neg_want : abs_want, 4);
        tosac_tensor_free(&out);
        tosa_graph_free(tg);
        ir_graph_free(g);
    }
    ir_graph *g = unary("Floor", TOSAC_DT_I32, 4);
    assert_string_equal(lt_trial("TOSA-1.0+INT", g, 0), "Floor: i32 input (float only)");
    ir_graph_free(g);
}

/* Quantized Neg with equal scales: NEGATE with both zero points, q_out = -(q - 3) - 2.
 * Reals: x (0.1, zp 3) q [3,10,-20,0] = [0, 0.7, -2.3, -0.3]; -x at (0.1, zp -2) is
 * q [-2, -9, 21, 1]. Other quantized unary ops are TABLE lookups (lower_table_unary). */
static void test_quantized(void **state)
{
    (void)state;
    ir_graph *g = unary("Neg", TOSAC_DT_I8, 4);
    lt_quant(g, g->inputs[0], 0.1f, 3);
    lt_quant(g, g->outputs[0], 0.1f, -2);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+INT", g);
    assert_string_equal(lt_ops(tg), "NEGATE");
    const int8_t x[4] = {3, 10, -20, 0}, want[4] = {-2, -9, 21, 1};
    tosac_tensor out;
    run1(tg, TOSAC_DT_I8, 4, x, &out);
    lt_expect_bytes(&out, TOSAC_DT_I8, want, 4);
    const float ref[4] = {0, -0.7f, 2.3f, 0.3f};
    lt_expect_dequant(&out, 0.1f, -2, ref, 4);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);

    g = unary("Exp", TOSAC_DT_I8, 4);
    lt_quant(g, g->inputs[0], 0.1f, 0);
    lt_quant(g, g->outputs[0], 0.1f, 0);
    tg = lt_lower_ok("TOSA-1.0+INT", g);
    assert_string_equal(lt_ops(tg), "TABLE");
    /* exp of [0, 1, -2, 0.5] / 0.1 = [10, 27.18, 1.35, 16.49] */
    const int8_t ex[4] = {0, 10, -20, 5}, ewant[4] = {10, 27, 1, 16};
    run1(tg, TOSAC_DT_I8, 4, ex, &out);
    lt_expect_bytes(&out, TOSAC_DT_I8, ewant, 4);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_ops),
        cmocka_unit_test(test_round),
        cmocka_unit_test(test_sign),
        cmocka_unit_test(test_integer_abs_neg),
        cmocka_unit_test(test_quantized),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
