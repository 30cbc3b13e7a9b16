/* Pool lowering: MaxPool, AveragePool (count_include_pad both ways, ceil_mode), the global
 * pools; int8, int16 and float models (lower_core_testutil.h). */
#include "lower_core_testutil.h"

#include <string.h>

#include "cpu/cpu_exec.h"
#include "tosac/compile.h"
#include "tosac/onnx.h"

#define INT8 "TOSA-1.0+INT"
#define INT16 "TOSA-1.0+INT+int16"
#define FP "TOSA-1.0+FP"

static float px[1 * 3 * 9 * 10];

typedef struct pool_case {
    const char *op;
    int64_t k[2], s[2], pads[4];
    int ceil, include_pad;
} pool_case;

static void pool_model(lc_b *b, const void *arg)
{
    const pool_case *pc = arg;
    const int64_t xs[4] = {1, 3, 9, 10};
    int x = lc_input(b, "x", 4, xs, px);
    int n = lc_node(b, pc->op, "pool", &x, 1, 1);
    ir_graph *g = lc_graph(b);
    if (strncmp(pc->op, "Global", 6) != 0) {
        ir_node_set_ints(g, n, "kernel_shape", pc->k, 2, NULL);
        ir_node_set_ints(g, n, "strides", pc->s, 2, NULL);
        ir_node_set_ints(g, n, "pads", pc->pads, 4, NULL);
        ir_node_set_int(g, n, "ceil_mode", pc->ceil, NULL);
    }
    if (pc->include_pad)
        ir_node_set_int(g, n, "count_include_pad", 1, NULL);
    lc_output(b, lc_out(b, n, 0));
}

/* Each pool in every mode: delegated, one pool operator of the mode's type. */
static void check_all(const pool_case *pc, tosa_op op)
{
    for (int i = 0; i < 3; i++) {
        lc_result r;
        lc_check(pool_model, pc, lc_modes[i].mode, lc_modes[i].spec, 1, &r);
        if (r.delegated != 1)
            print_error("%s: %s\n", pc->op, r.reasons);
        assert_int_equal(r.delegated, 1);
        /* quantized averages (calibrated: the output's scale differs) sum the windows in a
         * DEPTHWISE_CONV2D (i32, or i48 for int16) and round once (avg_sum) */
        bool qavg = op == TOSA_OP_AVG_POOL2D && lc_modes[i].dt != TOSAC_DT_F32;
        const lc_op_info *p = lc_find(&r, qavg ? TOSA_OP_DEPTHWISE_CONV2D : op);
        assert_non_null(p);
        if (qavg) {
            assert_null(lc_find(&r, TOSA_OP_AVG_POOL2D));
            assert_int_equal(p->acc_type, lc_modes[i].acc);
            continue;
        }
        assert_int_equal(p->out_dtype, lc_modes[i].dt);
        if (op == TOSA_OP_AVG_POOL2D)
            assert_int_equal(p->acc_type, TOSAC_DT_F32);
    }
}

static void test_maxpool(void **state)
{
    (void)state;
    lc_fill(px, 270, 1, 2.0f);
    /* 3x3 stride 2 pads 1: (9 + 2 - 3) / 2 + 1 = 5 rows exactly; 10 cols leave one
     * column no window reads (trimmed) */
    pool_case pc = {"MaxPool", {3, 3}, {2, 2}, {1, 1, 1, 1}, 0, 0};
    check_all(&pc, TOSA_OP_MAX_POOL2D);
    /* ceil_mode: the last window overhangs (extra end padding) */
    pool_case ceil = {"MaxPool", {2, 2}, {2, 2}, {0, 0, 0, 0}, 1, 0};
    check_all(&ceil, TOSA_OP_MAX_POOL2D);
}

static void test_avgpool_exclude_pad(void **state)
{
    (void)state;
    lc_fill(px, 270, 2, 3.0f);
    pool_case pc = {"AveragePool", {3, 3}, {1, 1}, {1, 1, 1, 1}, 0, 0};
    check_all(&pc, TOSA_OP_AVG_POOL2D);
    pool_case ceil = {"AveragePool", {2, 3}, {2, 2}, {0, 1, 0, 1}, 1, 0};
    check_all(&ceil, TOSA_OP_AVG_POOL2D);
}

static void test_avgpool_include_pad(void **state)
{
    (void)state;
    lc_fill(px, 270, 3, 3.0f);
    /* float: the padding is made explicit (PAD with zeros), the pool has none; quantized,
     * the window sum's padding (zero after the zero point) counts, one RESCALE by 1/9 */
    pool_case pc = {"AveragePool", {3, 3}, {1, 1}, {1, 1, 1, 1}, 0, 1};
    check_all(&pc, TOSA_OP_AVG_POOL2D);
    lc_result r;
    lc_check(pool_model, &pc, LC_FLOAT, FP, 0, &r);
    assert_int_equal(lc_count(&r, TOSA_OP_PAD, TOSAC_DT_F32), 1);
    lc_check(pool_model, &pc, LC_A8W8, INT8, 1, &r);
    assert_int_equal(lc_count(&r, TOSA_OP_PAD, TOSAC_DT_UNKNOWN), 0);
    assert_int_equal(lc_count(&r, TOSA_OP_MUL, TOSAC_DT_UNKNOWN), 0);
    /* with ceil_mode overhang ONNX would not count the overhang: refused with the reason */
    pool_case ceil = {"AveragePool", {2, 2}, {2, 2}, {1, 1, 0, 0}, 1, 1};
    lc_check(pool_model, &ceil, LC_FLOAT, FP, 0, &r);
    assert_int_equal(r.delegated, 0);
    assert_non_null(strstr(r.reasons, "AveragePool: count_include_pad with ceil_mode overhang"));
}

static void test_global_pools(void **state)
{
    (void)state;
    lc_fill(px, 270, 4, 2.0f);
    pool_case avg = {"GlobalAveragePool", {0, 0}, {0, 0}, {0, 0, 0, 0}, 0, 0};
    /* float: AVG_POOL2D over the whole image */
    lc_result r;
    lc_check(pool_model, &avg, LC_FLOAT, FP, 0, &r);
    assert_int_equal(r.delegated, 1);
    assert_int_equal(lc_count(&r, TOSA_OP_AVG_POOL2D, TOSAC_DT_F32), 1);
    /* quantized, the mean's scale is finer than the input's: an int32 sum rescaled once
     * (AVG_POOL2D would round the mean to the input's scale: several output steps off) */
    lc_check(pool_model, &avg, LC_A8W8, INT8, 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_int_equal(lc_count(&r, TOSA_OP_REDUCE_SUM, TOSAC_DT_I32), 2);
    assert_int_equal(lc_count(&r, TOSA_OP_AVG_POOL2D, TOSAC_DT_UNKNOWN), 0);
    lc_check(pool_model, &avg, LC_A16W8, INT16, 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_int_equal(lc_count(&r, TOSA_OP_RESCALE, TOSAC_DT_I16), 1);
    pool_case max = {"GlobalMaxPool", {0, 0}, {0, 0}, {0, 0, 0, 0}, 0, 0};
    check_all(&max, TOSA_OP_MAX_POOL2D);
}

static void test_u55_stride(void **state)
{
    (void)state;
    lc_fill(px, 270, 5, 2.0f);
    /* stride 4: beyond the hardware's 1..3, but Vela splits it, so Ethos-U55 takes it */
    pool_case pc = {"MaxPool", {4, 4}, {4, 4}, {0, 0, 0, 0}, 0, 0};
    lc_result r;
    lc_check(pool_model, &pc, LC_A8W8, INT8 "+u55", 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_int_equal(lc_count(&r, TOSA_OP_MAX_POOL2D, TOSAC_DT_I8), 1);
    /* a padded exclude-pad average keeps AVG_POOL2D there (the exact form's RESCALE after
     * its MUL cannot fuse on Ethos-U55; it rounds twice, 0.5 sx/sy + 0.5 output steps at
     * worst, within one step for this data); counting the padding it is the window sum */
    pool_case avg3 = {"AveragePool", {3, 3}, {1, 1}, {1, 1, 1, 1}, 0, 0};
    lc_check(pool_model, &avg3, LC_A8W8, INT8 "+u55", 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_int_equal(lc_count(&r, TOSA_OP_AVG_POOL2D, TOSAC_DT_I8), 1);
    avg3.include_pad = 1;
    lc_check(pool_model, &avg3, LC_A8W8, INT8 "+u55", 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_int_equal(lc_count(&r, TOSA_OP_DEPTHWISE_CONV2D, TOSAC_DT_I32), 1);
    /* a padded average pool over 9x9 is the one pool Ethos-U55 refuses (8x8 at most) */
    pool_case avg = {"AveragePool", {9, 9}, {1, 1}, {1, 1, 1, 1}, 0, 0};
    lc_check(pool_model, &avg, LC_A8W8, INT8 "+u55", 1, &r);
    assert_int_equal(r.delegated, 0);
    assert_non_null(strstr(r.reasons, "U55 restriction: padded AVG_POOL2D kernel 9x9 larger "
                                      "than 8x8"));
}

/* ---- a padded 9x9 average with exact integers, through the whole compile path ----
 * x_q[r][c] = r + c - 8 (sx = 1, zp 0) on a 9x9 image, AveragePool 9x9 pads 1 -> 3x3, output
 * scale 1/16 (zp 0). Windows span rows oy-1..oy+7 clipped to 0..8: 8 rows (sum 28), 9 (36),
 * 8 (36); a window's sum is nc*sum_r + nr*sum_c - 8*nr*nc. Excluding the padding the means are
 * m[oy] + m[ox] - 8 with m = {3.5, 4, 4.5}; times 16: */
static const int8_t want_exclude[9] = {-16, -8, 0, -8, 0, 8, 0, 8, 16};
/* counting the padding, the sums {-64, -36, 0, -36, 0, 36, 0, 36, 64} / 81 * 16 =
 * {-12.64, -7.11, 0, ...}; AVG_POOL2D (mean rounded to sx first) gave {-16, 0, 0, ...}, and
 * {-16, 0, 0, 0, 0, 16, 0, 16, 16} without the padding. No value is a tie, so ONNX's rounding
 * (half to even) and RESCALE's (half up) agree. */
static const int8_t want_include[9] = {-13, -7, 0, -7, 0, 7, 0, 7, 13};

static int scalar(ir_graph *g, const char *name, tosac_dtype dt, const void *v)
{
    return bt_const(g, name, dt, 0, NULL, v);
}

static ir_model *exact_model(int include_pad, float out_scale)
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = ir_model_new();
    assert_int_equal(ir_model_set_opset(m, "", 13, &err), TOSAC_OK);
    ir_graph *g = m->graph;
    const int64_t xs[4] = {1, 1, 9, 9}, ys[4] = {1, 1, 3, 3};
    float one = 1.0f, sixteenth = out_scale;
    int8_t zero = 0;
    int x = bt_input(g, "x", TOSAC_DT_F32, 4, xs);
    int sx = scalar(g, "sx", TOSAC_DT_F32, &one), sy = scalar(g, "sy", TOSAC_DT_F32, &sixteenth);
    int z = scalar(g, "z", TOSAC_DT_I8, &zero);
    int xq = bt_tensor(g, "x_q", TOSAC_DT_I8, 4, xs), xf = bt_tensor(g, "x_f", TOSAC_DT_F32, 4, xs);
    int pf = bt_tensor(g, "p_f", TOSAC_DT_F32, 4, ys), pq = bt_tensor(g, "p_q", TOSAC_DT_I8, 4, ys);
    int y = bt_tensor(g, "y", TOSAC_DT_F32, 4, ys);
    int qi[3] = {x, sx, z}, di[3] = {xq, sx, z}, q2[3] = {pf, sy, z}, d2[3] = {pq, sy, z};
    assert_true(ir_graph_add_node(g, "QuantizeLinear", NULL, "q", qi, 3, &xq, 1, &err) >= 0);
    assert_true(ir_graph_add_node(g, "DequantizeLinear", NULL, "dq", di, 3, &xf, 1, &err) >= 0);
    int n = ir_graph_add_node(g, "AveragePool", NULL, "pool", &xf, 1, &pf, 1, &err);
    assert_true(n >= 0);
    const int64_t k[2] = {9, 9}, pads[4] = {1, 1, 1, 1};
    ir_node_set_ints(g, n, "kernel_shape", k, 2, NULL);
    ir_node_set_ints(g, n, "pads", pads, 4, NULL);
    ir_node_set_int(g, n, "count_include_pad", include_pad, NULL);
    assert_true(ir_graph_add_node(g, "QuantizeLinear", NULL, "q2", q2, 3, &pq, 1, &err) >= 0);
    assert_true(ir_graph_add_node(g, "DequantizeLinear", NULL, "dq2", d2, 3, &y, 1, &err) >= 0);
    assert_int_equal(ir_graph_mark_output(g, y, &err), TOSAC_OK);
    assert_int_equal(onnx_record_quant(g, &err), TOSAC_OK);
    return m;
}

/* want: the program's integers, ref: the CPU executor's (NULL: the same) at output scale
 * 1/div; avg_pool: the delegate's pool operator is AVG_POOL2D (else a DEPTHWISE_CONV2D sum). */
static void check_exact(int include_pad, int div, const int8_t *want, const int8_t *ref_q,
                        int avg_pool)
{
    float xv[81], prog_want[9], ref_want[9];
    for (int r = 0; r < 9; r++)
        for (int c = 0; c < 9; c++)
            xv[r * 9 + c] = (float)(r + c - 8);
    for (int i = 0; i < 9; i++) {
        prog_want[i] = (float)want[i] / (float)div;
        ref_want[i] = (float)(ref_q ? ref_q : want)[i] / (float)div;
    }
    const int64_t xs[4] = {1, 1, 9, 9};
    tosac_tensor in = bt_host(TOSAC_DT_F32, 4, xs, xv), ref, got;
    tosac_error err;
    tosac_error_clear(&err);
    /* the CPU executor (the QDQ graph's float semantics) agrees with the hand values */
    ir_model *rm = exact_model(include_pad, 1.0f / (float)div);
    assert_int_equal(cpu_run_model(rm, &in, 1, &ref, 1, &err), TOSAC_OK);
    ir_model_free(rm);
    assert_memory_equal(ref.data, ref_want, sizeof ref_want);
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = INT8;
    tosac_program *p = NULL;
    if (tosac_compile_model(exact_model(include_pad, 1.0f / (float)div), &o, &p, NULL, &err))
        fail_msg("compile: %s", err.msg);
    assert_int_equal(tosac_program_n_delegates(p), 1);
    const tosa_block *b = tosa_graph_main_block(tosac_program_delegate(p, 0));
    int avg = 0, dw = 0;
    for (int i = 0; i < b->n_ops; i++) {
        avg += b->ops[i].op == TOSA_OP_AVG_POOL2D;
        dw += b->ops[i].op == TOSA_OP_DEPTHWISE_CONV2D;
    }
    assert_int_equal(avg, avg_pool);
    assert_int_equal(dw, !avg_pool);
    assert_int_equal(tosac_program_run(p, &in, 1, &got, 1, &err), TOSAC_OK);
    assert_memory_equal(got.data, prog_want, sizeof prog_want);
    tosac_tensor_free(&got);
    tosac_tensor_free(&ref);
    tosac_program_free(p);
}

/* A quantized average pool is rounded once, to the output's scale: exact integers for the
 * edge windows (8 or 9 rows and columns) and the interior, padding excluded and counted. */
static void test_avgpool_exact(void **state)
{
    (void)state;
    check_exact(0, 16, want_exclude, NULL, 0);
    check_exact(1, 16, want_include, NULL, 0);
    /* Output scale = input scale: AVG_POOL2D stays, and its ties are not ONNX's. The means
     * {-1, -0.5, 0, -0.5, 0, 0.5, 0, 0.5, 1} round half to even in QuantizeLinear, but
     * AVG_POOL2D multiplies by reciprocal_scale(count) = floor(((2^30 + 1) << k) / count),
     * slightly above 1/count, then rounds half up: -0.5 -> -1, 0.5 -> 1. One step at exact
     * ties, inherent to TOSA (hence qtol 1 for pools of equal scales). */
    static const int8_t tosa_ties[9] = {-1, -1, 0, -1, 0, 1, 0, 1, 1};
    static const int8_t onnx_ties[9] = {-1, 0, 0, 0, 0, 0, 0, 0, 1};
    check_exact(0, 1, tosa_ties, onnx_ties, 1);
}

/* Random data, calibrated scales: the 9x9 mean's scale is ~20x finer than the input's, so the
 * old AVG_POOL2D rounding was up to 10 output steps off; now within one step (RESCALE rounds
 * ties up, ONNX's QuantizeLinear to even). */
static void test_avgpool_9x9(void **state)
{
    (void)state;
    lc_fill(px, 270, 6, 3.0f);
    lc_result r;
    for (int inc = 0; inc < 2; inc++) {
        pool_case avg = {"AveragePool", {9, 9}, {1, 1}, {1, 1, 1, 1}, 0, inc};
        for (int i = 0; i < 2; i++) { /* a8w8, a16w8 */
            lc_check(pool_model, &avg, lc_modes[i].mode, lc_modes[i].spec, 1, &r);
            assert_int_equal(r.delegated, 1);
            assert_int_equal(lc_count(&r, TOSA_OP_AVG_POOL2D, TOSAC_DT_UNKNOWN), 0);
            assert_int_equal(lc_count(&r, TOSA_OP_MUL, TOSAC_DT_I32), inc ? 0 : 1);
        }
    }
}

/* 1-D pools: x [1,3,10], kernel 3, stride 2, pads {1,1} (AveragePool with
 * count_include_pad both ways), as the 2-D pool on [1,3,1,10]; three modes on random,
 * all-zero and all-one inputs (one output step; float exact to rounding). */
typedef struct pool1d_case {
    const char *op;
    int include_pad;
} pool1d_case;

static void pool1d_model(lc_b *b, const void *arg)
{
    const pool1d_case *pc = arg;
    const int64_t xs[3] = {1, 3, 10}, k = 3, st = 2, pads[2] = {1, 1};
    int x = lc_input(b, "x", 3, xs, px);
    int n = lc_node(b, pc->op, "pool", &x, 1, 1);
    ir_graph *g = lc_graph(b);
    ir_node_set_ints(g, n, "kernel_shape", &k, 1, NULL);
    ir_node_set_ints(g, n, "strides", &st, 1, NULL);
    ir_node_set_ints(g, n, "pads", pads, 2, NULL);
    if (pc->include_pad)
        ir_node_set_int(g, n, "count_include_pad", 1, NULL);
    lc_output(b, lc_out(b, n, 0));
}

static void test_pool_1d(void **state)
{
    (void)state;
    const pool1d_case cases[3] = {{"MaxPool", 0}, {"AveragePool", 0}, {"AveragePool", 1}};
    for (int k = 0; k < 3; k++)
        for (int data = 0; data < 3; data++) {
            if (data == 0)
                lc_fill(px, 30, 21, 2.0f);
            for (int i = 0; data > 0 && i < 30; i++)
                px[i] = data == 1 ? 0.0f : 1.0f;
            for (int m = 0; m < 3; m++) {
                lc_result r;
                lc_check(pool1d_model, &cases[k], lc_modes[m].mode, lc_modes[m].spec,
                         lc_modes[m].mode == LC_FLOAT ? 0 : 1, &r);
                if (r.delegated != 1)
                    fail_msg("%s under %s: CPU: %s", cases[k].op, lc_modes[m].spec, r.reasons);
            }
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_1d),
        cmocka_unit_test(test_maxpool),
        cmocka_unit_test(test_avgpool_exclude_pad),
        cmocka_unit_test(test_avgpool_include_pad),
        cmocka_unit_test(test_global_pools),
        cmocka_unit_test(test_u55_stride),
        cmocka_unit_test(test_avgpool_exact),
        cmocka_unit_test(test_avgpool_9x9),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
