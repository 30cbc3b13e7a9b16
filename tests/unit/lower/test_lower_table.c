/* The TABLE builders: int8 entries, int16 entries (midpoint correction, the shift that keeps
 * neighbouring differences in int16) and the TABLE (+ RESCALE) that lower_table_unary emits.
 * Expected values are derived by hand in the comments. */
#include "backend_testutil.h"

#include <math.h>
#include <string.h>

#include "lower/lower.h"
#include "lower/lower_table.h"
#include "lower_act_testutil.h"

static double half(int64_t v, const void *a) { (void)a; return (double)v / 2.0; }
static double quarter(int64_t v, const void *a) { (void)a; return (double)v / 4.0; }
static double step(int64_t v, const void *a) { (void)a; return v < 0 ? -40000.0 : 40000.0; }
/* 100 |v - 64| / 128: linear on every segment except [0, 128], whose middle is the kink */
static double kink(int64_t v, const void *a) { (void)a; return 100.0 * fabs((double)v - 64) / 128.0; }

static void test_values_i8(void **s)
{
    (void)s;
    lower_table_spec sp = {half, NULL, 3, -128, 100};
    int8_t t[256];
    lower_table_values_i8(&sp, t);
    assert_int_equal(t[0], -64 + 3);   /* v = -128 */
    assert_int_equal(t[129], 0 + 3);   /* v = 1: 0.5 rounds to even 0 */
    assert_int_equal(t[131], 2 + 3);   /* v = 3: 1.5 rounds to 2 */
    assert_int_equal(t[127], 0 + 3);   /* v = -1: -0.5 rounds to -0 */
    assert_int_equal(t[255], 64 + 3);  /* v = 127: 63.5 -> 64 */
    sp.hi = 50;
    lower_table_values_i8(&sp, t);
    assert_int_equal(t[255], 50);      /* clamped */
}

static void test_values_i16(void **s)
{
    (void)s;
    int16_t t[513];
    int shift = -1;
    /* linear: no midpoint correction; entry j at v = -32768 + 128 j */
    lower_table_spec lin = {quarter, NULL, 0, -32768, 32767};
    lower_table_values_i16(&lin, t, &shift);
    assert_int_equal(shift, 0);
    assert_int_equal(t[0], -8192);
    assert_int_equal(t[256], 0);
    assert_int_equal(t[300], -8192 + 32 * 300);
    assert_int_equal(t[512], 8192);    /* v = 32768, one past the int16 range */
    /* kink mid-segment 256: interpolating 50..50 misses the 0 at v = 64 by 50, so entry 256
     * moves down by 25; its neighbours sit on straight segments */
    lower_table_spec k = {kink, NULL, 0, -32768, 32767};
    lower_table_values_i16(&k, t, &shift);
    assert_int_equal(t[255], 150);     /* 100 * 192 / 128 */
    assert_int_equal(t[256], 25);
    assert_int_equal(t[257], 50);
    /* a jump from -32768 to 32767 (after clamping) is 65535 between two entries: halving
     * leaves 32768, quartering fits: shift 2, clamped entries rounded -8192 and 8192.
     * Entries 255 and 256 straddle the range, so they keep their unclamped values: 256 is
     * 40000 / 4; segment 255 runs -40000 -> 40000 but is -40000 at its middle, so entry 255
     * moves down by half that 40000 error: -60000 / 4 */
    lower_table_spec st = {step, NULL, 0, -32768, 32767};
    lower_table_values_i16(&st, t, &shift);
    assert_int_equal(shift, 2);
    assert_int_equal(t[254], -8192);
    assert_int_equal(t[255], -15000);
    assert_int_equal(t[256], 10000);
    assert_int_equal(t[257], 8192);
}

static ir_graph *sigmoid_graph(tosac_dtype dt, float sx, float sy, int64_t zy)
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t shp[2] = {2, 3};
    int x = ir_graph_add_input(g, "x", dt, 2, shp, &err);
    int y = ir_graph_add_tensor(g, "y", dt, 2, shp, &err);
    int64_t zx = 0;
    assert_int_equal(ir_tensor_set_quant(g, x, &sx, &zx, 1, -1, dt, &err), TOSAC_OK);
    assert_int_equal(ir_tensor_set_quant(g, y, &sy, &zy, 1, -1, dt, &err), TOSAC_OK);
    assert_true(ir_graph_add_node(g, "Sigmoid", NULL, "n", &x, 1, &y, 1, &err) >= 0);
    assert_int_equal(ir_graph_mark_output(g, y, &err), TOSAC_OK);
    return g;
}

static tosa_graph *lower1(const char *spec, const ir_graph *g)
{
    tosa_spec sp = bt_spec(spec);
    tosac_error err;
    tosac_error_clear(&err);
    int node = 0;
    tosa_graph *tg = NULL;
    lower_subgraph(&sp, g, &node, 1, g->inputs, 1, g->outputs, 1, &tg, &err);
    assert_non_null(tg);
    return tg;
}

/* int8 Sigmoid, s_in 1/16, s_out 1/256, zp_out -128: entry i is for v = i - 128:
 * sigmoid(v/16) * 256 - 128 rounded and clamped */
static void test_unary_i8(void **s)
{
    (void)s;
    ir_graph *g = sigmoid_graph(TOSAC_DT_I8, 1.0f / 16, 1.0f / 256, -128);
    tosa_graph *tg = lower1("TOSA-1.0+INT", g);
    const tosa_block *b = tosa_graph_main_block(tg);
    const tosa_operator *o = &b->ops[b->n_ops - 1];
    assert_int_equal(o->op, TOSA_OP_TABLE);
    assert_int_equal(b->tensors[o->outputs[0]].dtype, TOSAC_DT_I8);
    const tosa_tensor *tab = &b->tensors[o->inputs[1]];
    assert_int_equal(tab->dtype, TOSAC_DT_I8);
    assert_int_equal(tab->shape[0], 256);
    const int8_t *t = tab->data;
    assert_int_equal(t[0], -128);  /* sigmoid(-8) * 256 = 0.09 */
    assert_int_equal(t[128], 0);   /* 0.5 * 256 - 128 */
    assert_int_equal(t[144], 59);  /* v = 16: sigmoid(1) * 256 = 187.15 */
    assert_int_equal(t[255], 127); /* 255.9 - 128 rounds to 128: clamped */
    tosa_graph_free(tg);
    ir_graph_free(g);
}

/* int16: TABLE (i32, 7 fraction bits) then RESCALE by 2^-7 = 2^30 / 2^37 */
static void test_unary_i16(void **s)
{
    (void)s;
    ir_graph *g = sigmoid_graph(TOSAC_DT_I16, 1.0f / 4096, 1.0f / 32768, 0);
    tosa_graph *tg = lower1("TOSA-1.0+INT+int16", g);
    const tosa_block *b = tosa_graph_main_block(tg);
    const tosa_operator *tb = NULL, *rs = NULL;
    for (int i = 0; i < b->n_ops; i++) {
        if (b->ops[i].op == TOSA_OP_TABLE)
            tb = &b->ops[i];
        if (b->ops[i].op == TOSA_OP_RESCALE)
            rs = &b->ops[i];
    }
    assert_non_null(tb);
    assert_non_null(rs);
    assert_int_equal(b->tensors[tb->outputs[0]].dtype, TOSAC_DT_I32);
    assert_int_equal(b->tensors[tb->inputs[1]].shape[0], 513);
    /* entry 256 is v = 0: sigmoid(0) * 32768 = 16384, on a segment whose curvature is
     * antisymmetric about 0 (midpoint error below 0.01) */
    assert_int_equal(((const int16_t *)b->tensors[tb->inputs[1]].data)[256], 16384);
    assert_int_equal(*(const int32_t *)b->tensors[rs->inputs[1]].data, 1 << 30);
    assert_int_equal(*(const int8_t *)b->tensors[rs->inputs[2]].data, 37);
    assert_int_equal(rs->outputs[0], b->outputs[0]);
    tosa_graph_free(tg);
    /* without the int16 extension the TABLE is illegal: the node stays on the CPU */
    tosa_spec sp = bt_spec("TOSA-1.0+INT");
    char why[256];
    assert_false(lower_trial_node(&sp, g, 0, why, sizeof why));
    assert_non_null(strstr(why, "TABLE"));
    assert_non_null(strstr(why, "EXT-INT16"));
    ir_graph_free(g);
}

/* Exp of an all-zero int16 input calibrated to [-1, 1] (s_in = s_out = 1/32767): exp(0) is
 * 32767 output steps, the top of the range. The table entry at v = 0 is 32767, so the
 * TABLE's i32 result is 32767 * 128 and the RESCALE must land on 32767 (1.0), never wrap
 * to -32768 (-1.00003). */
static void test_exp_i16_top_entry(void **s)
{
    (void)s;
    lat_op op = {"Exp", 2, {1, 8}, 0, {{0}}, NULL, 21};
    lat_quant q = {TOSAC_DT_I16, 1.0f / 32767.0f, 1.0f / 32767.0f, 0, 0};
    float x[8] = {0};
    lat_result r;
    lat_run(&op, &q, "TOSA-1.0+INT+int16", x, 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_true(r.max_err < 1.5 / 32767.0);
    lat_result_free(&r);
    /* all ones calibrated as a16w8 would: s_in 1/32767, s_out e/32767: e is the top again */
    for (int i = 0; i < 8; i++)
        x[i] = 1.0f;
    q.sy = (float)(exp(1.0) / 32767.0);
    lat_run(&op, &q, "TOSA-1.0+INT+int16", x, 1, &r);
    assert_true(r.max_err < 1.5 * exp(1.0) / 32767.0);
    lat_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_i8),
        cmocka_unit_test(test_values_i16),
        cmocka_unit_test(test_unary_i8),
        cmocka_unit_test(test_unary_i16),
        cmocka_unit_test(test_exp_i16_top_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
