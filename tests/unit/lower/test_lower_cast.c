/* Lowering Cast, Identity and Dropout: truncating float->int, float<->bool compositions,
 * wrapping int narrowing, int64 legality per spec, quantized pass-through, the Dropout
 * mask, and interpreter runs against hand-computed values. */
#include "lower_testutil.h"

static const int64_t s8[1] = {8}, s4[1] = {4}, s2[1] = {2};

static ir_graph *cast(tosac_dtype from, tosac_dtype to, const int64_t *shape)
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_graph *g = ir_graph_new("g", NULL);
    int x = lt_input(g, "x", from, 1, shape), y = lt_tensor(g, "y", to, 1, shape);
    int k = lt_node(g, "Cast", &x, 1, &y, 1);
    assert_int_equal(ir_node_set_int(g, k, "to", 6, &err), TOSAC_OK); /* informative only */
    return g;
}

static void run_expect(const tosa_graph *tg, tosac_dtype from, const int64_t *shape,
                       const void *x, tosac_dtype to, const void *want)
{
    tosac_tensor in = lt_host(from, 1, shape, x), out;
    lt_run(tg, &in, 1, &out);
    lt_expect_bytes(&out, to, want, (int)shape[0]);
    tosac_tensor_free(&out);
}

/* ONNX truncates toward zero; TOSA's CAST alone would round half to even (2.5 -> 2 but
 * 3.5 -> 4, 2.7 -> 3). */
static void test_float_to_int(void **state)
{
    (void)state;
    ir_graph *g = cast(TOSAC_DT_F32, TOSAC_DT_I32, s8);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
    assert_string_equal(lt_ops(tg), "GREATER CEIL FLOOR SELECT CAST");
    const float x[8] = {2.7f, -2.7f, 0.5f, -0.5f, 2.5f, -3.5f, 100.9f, 3.5f};
    const int32_t want[8] = {2, -2, 0, 0, 2, -3, 100, 3};
    run_expect(tg, TOSAC_DT_F32, s8, x, TOSAC_DT_I32, want);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

static void test_bool_conversions(void **state)
{
    (void)state;
    ir_graph *g = cast(TOSAC_DT_F32, TOSAC_DT_BOOL, s4);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
    assert_string_equal(lt_ops(tg), "EQUAL LOGICAL_NOT");
    const float x[4] = {0, -0.0f, 2, NAN};
    const uint8_t want[4] = {0, 0, 1, 1};
    run_expect(tg, TOSAC_DT_F32, s4, x, TOSAC_DT_BOOL, want);
    tosa_graph_free(tg);
    ir_graph_free(g);

    g = cast(TOSAC_DT_BOOL, TOSAC_DT_F32, s2);
    tg = lt_lower_ok("TOSA-1.0+FP", g);
    assert_string_equal(lt_ops(tg), "SELECT");
    const uint8_t b[2] = {1, 0};
    const float fw[2] = {1, 0};
    run_expect(tg, TOSAC_DT_BOOL, s2, b, TOSAC_DT_F32, fw);
    tosa_graph_free(tg);
    ir_graph_free(g);

    g = cast(TOSAC_DT_I32, TOSAC_DT_BOOL, s2);
    tg = lt_lower_ok("TOSA-1.0+INT", g);
    assert_string_equal(lt_ops(tg), "CAST");
    const int32_t iv[2] = {0, -7};
    const uint8_t bw[2] = {0, 1};
    run_expect(tg, TOSAC_DT_I32, s2, iv, TOSAC_DT_BOOL, bw);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

/* Narrowing keeps the low bits (ONNX/C semantics): 300 -> 44, -129 -> 127. f32 -> f16
 * rounds to nearest: 1.5 = 0x3E00, -2 = 0xC000. */
static void test_int_narrowing_and_f16(void **state)
{
    (void)state;
    ir_graph *g = cast(TOSAC_DT_I32, TOSAC_DT_I8, s4);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+INT", g);
    assert_string_equal(lt_ops(tg), "CAST");
    const int32_t x[4] = {300, -129, 5, 127};
    const int8_t want[4] = {44, 127, 5, 127};
    run_expect(tg, TOSAC_DT_I32, s4, x, TOSAC_DT_I8, want);
    tosa_graph_free(tg);
    ir_graph_free(g);

    g = cast(TOSAC_DT_F32, TOSAC_DT_F16, s2);
    tg = lt_lower_ok("TOSA-1.0+FP", g);
    assert_string_equal(lt_ops(tg), "CAST");
    const float f[2] = {1.5f, -2};
    const uint16_t h[2] = {0x3E00, 0xC000};
    run_expect(tg, TOSAC_DT_F32, s2, f, TOSAC_DT_F16, h);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

/* int64 exists only with 1.1 EXT-INT64; the rule emits the natural CAST either way. */
static void test_int64(void **state)
{
    (void)state;
    ir_graph *g = cast(TOSAC_DT_I64, TOSAC_DT_I32, s2);
    assert_string_equal(lt_trial("TOSA-1.0+INT", g, 0), "CAST: no form for in_t=i64 out_t=i32");
    assert_string_equal(lt_trial("TOSA-1.1+INT+int64", g, 0), "");
    ir_graph_free(g);
}

/* Identity: IDENTITY, or a RESCALE when the quantization changes (q 10 at (0.5, 0) = 5.0 ->
 * at (0.25, 1): 21). Cast refuses quantized tensors. */
static void test_identity(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    int x = lt_input(g, "x", TOSAC_DT_I8, 1, s2), y = lt_tensor(g, "y", TOSAC_DT_I8, 1, s2);
    lt_quant(g, x, 0.5f, 0);
    lt_quant(g, y, 0.25f, 1);
    lt_node(g, "Identity", &x, 1, &y, 1);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+INT", g);
    assert_string_equal(lt_ops(tg), "RESCALE");
    const int8_t q[2] = {10, -3}, want[2] = {21, -5};
    run_expect(tg, TOSAC_DT_I8, s2, q, TOSAC_DT_I8, want);
    tosa_graph_free(tg);
    ir_graph_free(g);

    g = cast(TOSAC_DT_I8, TOSAC_DT_I32, s2);
    lt_quant(g, g->inputs[0], 0.5f, 0);
    assert_string_equal(lt_trial("TOSA-1.0+INT", g, 0), "Cast: on quantized tensors");
    ir_graph_free(g);
}

/* Dropout in inference: IDENTITY for the data, an all-true CONST for the mask. */
static void test_dropout(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    int x = lt_input(g, "x", TOSAC_DT_F32, 1, s2), y = lt_tensor(g, "y", TOSAC_DT_F32, 1, s2);
    int m = lt_tensor(g, "mask", TOSAC_DT_BOOL, 1, s2);
    int outs[2] = {y, m};
    lt_node(g, "Dropout", &x, 1, outs, 2);
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(ir_graph_mark_output(g, m, &err), TOSAC_OK);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
    assert_string_equal(lt_ops(tg), "IDENTITY");
    const float xv[2] = {0.5f, -1};
    tosac_tensor in = lt_host(TOSAC_DT_F32, 1, s2, xv), out[2];
    assert_int_equal(tosa_interp_run(tg, &in, 1, out, 2, &err), TOSAC_OK);
    lt_expect_f32(&out[0], xv, 2, 0, 0);
    const uint8_t ones[2] = {1, 1};
    lt_expect_bytes(&out[1], TOSAC_DT_BOOL, ones, 2);
    tosac_tensor_free(&out[0]);
    tosac_tensor_free(&out[1]);
    tosa_graph_free(tg);
    ir_graph_free(g);

    g = ir_graph_new("g", NULL);
    const int64_t one = 1;
    const uint8_t yes = 1;
    const float ratio = 0.5f;
    x = lt_input(g, "x", TOSAC_DT_F32, 1, s2);
    y = lt_tensor(g, "y", TOSAC_DT_F32, 1, s2);
    int ins[3] = {x, lt_const(g, "ratio", TOSAC_DT_F32, 0, NULL, &ratio),
                  lt_const(g, "training", TOSAC_DT_BOOL, 1, &one, &yes)};
    lt_node(g, "Dropout", ins, 3, &y, 1);
    assert_string_equal(lt_trial("TOSA-1.0+FP", g, 0),
                        "Dropout: training_mode is not a constant false");
    ir_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_to_int),
        cmocka_unit_test(test_bool_conversions),
        cmocka_unit_test(test_int_narrowing_and_f16),
        cmocka_unit_test(test_int64),
        cmocka_unit_test(test_identity),
        cmocka_unit_test(test_dropout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
