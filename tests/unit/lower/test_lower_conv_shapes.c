/* Conv shapes beyond 2-D group-1/depthwise: 1-D Conv (CONV2D on [N,C,1,L]), grouped Conv
 * (one CONV2D per group + CONCAT) and 3-D Conv (CONV3D), under a8w8, a16w8 and FP, on random, all-zero and all-one
 * inputs (EXT's degenerate test data); outputs against the CPU executor on the same model
 * within one output step (lower_core_testutil.h), every delegate replayed bit-exactly. */
#include "lower_core_testutil.h"

#include <string.h>

typedef struct conv_case {
    int rank;                /* 3: 1-D, 4: 2-D, 5: 3-D */
    int64_t group;
    int64_t xs[5], ws[5];
    const float *x, *w, *b;
} conv_case;

static float xbuf[400], wbuf[256], bbuf[8];

static void conv_model(lc_b *b, const void *arg)
{
    const conv_case *k = arg;
    int x = lc_input(b, "x", k->rank, k->xs, k->x);
    int w = lc_weight(b, "w", k->rank, k->ws, k->w, 0);
    int bias = lc_bias(b, "b", k->ws[0], k->b, x, w);
    int ins[3] = {x, w, bias};
    int n = lc_node(b, "Conv", "conv", ins, 3, 1);
    ir_graph *g = lc_graph(b);
    int sp = k->rank - 2;
    const int64_t pads[6] = {1, 1, 1, 1, 1, 1}, strides[2] = {2, 1};
    ir_node_set_int(g, n, "group", k->group, NULL);
    ir_node_set_ints(g, n, "pads", pads, 2 * sp, NULL);
    if (sp == 1)
        ir_node_set_ints(g, n, "strides", strides, 1, NULL); /* stride 2 along the length */
    lc_output(b, lc_out(b, n, 0));
}

/* Runs k under the three modes on random / zero / one inputs; expects one delegate with
 * n_conv CONV2Ds (and a CONCAT when grouped) of the mode's types. */
static void run_case(conv_case *k, int n_conv)
{
    tosa_op op = k->rank == 5 ? TOSA_OP_CONV3D : TOSA_OP_CONV2D;
    int64_t nx = 1, nw = 1;
    for (int d = 0; d < k->rank; d++) {
        nx *= k->xs[d];
        nw *= k->ws[d];
    }
    lc_fill(wbuf, (int)nw, 11, 0.5f);
    lc_fill(bbuf, (int)k->ws[0], 12, 0.5f);
    k->x = xbuf;
    k->w = wbuf;
    k->b = bbuf;
    for (int data = 0; data < 3; data++) {
        if (data == 0)
            lc_fill(xbuf, (int)nx, 13, 2.0f);
        for (int64_t i = 0; data > 0 && i < nx; i++)
            xbuf[i] = data == 1 ? 0.0f : 1.0f;
        for (int m = 0; m < 3; m++) {
            const lc_mode_case *mc = &lc_modes[m];
            lc_result r;
            lc_check(conv_model, k, mc->mode, mc->spec, mc->mode == LC_FLOAT ? 0 : 1, &r);
            if (r.delegated != 1 || r.n_delegates != 1)
                fail_msg("%s, data %d: %d delegated, CPU: %s", mc->spec, data, r.delegated,
                         r.reasons);
            assert_int_equal(lc_count(&r, op, mc->acc), n_conv);
            const lc_op_info *cv = lc_find(&r, op);
            assert_int_equal(cv->in_dtype, mc->dt);
            assert_int_equal(cv->acc_type, mc->acc);
            assert_int_equal(lc_count(&r, TOSA_OP_CONCAT, TOSAC_DT_UNKNOWN), n_conv > 1);
        }
    }
}

/* 1-D: x [1,4,12], w [6,4,3], pads 1, stride 2: output length 6 */
static void test_conv1d(void **state)
{
    (void)state;
    conv_case k = {3, 1, {1, 4, 12}, {6, 4, 3}, NULL, NULL, NULL};
    run_case(&k, 1);
}

/* grouped 2-D: x [1,4,5,5], w [6,2,3,3], group 2 (neither 1 nor depthwise) */
static void test_conv_grouped(void **state)
{
    (void)state;
    conv_case k = {4, 2, {1, 4, 5, 5}, {6, 2, 3, 3}, NULL, NULL, NULL};
    run_case(&k, 2);
}

/* grouped 1-D: x [1,6,10], w [6,2,3], group 3 */
static void test_conv1d_grouped(void **state)
{
    (void)state;
    conv_case k = {3, 3, {1, 6, 10}, {6, 2, 3}, NULL, NULL, NULL};
    run_case(&k, 3);
}

/* 3-D: x [1,2,4,5,5], w [4,2,3,3,3], pads 1: same-size output */
static void test_conv3d(void **state)
{
    (void)state;
    conv_case k = {5, 1, {1, 2, 4, 5, 5}, {4, 2, 3, 3, 3}, NULL, NULL, NULL};
    run_case(&k, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv1d),
        cmocka_unit_test(test_conv_grouped),
        cmocka_unit_test(test_conv1d_grouped),
        cmocka_unit_test(test_conv3d),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
