/* Lowering comparisons, logic and Where: operand order (Less = GREATER swapped), quantized
 * operands rescaled to a common int32 scale, boolean Equal, SELECT broadcasting, legality,
 * and interpreter runs against hand-computed truth tables. */
#include "lower_testutil.h"

static const int64_t s4[1] = {4};

static ir_graph *binary(const char *op, tosac_dtype dt, tosac_dtype out_dt)
{
    ir_graph *g = ir_graph_new("g", NULL);
    int a = lt_input(g, "a", dt, 1, s4), b = lt_input(g, "b", dt, 1, s4);
    int y = lt_tensor(g, "y", out_dt, 1, s4);
    int ins[2] = {a, b};
    lt_node(g, op, ins, 2, &y, 1);
    return g;
}

static void run2(const tosa_graph *tg, tosac_dtype dt, const void *a, const void *b,
                 tosac_dtype out_dt, const void *want)
{
    tosac_tensor in[2] = {lt_host(dt, 1, s4, a), lt_host(dt, 1, s4, b)}, out;
    lt_run(tg, in, 2, &out);
    lt_expect_bytes(&out, out_dt, want, 4);
    tosac_tensor_free(&out);
}

/* a = [1,5,3,2], b = [3,5,1,2] under each comparison. */
static void test_float_compares(void **state)
{
    (void)state;
    static const struct {
        const char *op, *ops;
        uint8_t want[4];
        bool swapped;
    } cases[] = {
        {"Equal", "EQUAL", {0, 1, 0, 1}, false},
        {"Greater", "GREATER", {0, 0, 1, 0}, false},
        {"GreaterOrEqual", "GREATER_EQUAL", {0, 1, 1, 1}, false},
        {"Less", "GREATER", {1, 0, 0, 0}, true},
        {"LessOrEqual", "GREATER_EQUAL", {1, 1, 0, 1}, true},
    };
    const float a[4] = {1, 5, 3, 2}, b[4] = {3, 5, 1, 2};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ir_graph *g = binary(cases[i].op, TOSAC_DT_F32, TOSAC_DT_BOOL);
        tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
        assert_string_equal(lt_ops(tg), cases[i].ops);
        const tosa_block *blk = tosa_graph_main_block(tg);
        const tosa_operator *o = &blk->ops[blk->n_ops - 1];
        assert_string_equal(blk->tensors[o->inputs[0]].name, cases[i].swapped ? "b" : "a");
        run2(tg, TOSAC_DT_F32, a, b, TOSAC_DT_BOOL, cases[i].want);
        tosa_graph_free(tg);
        ir_graph_free(g);
    }
    ir_graph *g = binary("Greater", TOSAC_DT_F32, TOSAC_DT_BOOL);
    assert_string_equal(lt_trial("TOSA-1.0+INT", g, 0), "GREATER: in_t=f32 out_t=bool needs PRO-FP");
    ir_graph_free(g);
}

/* Quantized: a (0.5, zp 0) q [2,4,-1,10] = [1, 2, -0.5, 5]; b (0.25, zp 4) q [7,12,2,30] =
 * [0.75, 2, -0.5, 6.5]. Both RESCALEd to int32 at the common scale 0.5 * 2^-22. */
static void test_int8_compares(void **state)
{
    (void)state;
    const int8_t a[4] = {2, 4, -1, 10}, b[4] = {7, 12, 2, 30};
    const uint8_t gt[4] = {1, 0, 0, 0}, eq[4] = {0, 1, 1, 0};
    for (int k = 0; k < 2; k++) {
        ir_graph *g = binary(k ? "Equal" : "Greater", TOSAC_DT_I8, TOSAC_DT_BOOL);
        lt_quant(g, g->inputs[0], 0.5f, 0);
        lt_quant(g, g->inputs[1], 0.25f, 4);
        tosa_graph *tg = lt_lower_ok("TOSA-1.0+INT", g);
        assert_string_equal(lt_ops(tg), k ? "RESCALE RESCALE EQUAL" : "RESCALE RESCALE GREATER");
        assert_int_equal(lt_out_dtype(tg, lt_find_op(tg, TOSA_OP_RESCALE, 1)), TOSAC_DT_I32);
        run2(tg, TOSAC_DT_I8, a, b, TOSAC_DT_BOOL, k ? eq : gt);
        tosa_graph_free(tg);
        ir_graph_free(g);
    }
    /* plain int8 (no quantization): widened by CAST */
    ir_graph *g = binary("Less", TOSAC_DT_I8, TOSAC_DT_BOOL);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+INT", g);
    assert_string_equal(lt_ops(tg), "CAST CAST GREATER");
    const uint8_t lt[4] = {1, 1, 1, 1};
    run2(tg, TOSAC_DT_I8, a, b, TOSAC_DT_BOOL, lt);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

static void test_logic(void **state)
{
    (void)state;
    const uint8_t a[4] = {0, 0, 1, 1}, b[4] = {0, 1, 0, 1};
    static const struct {
        const char *op, *ops;
        uint8_t want[4];
    } cases[] = {
        {"And", "LOGICAL_AND", {0, 0, 0, 1}},
        {"Or", "LOGICAL_OR", {0, 1, 1, 1}},
        {"Xor", "LOGICAL_XOR", {0, 1, 1, 0}},
        {"Equal", "LOGICAL_XOR LOGICAL_NOT", {1, 0, 0, 1}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ir_graph *g = binary(cases[i].op, TOSAC_DT_BOOL, TOSAC_DT_BOOL);
        tosa_graph *tg = lt_lower_ok("TOSA-1.0+INT", g);
        assert_string_equal(lt_ops(tg), cases[i].ops);
        run2(tg, TOSAC_DT_BOOL, a, b, TOSAC_DT_BOOL, cases[i].want);
        tosa_graph_free(tg);
        ir_graph_free(g);
    }
    ir_graph *g = ir_graph_new("g", NULL);
    int x = lt_input(g, "x", TOSAC_DT_BOOL, 1, s4), y = lt_tensor(g, "y", TOSAC_DT_BOOL, 1, s4);
    lt_node(g, "Not", &x, 1, &y, 1);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
    assert_string_equal(lt_ops(tg), "LOGICAL_NOT");
    tosac_tensor in = lt_host(TOSAC_DT_BOOL, 1, s4, b), out;
    lt_run(tg, &in, 1, &out);
    const uint8_t nb[4] = {1, 0, 1, 0};
    lt_expect_bytes(&out, TOSAC_DT_BOOL, nb, 4);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);

    g = binary("Greater", TOSAC_DT_BOOL, TOSAC_DT_BOOL);
    assert_string_equal(lt_trial("TOSA-1.0+INT", g, 0), "Greater: ordering booleans");
    ir_graph_free(g);
}

/* Where(cond [2,2], x [2,2], y scalar): y reshaped to [1,1], one SELECT. */
static void test_where_float(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t s22[2] = {2, 2};
    int cnd = lt_input(g, "c", TOSAC_DT_BOOL, 2, s22), x = lt_input(g, "x", TOSAC_DT_F32, 2, s22);
    int yv = lt_input(g, "y", TOSAC_DT_F32, 0, NULL), z = lt_tensor(g, "z", TOSAC_DT_F32, 2, s22);
    int ins[3] = {cnd, x, yv};
    lt_node(g, "Where", ins, 3, &z, 1);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
    assert_string_equal(lt_ops(tg), "RESHAPE SELECT");
    const uint8_t cv[4] = {1, 0, 0, 1};
    const float xv[4] = {1, 2, 3, 4}, y0 = -9, want[4] = {1, -9, -9, 4};
    tosac_tensor in[3] = {lt_host(TOSAC_DT_BOOL, 2, s22, cv), lt_host(TOSAC_DT_F32, 2, s22, xv),
                          lt_host(TOSAC_DT_F32, 0, NULL, &y0)};
    tosac_tensor out;
    lt_run(tg, in, 3, &out);
    lt_expect_f32(&out, want, 4, 0, 0);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

/* Quantized Where: x shares the output's quantization, y (0.5, zp 2) is rescaled to it
 * (0.25, zp -1): y q 6 = 2.0 -> 2.0/0.25 - 1 = 7; y q 0 = -1.0 -> -5. */
static void test_where_int8(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    int cnd = lt_input(g, "c", TOSAC_DT_BOOL, 1, s4), x = lt_input(g, "x", TOSAC_DT_I8, 1, s4);
    int yv = lt_input(g, "y", TOSAC_DT_I8, 1, s4), z = lt_tensor(g, "z", TOSAC_DT_I8, 1, s4);
    lt_quant(g, x, 0.25f, -1);
    lt_quant(g, yv, 0.5f, 2);
    lt_quant(g, z, 0.25f, -1);
    int ins[3] = {cnd, x, yv};
    lt_node(g, "Where", ins, 3, &z, 1);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+INT", g);
    assert_string_equal(lt_ops(tg), "RESCALE SELECT");
    assert_int_equal(lt_out_dtype(tg, lt_find_op(tg, TOSA_OP_SELECT, 0)), TOSAC_DT_I8);
    const uint8_t cv[4] = {1, 0, 1, 0};
    const int8_t xv[4] = {10, 10, -5, -5}, yq[4] = {6, 6, 6, 0}, want[4] = {10, 7, -5, -5};
    tosac_tensor in[3] = {lt_host(TOSAC_DT_BOOL, 1, s4, cv), lt_host(TOSAC_DT_I8, 1, s4, xv),
                          lt_host(TOSAC_DT_I8, 1, s4, yq)};
    tosac_tensor out;
    lt_run(tg, in, 3, &out);
    lt_expect_bytes(&out, TOSAC_DT_I8, want, 4);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_compares),
        cmocka_unit_test(test_int8_compares),
        cmocka_unit_test(test_logic),
        cmocka_unit_test(test_where_float),
        cmocka_unit_test(test_where_int8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
