/* Ethos-U55 limits (docs/ETHOS_U_LIMITS.md, validate_u55.c, spec_u55.c) seen from ONNX models:
 * a8w8 single-operator models under TOSA-1.0+INT+u55. What Vela splits itself (conv stride 4,
 * a 65x65 dilated kernel, batch 2) and the int8 MATMUL of two activations are delegated and
 * run like the CPU executor; what Vela cannot place stays on the CPU with category "U55
 * restriction" and the true reason, and is delegated under plain TOSA-1.0+INT. */
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
    int ins[2] = {x, w};
    int n = lc_node(b, "Conv", "conv", ins, 2, 1);
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

/* Under u55: delegated as one op (lc_check runs it against the CPU executor). */
static void check_accepted(lc_build_fn fn, const void *arg, tosa_op op)
{
    lc_result r;
    lc_check(fn, arg, LC_A8W8, U55, 1, &r);
    if (r.delegated != 1)
        fail_msg("not delegated under u55: %s", r.reasons);
    assert_non_null(lc_find(&r, op));
}

static void fill(void)
{
    lc_fill(cx, 2 * 2 * 70 * 70, 1, 2.0f);
    lc_fill(cw, 72, 2, 0.5f);
    lc_fill(cb, 4, 3, 0.5f);
}

/* Vela unrolls strides over 3, decomposes dilation and large kernels, splits the batch. */
static void test_conv_what_vela_splits(void **state)
{
    (void)state;
    fill();
    const conv_case ok[] = {{1, 3, 1, 12}, {1, 4, 1, 12}, {1, 1, 32, 70}, {2, 1, 1, 12}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        check_accepted(conv_model, &ok[i], TOSA_OP_CONV2D);
}

/* MatMul of two activations: int8 is emulated by Vela on U55 (int16 is refused, see
 * test_partition and test_inspect_program_cli). */
static float ma[2 * 3 * 4], mb[2 * 4 * 5];

static void matmul_model(lc_b *b, const void *arg)
{
    (void)arg;
    const int64_t as[3] = {2, 3, 4}, bs[3] = {2, 4, 5};
    int ins[2] = {lc_input(b, "a", 3, as, ma), lc_input(b, "b", 3, bs, mb)};
    lc_output(b, lc_out(b, lc_node(b, "MatMul", "mm", ins, 2, 1), 0));
}

static void test_matmul_int8_activations(void **state)
{
    (void)state;
    lc_fill(ma, 24, 5, 2.0f);
    lc_fill(mb, 40, 6, 2.0f);
    check_accepted(matmul_model, NULL, TOSA_OP_MATMUL);
}

/* ArgMax over the channels of an int8 tensor: at most 127 of them. */
static float ax[1 * 4 * 200];

typedef struct argmax_case {
    int64_t c;
} argmax_case;

static void argmax_model(lc_b *b, const void *arg)
{
    const argmax_case *ac = arg;
    const int64_t xs[3] = {1, 4, ac->c};
    int x = lc_input(b, "x", 3, xs, ax);
    int n = lc_node(b, "ArgMax", "am", &x, 1, 1);
    ir_node_set_int(lc_graph(b), n, "axis", 2, NULL);
    lc_output_plain(b, lc_out(b, n, 0));
}

static void test_argmax(void **state)
{
    (void)state;
    lc_fill(ax, 800, 9, 3.0f);
    argmax_case ok = {127}, big = {128};
    check_accepted(argmax_model, &ok, TOSA_OP_ARGMAX);
    check_refused(argmax_model, &big, "ArgMax: U55 restriction: ARGMAX over 128 channels (at "
                                      "most 127)");
}

/* Softmax lowers to CAST, REDUCE_MAX (int32), ... INTDIV: refused for its int32 REDUCE_MAX,
 * the first operator Ethos-U55 cannot place (as Vela itself reports). */
static float sx[2 * 10];

static void softmax_model(lc_b *b, const void *arg)
{
    (void)arg;
    const int64_t xs[2] = {2, 10};
    int x = lc_input(b, "x", 2, xs, sx);
    int n = lc_node(b, "Softmax", "sm", &x, 1, 1);
    ir_node_set_int(lc_graph(b), n, "axis", -1, NULL);
    lc_output(b, lc_out(b, n, 0));
}

static void test_softmax_reason(void **state)
{
    (void)state;
    lc_fill(sx, 20, 4, 3.0f);
    check_refused(softmax_model, NULL, "Softmax: U55 restriction: REDUCE_MAX of int32 is not "
                                       "supported on Ethos-U55 (it reduces with pooling: i8/i16 "
                                       "only)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_what_vela_splits),
        cmocka_unit_test(test_matmul_int8_activations),
        cmocka_unit_test(test_argmax),
        cmocka_unit_test(test_softmax_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
