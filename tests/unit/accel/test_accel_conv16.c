/* The a16w8 convolution family (rt_accel_conv16.c, src/ukernels/conv16*.c) against the
 * reference interpreter on every available variant: CONV2D, DEPTHWISE_CONV2D and
 * TRANSPOSE_CONV2D int16 x int8 -> int48 -> RESCALE -> (CLAMP), odd shapes, strides,
 * dilations, padding (negative out_pad too), K longer than the
 * exact int32 chunk, weight zero points -128 / 127, full-range int16 inputs, and RESCALE
 * shifts small enough that apply_scale_16's int32 REQUIRE fails (the reference must still
 * report it). */
#include "accel_testutil.h"

typedef struct conv_case {
    bool dw;
    int64_t N, IH, IW, IC, OC_or_M, KH, KW;
    int sy, sx, dy, dx, pt, pb, pl, pr;
    int wzp;
    bool per_channel, clamp, out8;
    int shift_lo;               /* RESCALE shifts in shift_lo .. shift_lo + 3 */
    int izp;                    /* input zero point (non-zero: the reference's ERROR_IF) */
    bool acc_out;               /* the int48 result is also a block output: no fusion */
    bool tr;                    /* TRANSPOSE_CONV2D: pads are out_pad, dilations unused */
} conv_case;

static int64_t out_dim(int64_t in, int p0, int p1, int64_t k, int d, int s)
{
    return (in - 1 + p0 + p1 - (k - 1) * d) / s + 1;
}

/* Builds and checks one case; returns the reference's success. */
static int run_case(const conv_case *k)
{
    at_graph t;
    at_new(&t);
    int64_t OH = k->tr ? (k->IH - 1) * k->sy + k->pt + k->pb + k->KH
                       : out_dim(k->IH, k->pt, k->pb, k->KH, k->dy, k->sy);
    int64_t OW = k->tr ? (k->IW - 1) * k->sx + k->pl + k->pr + k->KW
                       : out_dim(k->IW, k->pl, k->pr, k->KW, k->dx, k->sx);
    int64_t OC = k->dw ? k->IC * k->OC_or_M : k->OC_or_M;
    int64_t ishape[4] = {k->N, k->IH, k->IW, k->IC};
    int64_t wshape[4];
    if (k->dw) {
        int64_t s[4] = {k->KH, k->KW, k->IC, k->OC_or_M};
        memcpy(wshape, s, sizeof s);
    } else {
        int64_t s[4] = {OC, k->KH, k->KW, k->IC};
        memcpy(wshape, s, sizeof s);
    }
    int64_t oshape[4] = {k->N, OH, OW, OC};
    tosac_tensor wt, bt;
    at_random(&wt, TOSAC_DT_I8, 4, wshape, -128, 127);
    int64_t bshape[1] = {OC};
    at_random(&bt, TOSAC_DT_I48, 1, bshape, -(1 << 20), 1 << 20);
    int x = at_tensor(&t, TOSAC_DT_I16, 4, ishape, NULL);
    int cin[5] = {x, at_tensor(&t, TOSAC_DT_I8, 4, wshape, wt.data),
                  at_tensor(&t, TOSAC_DT_I48, 1, bshape, bt.data), at_scalar(&t, TOSAC_DT_I16, k->izp),
                  at_scalar(&t, TOSAC_DT_I8, k->wzp)};
    int acc = at_tensor(&t, TOSAC_DT_I48, 4, oshape, NULL);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.n_stride = 2;
    a.stride[0] = k->sy;
    a.stride[1] = k->sx;
    a.n_dilation = 2;
    a.dilation[0] = k->dy;
    a.dilation[1] = k->dx;
    a.n_pad = 4;
    a.pad[0] = k->pt;
    a.pad[1] = k->pb;
    a.pad[2] = k->pl;
    a.pad[3] = k->pr;
    a.acc_type = TOSAC_DT_I48;
    if (k->tr) {
        a.n_pad = a.n_dilation = 0;
        a.n_out_pad = 4;
        memcpy(a.out_pad, a.pad, sizeof a.out_pad);
    }
    at_op(&t, k->dw ? TOSA_OP_DEPTHWISE_CONV2D : k->tr ? TOSA_OP_TRANSPOSE_CONV2D : TOSA_OP_CONV2D,
          &a, cin, 5, acc);
    int y = at_i48_tail(&t, acc, 4, oshape, k->per_channel ? (int)OC : 1, k->per_channel,
                        k->shift_lo, k->out8, -7, k->clamp, k->out8 ? -100 : -3000,
                        k->out8 ? 90 : 20000);
    int outs[2] = {y, acc};
    at_io(&t, &x, 1, outs, k->acc_out ? 2 : 1);
    tosac_tensor in;
    at_random(&in, TOSAC_DT_I16, 4, ishape, INT16_MIN, INT16_MAX);
    ((int16_t *)in.data)[0] = INT16_MIN;
    /* conv, RESCALE (, CLAMP): one group, the others nops; declined (input zp) or not fused
     * (acc_out): the convolution on the reference, the RESCALE and CLAMP alone (ewise) */
    int installed = k->izp || k->acc_out ? (k->clamp ? 2 : 1) : (k->clamp ? 3 : 2);
    int nops = k->izp || k->acc_out ? 0 : k->clamp ? 2 : 1;
    int ok = at_check(&t, &in, 1, installed, nops);
    tosac_tensor_free(&in);
    tosac_tensor_free(&wt);
    tosac_tensor_free(&bt);
    at_free(&t);
    return ok;
}

static void test_conv2d(void **state)
{
    (void)state;
    tu_seed(11);
    const conv_case cases[] = {
        /* dw N  IH IW IC OC KH KW sy sx dy dx pt pb pl pr wzp pc clamp out8 shift */
        {false, 1, 7, 9, 3, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, true, true, false, 20, 0, false, false},
        {false, 2, 8, 7, 5, 7, 3, 2, 2, 1, 1, 2, 1, 0, 0, 1, -128, false, false, false, 22, 0, false, false},
        {false, 1, 5, 5, 600, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 127, true, true, true, 24, 0, false, false},
        {false, 1, 9, 11, 4, 6, 3, 3, 2, 2, 2, 1, 2, 2, 2, 2, 3, true, false, true, 18, 0, false, false},
        {false, 1, 6, 13, 2, 9, 5, 1, 1, 3, 1, 1, 2, 2, 0, 0, -1, false, true, false, 21, 0, false, false},
        {false, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 5, false, false, false, 16, 0, false, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_true(run_case(&cases[i]));
}

static void test_depthwise(void **state)
{
    (void)state;
    tu_seed(12);
    const conv_case cases[] = {
        {true, 1, 9, 7, 5, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, true, true, false, 18, 0, false, false},
        {true, 2, 8, 9, 3, 2, 3, 3, 2, 2, 1, 1, 1, 0, 1, 1, -128, true, false, false, 18, 0, false, false},
        {true, 1, 11, 10, 17, 1, 5, 3, 1, 2, 2, 1, 4, 4, 1, 0, 127, false, true, true, 20, 0, false, false},
        {true, 1, 4, 4, 33, 3, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 9, true, true, false, 17, 0, false, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_true(run_case(&cases[i]));
}

/* TRANSPOSE_CONV2D: strides 1..3, kernels smaller and larger than the stride (output pixels
 * no tap reaches), negative and positive out_pad, channels past the 16-lane blocks and K past
 * the int32 chunk. */
static void test_transpose(void **state)
{
    (void)state;
    tu_seed(15);
    conv_case cases[] = {
        /* dw N  IH IW IC OC KH KW sy sx dy dx pt pb pl pr wzp pc clamp out8 shift */
        {false, 1, 4, 5, 3, 5, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 0, true, true, false, 18, 0, false, false},
        {false, 2, 3, 4, 7, 17, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, -128, false, false, false, 19, 0, false, false},
        {false, 1, 5, 3, 4, 6, 3, 2, 1, 3, 1, 1, -1, -2, 1, -1, 127, true, false, true, 20, 0, false, false},
        {false, 1, 3, 3, 300, 3, 2, 3, 3, 1, 1, 1, 2, 1, 0, 2, 3, true, true, false, 24, 0, false, false},
        {false, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 5, false, false, true, 16, 0, false, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cases[i].tr = true;
        assert_true(run_case(&cases[i]));
    }
    conv_case bad = {false, 1, 5, 5, 8, 4, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 0, true, true, false, 2, 0, false, false};
    bad.tr = true;
    assert_false(run_case(&bad)); /* apply_scale_16's REQUIRE, reported as the reference does */
    bad.shift_lo = 20;
    bad.izp = 4;
    assert_false(run_case(&bad)); /* input zero point: declined, the reference's ERROR_IF */
}

/* Shift 2..5: apply_scale_16's result leaves int32 for large sums; the reference fails and
 * the accelerated run reports the same. */
static void test_require_failure(void **state)
{
    (void)state;
    tu_seed(13);
    conv_case c = {false, 1, 5, 5, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, true, true, false, 2, 0, false, false};
    assert_false(run_case(&c));
    conv_case d = {true, 1, 5, 5, 8, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, true, false, false, 2, 0, false, false};
    assert_false(run_case(&d));
}

/* Left to the reference: an input zero point (ERROR_IF for int16: the reference reports),
 * and a convolution whose int48 result is read outside the group (runs alone, unfused). */
static void test_declines(void **state)
{
    (void)state;
    tu_seed(14);
    conv_case c = {false, 1, 5, 5, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, true, true, false, 20, 0, false, false};
    c.izp = 5;
    assert_false(run_case(&c));
    c.izp = 0;
    c.acc_out = true;
    assert_true(run_case(&c));
    conv_case d = {true, 1, 5, 5, 8, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, true, false, false, 20, 0, false, false};
    d.izp = -3;
    assert_false(run_case(&d));
}

int main(void)
{
    at_print_variants("conv16");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv2d),
        cmocka_unit_test(test_depthwise),
        cmocka_unit_test(test_transpose),
        cmocka_unit_test(test_require_failure),
        cmocka_unit_test(test_declines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
