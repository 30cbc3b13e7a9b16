/* Pool lowering: MaxPool, AveragePool (count_include_pad both ways, ceil_mode), the global
 * pools; int8, int16 and float models (lower_core_testutil.h). */
#include "lower_core_testutil.h"

#include <string.h>

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
        const lc_op_info *p = lc_find(&r, op);
        assert_non_null(p);
        assert_int_equal(p->out_dtype, lc_modes[i].dt);
        if (op == TOSA_OP_AVG_POOL2D)
            assert_int_equal(p->acc_type,
                             lc_modes[i].dt == TOSAC_DT_F32 ? TOSAC_DT_F32 : TOSAC_DT_I32);
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
    /* the padding is made explicit (PAD with the zero value), the pool has none */
    pool_case pc = {"AveragePool", {3, 3}, {1, 1}, {1, 1, 1, 1}, 0, 1};
    check_all(&pc, TOSA_OP_AVG_POOL2D);
    lc_result r;
    lc_check(pool_model, &pc, LC_A8W8, INT8, 1, &r);
    assert_int_equal(lc_count(&r, TOSA_OP_PAD, TOSAC_DT_I8), 1);
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
    /* a padded average pool over 9x9 is the one pool Ethos-U55 refuses (8x8 at most) */
    pool_case avg = {"AveragePool", {9, 9}, {1, 1}, {1, 1, 1, 1}, 0, 0};
    lc_check(pool_model, &avg, LC_A8W8, INT8 "+u55", 1, &r);
    assert_int_equal(r.delegated, 0);
    assert_non_null(strstr(r.reasons, "U55 restriction: padded AVG_POOL2D kernel 9x9 larger "
                                      "than 8x8"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_maxpool),
        cmocka_unit_test(test_avgpool_exclude_pad),
        cmocka_unit_test(test_avgpool_include_pad),
        cmocka_unit_test(test_global_pools),
        cmocka_unit_test(test_u55_stride),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
