/* Ethos-U55 limits (validate_u55.c, after Vela's U55 constraints) seen from the compile
 * report: a8w8 single-operator models under TOSA-1.0+INT+u55 stay on the CPU with category
 * "U55 restriction" and the limit named, and are delegated under plain TOSA-1.0+INT. */
#include "lower_core_testutil.h"

#include <string.h>

#define U55 "TOSA-1.0+INT+u55"

static float cx[2 * 2 * 70 * 70], cw[4 * 2 * 3 * 3], cb[4];

typedef struct conv_case {
    int64_t batch, stride, dilation, hw; /* hw: input height and width */
} conv_case;

static void conv_model(lc_b *b, const void *arg)
{
    const conv_case *cc = arg;
    const int64_t xs[4] = {cc->batch, 2, cc->hw, cc->hw}, ws[4] = {4, 2, 3, 3};
    const int64_t st[2] = {cc->stride, cc->stride}, dl[2] = {cc->dilation, cc->dilation};
    int x = lc_input(b, "x", 4, xs, cx);
    int w = lc_weight(b, "w", 4, ws, cw, 0);
    int ins[3] = {x, w, lc_bias(b, "b", 4, cb, x, w)};
    int n = lc_node(b, "Conv", "conv", ins, 3, 1);
    ir_node_set_ints(lc_graph(b), n, "strides", st, 2, NULL);
    ir_node_set_ints(lc_graph(b), n, "dilations", dl, 2, NULL);
    lc_output(b, lc_out(b, n, 0));
}

/* Under u55: on the CPU with the U55 category and reason `why`; under INT: delegated. */
static void check_refused(lc_build_fn fn, const void *arg, const char *why)
{
    lc_result r;
    lc_check(fn, arg, LC_A8W8, U55, 1, &r);
    assert_int_equal(r.delegated, 0);
    if (!strstr(r.reasons, why) || !strstr(r.categories, ": U55 restriction"))
        fail_msg("want '%s' (U55 restriction); CPU reasons: %s; categories: %s", why, r.reasons,
                 r.categories);
    lc_check(fn, arg, LC_A8W8, "TOSA-1.0+INT", 1, &r);
    assert_int_equal(r.delegated, 1);
}

static void fill(void)
{
    lc_fill(cx, 2 * 2 * 70 * 70, 1, 2.0f);
    lc_fill(cw, 72, 2, 0.5f);
    lc_fill(cb, 4, 3, 0.5f);
}

static void test_conv_within_limits(void **state)
{
    (void)state;
    fill();
    conv_case ok = {1, 3, 1, 12};
    lc_result r;
    lc_check(conv_model, &ok, LC_A8W8, U55, 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_non_null(lc_find(&r, TOSA_OP_CONV2D));
}

static void test_conv_stride_4(void **state)
{
    (void)state;
    fill();
    conv_case c = {1, 4, 1, 12};
    check_refused(conv_model, &c, "U55 restriction: CONV2D stride 4 outside 1..3");
}

static void test_conv_dilated_kernel_too_large(void **state)
{
    (void)state;
    fill();
    /* a 3x3 kernel at dilation 32 spans 65 rows and columns, beyond 64; at dilation 31, 63 */
    conv_case c = {1, 1, 32, 70};
    check_refused(conv_model, &c, "U55 restriction: CONV2D kernel 65x65 larger than 64x64");
    conv_case ok = {1, 1, 31, 70};
    lc_result r;
    lc_check(conv_model, &ok, LC_A8W8, U55, 1, &r);
    assert_int_equal(r.delegated, 1);
}

static void test_conv_batch_2(void **state)
{
    (void)state;
    fill();
    conv_case c = {2, 1, 1, 12};
    check_refused(conv_model, &c, "U55 restriction: CONV2D with batch 2 (only 1)");
}

/* MatMul of two activations: U55 takes weights only as constants (through CONV2D). */
static float ma[2 * 3 * 4], mb[2 * 4 * 5];

static void matmul_model(lc_b *b, const void *arg)
{
    (void)arg;
    const int64_t as[3] = {2, 3, 4}, bs[3] = {2, 4, 5};
    int ins[2] = {lc_input(b, "a", 3, as, ma), lc_input(b, "b", 3, bs, mb)};
    lc_output(b, lc_out(b, lc_node(b, "MatMul", "mm", ins, 2, 1), 0));
}

static void test_unsupported_operators(void **state)
{
    (void)state;
    lc_fill(ma, 24, 5, 2.0f);
    lc_fill(mb, 40, 6, 2.0f);
    check_refused(matmul_model, NULL, "U55 restriction: MATMUL is not supported on Ethos-U55");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_within_limits),
        cmocka_unit_test(test_conv_stride_4),
        cmocka_unit_test(test_conv_dilated_kernel_too_large),
        cmocka_unit_test(test_conv_batch_2),
        cmocka_unit_test(test_unsupported_operators),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
