/* Lowering Add/Sub/Mul: float and quantized forms, the operators emitted, RESCALE parameters,
 * and the trial lowering the partitioner relies on. */
#include "backend_testutil.h"

#include <string.h>

#include "lower/lower.h"
#include "tosac/ir.h"

static const int64_t shp[4] = {1, 2, 3, 4};

static void quant(ir_graph *g, int t, float scale, int64_t zp, tosac_dtype dt)
{
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(ir_tensor_set_quant(g, t, &scale, &zp, 1, -1, dt, &err), TOSAC_OK);
}

/* a(i8, 0.125, zp -3) op b(i8, 0.25, zp 5) -> y(i8, 0.3, zp 7) */
static ir_graph *quantized_binary(const char *op, tosac_dtype dt)
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_graph *g = ir_graph_new("g", NULL);
    int a = ir_graph_add_input(g, "a", dt, 4, shp, &err);
    int b = ir_graph_add_input(g, "b", dt, 4, shp, &err);
    int y = ir_graph_add_tensor(g, "y", dt, 4, shp, &err);
    quant(g, a, 0.125f, -3, dt);
    quant(g, b, 0.25f, 5, dt);
    quant(g, y, 0.3f, 7, dt);
    int ins[2] = {a, b};
    assert_true(ir_graph_add_node(g, op, NULL, "n", ins, 2, &y, 1, &err) >= 0);
    assert_int_equal(ir_graph_mark_output(g, y, &err), TOSAC_OK);
    return g;
}

static tosa_graph *lower_all(const tosa_spec *sp, const ir_graph *g, tosac_error *err)
{
    int node = 0, ins[2] = {g->inputs[0], g->inputs[1]}, out = g->outputs[0];
    tosa_graph *tg = NULL;
    tosac_error_clear(err);
    lower_subgraph(sp, g, &node, 1, ins, 2, &out, 1, &tg, err);
    return tg;
}

/* The non-CONST operators of a block, in order. */
static int ops_of(const tosa_block *b, tosa_op *out, int max)
{
    int n = 0;
    for (int i = 0; i < b->n_ops && n < max; i++)
        if (b->ops[i].op != TOSA_OP_CONST && b->ops[i].op != TOSA_OP_CONST_SHAPE)
            out[n++] = b->ops[i].op;
    return n;
}

static int32_t i32_at(const tosa_block *b, int t) { return *(const int32_t *)b->tensors[t].data; }
static int8_t i8_at(const tosa_block *b, int t) { return *(const int8_t *)b->tensors[t].data; }

static void test_quantized_add(void **state)
{
    (void)state;
    tosa_spec sp = bt_spec("TOSA-1.0+INT");
    ir_graph *g = quantized_binary("Add", TOSAC_DT_I8);
    tosac_error err;
    tosa_graph *tg = lower_all(&sp, g, &err);
    assert_non_null(tg);
    const tosa_block *b = tosa_graph_main_block(tg);
    tosa_op ops[8];
    assert_int_equal(ops_of(b, ops, 8), 4);
    assert_int_equal(ops[0], TOSA_OP_RESCALE);
    assert_int_equal(ops[1], TOSA_OP_RESCALE);
    assert_int_equal(ops[2], TOSA_OP_ADD);
    assert_int_equal(ops[3], TOSA_OP_RESCALE);
    /* block I/O keep the IR names and types */
    assert_int_equal(b->n_inputs, 2);
    assert_string_equal(b->tensors[b->inputs[0]].name, "a");
    assert_string_equal(b->tensors[b->outputs[0]].name, "y");
    assert_int_equal(b->tensors[b->outputs[0]].dtype, TOSAC_DT_I8);
    /* twice the max input scale = 0.5; a: 0.125/0.5 * 2^20 = 2^18 -> (2^30, 12), zp -3;
     * b: 2^19 -> (2^30, 11), zp 5; out: 0.5 / (2^20 * 0.3f) -> (1789569636, 50), zp 7 */
    int seen = 0;
    for (int i = 0; i < b->n_ops; i++) {
        const tosa_operator *o = &b->ops[i];
        if (o->op != TOSA_OP_RESCALE)
            continue;
        assert_true(o->attr.scale32);
        assert_int_equal(o->attr.rounding_mode, TOSA_ROUND_SINGLE);
        const int32_t mult[3] = {1073741824, 1073741824, 1789569636};
        const int8_t shift[3] = {12, 11, 50}, izp[3] = {-3, 5, 0};
        assert_int_equal(i32_at(b, o->inputs[1]), mult[seen]);
        assert_int_equal(i8_at(b, o->inputs[2]), shift[seen]);
        if (seen < 2) {
            assert_int_equal(i8_at(b, o->inputs[3]), izp[seen]);
            assert_int_equal(b->tensors[o->outputs[0]].dtype, TOSAC_DT_I32);
        } else {
            assert_int_equal(i32_at(b, o->inputs[3]), 0);
            assert_int_equal(i8_at(b, o->inputs[4]), 7);
            assert_int_equal(o->outputs[0], b->outputs[0]);
        }
        seen++;
    }
    assert_int_equal(seen, 3);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

static void test_quantized_mul_int16(void **state)
{
    (void)state;
    ir_graph *g = quantized_binary("Mul", TOSAC_DT_I16);
    tosac_error err;
    tosa_spec sp = bt_spec("TOSA-1.0+INT+int16");
    tosa_graph *tg = lower_all(&sp, g, &err);
    assert_non_null(tg);
    const tosa_block *b = tosa_graph_main_block(tg);
    tosa_op ops[8];
    assert_int_equal(ops_of(b, ops, 8), 4);
    assert_int_equal(ops[2], TOSA_OP_MUL);
    /* the final RESCALE: 0.125 * 0.25 / 0.3f = 0.104166...: frexp 0.8333 * 2^-3 */
    const tosa_operator *last = NULL;
    for (int i = 0; i < b->n_ops; i++)
        if (b->ops[i].op == TOSA_OP_RESCALE)
            last = &b->ops[i];
    assert_int_equal(i32_at(b, last->inputs[1]), 1789569636);
    assert_int_equal(i8_at(b, last->inputs[2]), 34);
    assert_int_equal(*(const int16_t *)b->tensors[last->inputs[4]].data, 7);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

/* Float Add with ONNX broadcasting: the rank-1 operand is reshaped to rank 2. */
static void test_float_broadcast(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t s2[2] = {2, 3}, s1[1] = {3};
    int a = ir_graph_add_input(g, "a", TOSAC_DT_F32, 2, s2, &err);
    int b = ir_graph_add_input(g, "b", TOSAC_DT_F32, 1, s1, &err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 2, s2, &err);
    int ins[2] = {a, b};
    assert_true(ir_graph_add_node(g, "Sub", NULL, "n", ins, 2, &y, 1, &err) >= 0);
    ir_graph_mark_output(g, y, &err);
    tosa_spec fp = bt_spec("TOSA-1.0+FP"), i = bt_spec("TOSA-1.0+INT");
    tosa_graph *tg = lower_all(&fp, g, &err);
    assert_non_null(tg);
    const tosa_block *blk = tosa_graph_main_block(tg);
    tosa_op ops[4];
    assert_int_equal(ops_of(blk, ops, 4), 2);
    assert_int_equal(ops[0], TOSA_OP_RESHAPE);
    assert_int_equal(ops[1], TOSA_OP_SUB);
    const tosa_operator *sub = &blk->ops[blk->n_ops - 1];
    assert_int_equal(blk->tensors[sub->inputs[1]].rank, 2);
    assert_int_equal(blk->tensors[sub->inputs[1]].shape[0], 1);
    assert_int_equal(blk->tensors[sub->inputs[1]].shape[1], 3);
    tosa_graph_free(tg);

    char why[256];
    assert_true(lower_trial_node(&fp, g, 0, why, sizeof why));
    assert_false(lower_trial_node(&i, g, 0, why, sizeof why));
    assert_string_equal(why, "RESHAPE: in_out_t=f32 needs PRO-FP"); /* the first illegal op */
    ir_graph_free(g);
}

static void test_no_rule(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    ir_graph *g = ir_graph_new("g", NULL);
    int a = ir_graph_add_input(g, "a", TOSAC_DT_F32, 4, shp, &err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 4, shp, &err);
    assert_true(ir_graph_add_node(g, "Frobnicate", "com.example", "n", &a, 1, &y, 1, &err) >= 0);
    tosa_spec fp = bt_spec("TOSA-1.0+FP");
    char why[256];
    assert_false(lower_trial_node(&fp, g, 0, why, sizeof why));
    assert_string_equal(why, "no TOSA lowering for com.example.Frobnicate");
    assert_null(lower_find_rule("com.example", "Add"));
    assert_non_null(lower_find_rule("ai.onnx", "Add"));
    ir_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantized_add),
        cmocka_unit_test(test_quantized_mul_int16),
        cmocka_unit_test(test_float_broadcast),
        cmocka_unit_test(test_no_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
