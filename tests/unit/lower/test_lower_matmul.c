/* Gemm and MatMul lowering: single-operator models compiled under TOSA-1.0+INT (a8w8),
 * +int16 (a16w8) and +FP; delegation, emitted operators and types, and outputs against the
 * CPU executor on the same model (lower_core_testutil.h). */
#include "lower_core_testutil.h"

#include <string.h>

#define INT8 "TOSA-1.0+INT"
#define INT16 "TOSA-1.0+INT+int16"
#define FP "TOSA-1.0+FP"

/* ---- Gemm(x[4,16], W[8,16]^T, b[8]) ---- */
static float gx[64], gw[128], gb[8];

static void gemm_model(lc_b *b, const void *arg)
{
    const int64_t xs[2] = {4, 16}, ws[2] = {8, 16};
    int x = lc_input(b, "x", 2, xs, gx);
    int w = lc_weight(b, "w", 2, ws, gw, 0);
    int bias = lc_bias(b, "b", 8, gb, x, w);
    int ins[3] = {x, w, bias};
    int n = lc_node(b, "Gemm", "gemm", ins, 3, 1);
    ir_node_set_int(lc_graph(b), n, "transB", 1, NULL);
    if (arg) /* alpha/beta variant (float only) */
        ir_node_set_float(lc_graph(b), n, "alpha", 0.5f, NULL);
    lc_output(b, lc_out(b, n, 0));
}

static void test_gemm_int8(void **state)
{
    (void)state;
    lc_fill(gx, 64, 1, 2.0f);
    lc_fill(gw, 128, 2, 0.5f);
    lc_fill(gb, 8, 3, 1.0f);
    lc_result r;
    lc_check(gemm_model, NULL, LC_A8W8, INT8, 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_int_equal(r.n_delegates, 1);
    const lc_op_info *conv = lc_find(&r, TOSA_OP_CONV2D);
    assert_non_null(conv);
    assert_int_equal(conv->in_dtype, TOSAC_DT_I8);
    assert_int_equal(conv->acc_type, TOSAC_DT_I32);
    assert_int_equal(conv->out_dtype, TOSAC_DT_I32);
    assert_int_equal(lc_count(&r, TOSA_OP_RESCALE, TOSAC_DT_I8), 1);
    assert_int_equal(lc_count(&r, TOSA_OP_MATMUL, TOSAC_DT_UNKNOWN), 0);
    assert_int_equal(r.boundary[0], TOSAC_DT_I8);
}

static void test_gemm_int16(void **state)
{
    (void)state;
    lc_fill(gx, 64, 4, 3.0f);
    lc_fill(gw, 128, 5, 0.5f);
    lc_fill(gb, 8, 6, 1.0f);
    lc_result r;
    lc_check(gemm_model, NULL, LC_A16W8, INT16, 1, &r);
    assert_int_equal(r.delegated, 1);
    const lc_op_info *conv = lc_find(&r, TOSA_OP_CONV2D);
    assert_non_null(conv);
    assert_int_equal(conv->in_dtype, TOSAC_DT_I16);
    assert_int_equal(conv->acc_type, TOSAC_DT_I48);
    assert_int_equal(conv->out_dtype, TOSAC_DT_I48);
    assert_int_equal(lc_count(&r, TOSA_OP_RESCALE, TOSAC_DT_I16), 1);
    /* without EXT-INT16 the same model stays on the CPU, with the reason */
    lc_check(gemm_model, NULL, LC_A16W8, INT8, 1, &r);
    assert_int_equal(r.delegated, 0);
    assert_non_null(strstr(r.reasons, "Gemm: int16 activations need +int16 (TOSA-1.0+INT+int16)"));
}

static void test_gemm_float(void **state)
{
    (void)state;
    lc_fill(gx, 64, 7, 2.0f);
    lc_fill(gw, 128, 8, 0.5f);
    lc_fill(gb, 8, 9, 1.0f);
    lc_result r;
    lc_check(gemm_model, "alpha", LC_FLOAT, FP, 0, &r);
    assert_int_equal(r.delegated, 1);
    const lc_op_info *conv = lc_find(&r, TOSA_OP_CONV2D);
    assert_non_null(conv);
    assert_int_equal(conv->acc_type, TOSAC_DT_F32);
    /* a float model under INT only: nothing is delegated */
    lc_check(gemm_model, NULL, LC_FLOAT, INT8, 0, &r);
    assert_int_equal(r.delegated, 0);
    assert_non_null(strstr(r.reasons, "Gemm: float32 operands need +FP (TOSA-1.0+INT+FP)"));
}

/* ---- Gemm(x[16,4]^T, W[16,8], C[8]) with alpha 0.5, beta 2 ---- */
static void gemm_trans_a_model(lc_b *b, const void *arg)
{
    (void)arg;
    const int64_t xs[2] = {16, 4}, ws[2] = {16, 8};
    int x = lc_input(b, "x", 2, xs, gx);
    int w = lc_weight(b, "w", 2, ws, gw, 1);
    int ins[3] = {x, w, lc_bias(b, "b", 8, gb, x, w)};
    int n = lc_node(b, "Gemm", "gemm", ins, 3, 1);
    ir_node_set_int(lc_graph(b), n, "transA", 1, NULL);
    ir_node_set_float(lc_graph(b), n, "alpha", 0.5f, NULL);
    ir_node_set_float(lc_graph(b), n, "beta", 2.0f, NULL);
    lc_output(b, lc_out(b, n, 0));
}

static void test_gemm_alpha_beta_trans_a(void **state)
{
    (void)state;
    lc_fill(gx, 64, 13, 2.0f);
    lc_fill(gw, 128, 14, 0.5f);
    lc_fill(gb, 8, 15, 3.0f); /* a bias large enough that beta and alpha matter */
    for (int i = 0; i < 3; i++) {
        lc_result r;
        lc_check(gemm_trans_a_model, NULL, lc_modes[i].mode, lc_modes[i].spec, 1, &r);
        assert_int_equal(r.delegated, 1);
        assert_int_equal(lc_count(&r, TOSA_OP_TRANSPOSE, lc_modes[i].dt), 1);
        assert_int_equal(lc_find(&r, TOSA_OP_CONV2D)->acc_type, lc_modes[i].acc);
    }
}

/* ---- MatMul(x[2,3,16], W[16,5]) : constant weights, batch folded into rows ---- */
static float mx[96], mw[80];

static void matmul_const_model(lc_b *b, const void *arg)
{
    (void)arg;
    const int64_t xs[3] = {2, 3, 16}, ws[2] = {16, 5};
    int ins[2] = {lc_input(b, "x", 3, xs, mx), lc_weight(b, "w", 2, ws, mw, 1)};
    lc_output(b, lc_out(b, lc_node(b, "MatMul", "mm", ins, 2, 1), 0));
}

/* In every mode: the one node delegated, with operator op reading the mode's type and
 * accumulating (CONV2D acc_type) or producing (MATMUL) its accumulator type. */
static void check_modes(lc_build_fn fn, tosa_op op, tosa_op absent)
{
    for (int i = 0; i < 3; i++) {
        lc_result r;
        lc_check(fn, NULL, lc_modes[i].mode, lc_modes[i].spec, 1, &r);
        assert_int_equal(r.delegated, 1);
        const lc_op_info *o = lc_find(&r, op);
        assert_non_null(o);
        assert_int_equal(o->in_dtype, lc_modes[i].dt);
        assert_int_equal(op == TOSA_OP_CONV2D ? o->acc_type : o->out_dtype, lc_modes[i].acc);
        assert_int_equal(lc_count(&r, absent, TOSAC_DT_UNKNOWN), 0);
        assert_int_equal(lc_count(&r, TOSA_OP_RESCALE, TOSAC_DT_UNKNOWN),
                         lc_modes[i].mode == LC_FLOAT ? 0 : 1);
    }
}

static void test_matmul_const_weights(void **state)
{
    (void)state;
    lc_fill(mx, 96, 11, 1.5f);
    lc_fill(mw, 80, 12, 0.7f);
    check_modes(matmul_const_model, TOSA_OP_CONV2D, TOSA_OP_MATMUL);
}

/* ---- attention: MatMul(q[1,2,6,8], k[1,2,8,7]) of two runtime values ---- */
static float aq[96], ak[112];

static void attention_model(lc_b *b, const void *arg)
{
    (void)arg;
    const int64_t qs[4] = {1, 2, 6, 8}, ks[4] = {1, 2, 8, 7};
    int ins[2] = {lc_input(b, "q", 4, qs, aq), lc_input(b, "k", 4, ks, ak)};
    lc_output(b, lc_out(b, lc_node(b, "MatMul", "mm", ins, 2, 1), 0));
}

static void test_matmul_runtime(void **state)
{
    (void)state;
    lc_fill(aq, 96, 21, 2.0f);
    lc_fill(ak, 112, 22, 1.0f);
    check_modes(attention_model, TOSA_OP_MATMUL, TOSA_OP_CONV2D);
    /* Ethos-U55 takes an int8 MATMUL of two activations (Vela emulates it) */
    lc_result r;
    lc_check(attention_model, NULL, LC_A8W8, INT8 "+u55", 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_int_equal(lc_count(&r, TOSA_OP_MATMUL, TOSAC_DT_I32), 1);
}

/* ---- broadcast batch: MatMul(a[2,1,4,5], b[3,5,6]) -> [2,3,4,6] (TILE both) ---- */
static float ba[40], bb[90];

static void broadcast_model(lc_b *b, const void *arg)
{
    (void)arg;
    const int64_t as[4] = {2, 1, 4, 5}, bs[3] = {3, 5, 6};
    int ins[2] = {lc_input(b, "a", 4, as, ba), lc_input(b, "b", 3, bs, bb)};
    lc_output(b, lc_out(b, lc_node(b, "MatMul", "mm", ins, 2, 1), 0));
}

static void test_matmul_broadcast(void **state)
{
    (void)state;
    lc_fill(ba, 40, 31, 1.0f);
    lc_fill(bb, 90, 32, 1.0f);
    lc_result r;
    lc_check(broadcast_model, NULL, LC_FLOAT, FP, 0, &r);
    assert_int_equal(r.delegated, 1);
    assert_int_equal(lc_count(&r, TOSA_OP_TILE, TOSAC_DT_F32), 2);
    assert_int_equal(lc_count(&r, TOSA_OP_MATMUL, TOSAC_DT_F32), 1);
    lc_check(broadcast_model, NULL, LC_A8W8, INT8, 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_int_equal(lc_count(&r, TOSA_OP_MATMUL, TOSAC_DT_I32), 1);
}

/* ---- the case: a rank-1 linear with 20 outputs, large random inputs, a16w8 ---- */
#define K1 1024
static float lx[K1], lw[K1 * 20];

static void linear1_model(lc_b *b, const void *arg)
{
    (void)arg;
    const int64_t xs[1] = {K1}, ws[2] = {K1, 20};
    int ins[2] = {lc_input(b, "x", 1, xs, lx), lc_weight(b, "w", 2, ws, lw, 1)};
    lc_output(b, lc_out(b, lc_node(b, "MatMul", "linear", ins, 2, 1), 0));
}

static void test_rank1_linear_int16(void **state)
{
    (void)state;
    lc_fill(lx, K1, 41, 3000.0f);
    lc_fill(lw, K1 * 20, 42, 1.0f);
    lc_result r;
    /* the accumulator (i48) holds sums of 1024 products of 2^15 x 2^7 without overflow; the
     * output stays within one int16 step of the QDQ graph evaluated in float */
    lc_check(linear1_model, NULL, LC_A16W8, INT16, 1, &r);
    assert_int_equal(r.delegated, 1);
    const lc_op_info *conv = lc_find(&r, TOSA_OP_CONV2D);
    assert_non_null(conv);
    assert_int_equal(conv->acc_type, TOSAC_DT_I48);
    const lc_op_info *rs = lc_find(&r, TOSA_OP_RESCALE);
    assert_non_null(rs);
    assert_int_equal(rs->in_dtype, TOSAC_DT_I48);
    assert_int_equal(rs->out_dtype, TOSAC_DT_I16);
}

/* ---- Gemm with runtime B and C: A^T (transA, A [8,3]) x B^T (transB, B [5,8]) ---- */
static float rga[24], rgb[40], rgc[15];

typedef struct rt_gemm {
    int with_c;      /* 1: C as a bias [5] (lc_bias), 2: C a runtime input [3,5] (float) */
    float alpha, beta;
} rt_gemm;

static void rt_gemm_model(lc_b *b, const void *arg)
{
    const rt_gemm *k = arg;
    const int64_t as[2] = {8, 3}, bs[2] = {5, 8}, cs[2] = {3, 5};
    int a = lc_input(b, "a", 2, as, rga);
    int w = lc_input(b, "b", 2, bs, rgb);
    int ins[3] = {a, w, -1};
    if (k->with_c == 1)
        ins[2] = lc_bias(b, "c", 5, rgc, a, w);
    else if (k->with_c == 2)
        ins[2] = lc_input(b, "c", 2, cs, rgc);
    int n = lc_node(b, "Gemm", "gemm", ins, k->with_c ? 3 : 2, 1);
    ir_graph *g = lc_graph(b);
    ir_node_set_int(g, n, "transA", 1, NULL);
    ir_node_set_int(g, n, "transB", 1, NULL);
    ir_node_set_float(g, n, "alpha", k->alpha, NULL);
    ir_node_set_float(g, n, "beta", k->beta, NULL);
    lc_output(b, lc_out(b, n, 0));
}

/* MATMUL (+ ADD of C) in one delegate, on random, all-zero and all-one operands: float with
 * alpha 0.5, beta 2 and a runtime C; a8w8 with a constant C (i32 ADD before the RESCALE);
 * a16w8 without C (its i48 product has no ADD). */
static void test_gemm_runtime_b_c(void **state)
{
    (void)state;
    const rt_gemm fl = {2, 0.5f, 2.0f}, q8 = {1, 1.0f, 1.0f}, q16 = {0, 1.0f, 1.0f};
    for (int data = 0; data < 3; data++) {
        if (data == 0) {
            lc_fill(rga, 24, 31, 1.0f);
            lc_fill(rgb, 40, 32, 1.0f);
        }
        for (int i = 0; data > 0 && i < 40; i++) {
            if (i < 24)
                rga[i] = data == 1 ? 0.0f : 1.0f;
            rgb[i] = data == 1 ? 0.0f : 1.0f;
        }
        lc_fill(rgc, 15, 33, 2.0f);
        lc_result r;
        lc_check(rt_gemm_model, &fl, LC_FLOAT, FP, 0, &r);
        assert_int_equal(r.delegated, 1);
        assert_int_equal(lc_count(&r, TOSA_OP_MATMUL, TOSAC_DT_F32), 1);
        assert_int_equal(lc_count(&r, TOSA_OP_ADD, TOSAC_DT_F32), 1);
        lc_check(rt_gemm_model, &q8, LC_A8W8, INT8, 1, &r);
        if (r.delegated != 1)
            fail_msg("a8w8: %s", r.reasons);
        assert_int_equal(lc_count(&r, TOSA_OP_MATMUL, TOSAC_DT_I32), 1);
        assert_int_equal(lc_count(&r, TOSA_OP_ADD, TOSAC_DT_I32), 1);
        lc_check(rt_gemm_model, &q16, LC_A16W8, INT16, 1, &r);
        assert_int_equal(r.delegated, 1);
        assert_int_equal(lc_count(&r, TOSA_OP_MATMUL, TOSAC_DT_I48), 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm_runtime_b_c),
        cmocka_unit_test(test_gemm_int8),
        cmocka_unit_test(test_gemm_int16),
        cmocka_unit_test(test_gemm_float),
        cmocka_unit_test(test_gemm_alpha_beta_trans_a),
        cmocka_unit_test(test_matmul_const_weights),
        cmocka_unit_test(test_matmul_runtime),
        cmocka_unit_test(test_matmul_broadcast),
        cmocka_unit_test(test_rank1_linear_int16),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
