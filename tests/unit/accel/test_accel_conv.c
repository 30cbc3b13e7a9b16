/* The accelerated CONV2D family (src/runtime/accel/rt_accel_conv.c on src/ukernels/qgemm*):
 * for every kernel variant this build and CPU can run (KERN_ISA_LIST), small graphs
 * CONV2D -> RESCALE (-> CLAMP) run on the reference interpreter and on a state the families
 * prepared, and must give the same bytes (or the same error message), with the group
 * actually installed (a family that silently declines fails the count).
 *
 * - test_conv_shapes: 3x3 / 1x1 direct / 7x7 stride 2 / dilated / asymmetric padding / odd
 *   channel counts (OC 1, 19, 70: tails of every tile) / K not a multiple of any k group /
 *   batch 2; input_zp -128 and 127; per-channel shifts giving int8-sized results (and one
 *   channel in 8 anywhere in 32..62, multiplier anywhere in 0..2^31-1);
 *   SINGLE and DOUBLE rounding; output_zp at both ends (saturation).
 * - test_conv_clamp_fused: a CLAMP after the RESCALE is part of the group (3 ops).
 * - test_conv_unfused_i32: a CONV2D whose result is not RESCALEd runs alone, int32 out.
 * - test_conv_small_shifts: shifts 2..31 where the values fit (small weights), and where one
 *   does not: the reference's REQUIRE failure, with the reference's exact message.
 * - test_conv_threads: a fake pool running the tasks backwards on 3 thread ids (own scratch
 *   slices) gives the same bytes.
 * - test_conv_declines: weight_zp != 0 and a non-constant weight leave CONV2D to the
 *   reference (0 installed), same result. */
#include "qgemm_testutil.h"

typedef struct conv_case {
    int n, ih, iw, ic, oc, kh, kw, sy, sx, dy, dx, pad[4];
    int izp, wzp, ozp;
    int wmax;                   /* |weight| <= wmax */
    int shift_lo, shift_hi;     /* per-channel shifts drawn from here */
    int double_round, per_channel;
    int rescale, clamp;         /* follow the CONV2D with a RESCALE (and a CLAMP) */
    int clamp_lo, clamp_hi;
    int weight_input;           /* the weight is a graph input (not constant) */
} conv_case;

/* Builds the graph of cc; the input tensor gets random data in *x. */
static void build(cg *t, const conv_case *cc, tosac_tensor *x, tosac_tensor *wx)
{
    cg_new(t);
    int oh = (cc->ih - 1 + cc->pad[0] + cc->pad[1] - (cc->kh - 1) * cc->dy) / cc->sy + 1;
    int ow = (cc->iw - 1 + cc->pad[2] + cc->pad[3] - (cc->kw - 1) * cc->dx) / cc->sx + 1;
    int64_t is[4] = {cc->n, cc->ih, cc->iw, cc->ic}, ws[4] = {cc->oc, cc->kh, cc->kw, cc->ic};
    int64_t os[4] = {cc->n, oh, ow, cc->oc};
    size_t nw = (size_t)cc->oc * cc->kh * cc->kw * cc->ic;
    int8_t *w = malloc(nw);
    for (size_t i = 0; i < nw; i++)
        w[i] = (int8_t)rnd_in(-cc->wmax, cc->wmax < 128 ? cc->wmax : 127);
    int64_t *bias = malloc(sizeof(int64_t) * (size_t)cc->oc);
    for (int i = 0; i < cc->oc; i++)
        bias[i] = cc->wmax > 16 ? (int64_t)(int32_t)tu_rand() / 4096 : rnd_in(-1000, 1000);
    int in = cg_tensor(t, TOSAC_DT_I8, 4, is, NULL);
    int wt = cg_tensor(t, TOSAC_DT_I8, 4, ws, cc->weight_input ? NULL : w);
    int ins[5] = {in, wt, cg_const(t, TOSAC_DT_I32, cc->oc, bias), cg_scalar(t, TOSAC_DT_I8, cc->izp),
                  cg_scalar(t, TOSAC_DT_I8, cc->wzp)};
    int conv = cg_tensor(t, TOSAC_DT_I32, 4, os, NULL);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.n_stride = a.n_dilation = 2;
    a.n_pad = 4;
    a.stride[0] = cc->sy;
    a.stride[1] = cc->sx;
    a.dilation[0] = cc->dy;
    a.dilation[1] = cc->dx;
    memcpy(a.pad, cc->pad, sizeof cc->pad);
    a.acc_type = TOSAC_DT_I32;
    cg_op(t, TOSA_OP_CONV2D, &a, ins, 5, conv);
    qt_rq rq = {cc->rescale, cc->clamp, cc->clamp_lo, cc->clamp_hi, cc->ozp, cc->shift_lo,
                cc->shift_hi, cc->double_round, cc->per_channel, cc->wmax > 16 ? 21 : 15, 0};
    int last = qt_append_requant(t, conv, 4, os, cc->oc, &rq);
    tosac_error err;
    tosac_error_clear(&err);
    int gin[2] = {in, wt};
    assert_int_equal(tosa_block_set_io(t->b, gin, cc->weight_input ? 2 : 1, &last, 1, &err), TOSAC_OK);
    qt_random_i8(x, 4, is);
    if (wx) {
        memset(wx, 0, sizeof *wx);
        wx->dtype = TOSAC_DT_I8;
        wx->rank = 4;
        memcpy(wx->shape, ws, sizeof ws);
        wx->nbytes = nw;
        wx->data = w;
        wx->owns_data = 1;
    } else {
        free(w);
    }
    free(bias);
}

static int check(const conv_case *cc, int want_installed, int threads)
{
    cg t;
    tosac_tensor in[2];
    build(&t, cc, &in[0], cc->weight_input ? &in[1] : NULL);
    return qt_check(&t, in, cc->weight_input ? 2 : 1, want_installed, threads);
}

static conv_case base(void)
{
    conv_case c = {.n = 1, .ih = 9, .iw = 11, .ic = 5, .oc = 19, .kh = 3, .kw = 3, .sy = 1, .sx = 1,
                   .dy = 1, .dx = 1, .pad = {1, 1, 1, 1}, .izp = -128, .ozp = 0, .wmax = 128,
                   .shift_lo = 44, .shift_hi = 54, .per_channel = 1, .rescale = 1};
    return c;
}

static void test_conv_shapes(void **state)
{
    (void)state;
    qt_print_variants("conv");
    tu_seed(11);
    conv_case c = base(); /* 3x3 pad 1, K = 45 */
    assert_true(check(&c, 2, 0));
    c.izp = 127;
    c.ozp = 127;
    c.n = 2;
    assert_true(check(&c, 2, 0));
    c.ozp = -3; /* DOUBLE_ROUND's +-2^30 changes results only for shifts near 32 */
    c.double_round = 1;
    c.shift_lo = 32;
    c.shift_hi = 34;
    assert_true(check(&c, 2, 0));
    c = base(); /* 1x1 direct, crossing the 64-column block, K = 33 */
    c.kh = c.kw = 1;
    memset(c.pad, 0, sizeof c.pad);
    c.ic = 33;
    c.oc = 70;
    c.ozp = -128;
    assert_true(check(&c, 2, 0));
    c.oc = 1; /* N = 1 */
    c.per_channel = 0;
    assert_true(check(&c, 2, 0));
    c = base(); /* 7x7 stride 2, asymmetric padding, K = 147 */
    c.ih = c.iw = 20;
    c.ic = 3;
    c.oc = 16;
    c.kh = c.kw = 7;
    c.sy = c.sx = 2;
    int p0[4] = {3, 2, 3, 2};
    memcpy(c.pad, p0, sizeof p0);
    assert_true(check(&c, 2, 0));
    c = base(); /* dilation 2 and 3, 1x1 stride 2, uneven pads */
    c.ih = 13;
    c.iw = 12;
    c.dy = 2;
    c.dx = 3;
    c.ic = 7;
    int p1[4] = {0, 2, 3, 1};
    memcpy(c.pad, p1, sizeof p1);
    c.oc = 64;
    assert_true(check(&c, 2, 0));
    c = base();
    c.kh = c.kw = 1;
    c.sy = c.sx = 2;
    memset(c.pad, 0, sizeof c.pad);
    c.ih = 9;
    c.iw = 7;
    c.ic = 64;
    c.oc = 130;
    assert_true(check(&c, 2, 0));
}

static void test_conv_clamp_fused(void **state)
{
    (void)state;
    tu_seed(12);
    conv_case c = base();
    c.clamp = 1;
    c.clamp_lo = -100;
    c.clamp_hi = 50;
    c.oc = 33;
    assert_true(check(&c, 3, 0));
}

static void test_conv_unfused_i32(void **state)
{
    (void)state;
    tu_seed(13);
    conv_case c = base();
    c.rescale = 0;
    c.izp = 77;
    c.oc = 17;
    assert_true(check(&c, 1, 0));
}

static void test_conv_small_shifts(void **state)
{
    (void)state;
    tu_seed(14);
    conv_case c = base(); /* |acc| <= 45 * 255 * 3 + bias 1000 < 2^15: fits shifts >= 17 */
    c.wmax = 3;
    c.shift_lo = 17;
    c.shift_hi = 31;
    c.double_round = 1;
    assert_true(check(&c, 2, 0));
    c.shift_lo = 2; /* some value exceeds 2^(shift-1): the reference's REQUIRE error */
    c.shift_hi = 4;
    assert_false(check(&c, 2, 0));
}

static void test_conv_threads(void **state)
{
    (void)state;
    tu_seed(15);
    conv_case c = base();
    c.ih = 30;
    c.iw = 31;
    c.ic = 40;
    c.oc = 24;
    assert_true(check(&c, 2, 1));
    c.kh = c.kw = 1; /* direct */
    memset(c.pad, 0, sizeof c.pad);
    assert_true(check(&c, 2, 1));
}

static void test_conv_declines(void **state)
{
    (void)state;
    tu_seed(16);
    conv_case c = base();
    c.wzp = 3;
    check(&c, 0, 0);
    c = base();
    c.weight_input = 1;
    assert_true(check(&c, 0, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_shapes),       cmocka_unit_test(test_conv_clamp_fused),
        cmocka_unit_test(test_conv_unfused_i32),  cmocka_unit_test(test_conv_small_shifts),
        cmocka_unit_test(test_conv_threads),      cmocka_unit_test(test_conv_declines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
