/* Accelerated DEPTHWISE_CONV2D -> RESCALE (-> CLAMP), every kernel variant this machine runs,
 * against the reference interpreter byte for byte: random and extreme data and zero points,
 * per-channel and per-tensor scales, the three rounding modes, shifts 2..62, strides,
 * dilations, padding (windows wholly in the padding too), odd tap counts, channel counts off
 * the vector width, N > 1, a (serial) thread pool. Each run also checks the family installed
 * itself (a family that silently declines fails), and that a value breaking apply_scale_32's
 * REQUIRE fails the accelerated run as it fails the reference. */
#include "testutil.h"

#include "accel_run_testutil.h"

typedef struct dw_case {
    int N, H, W, C, KH, KW, sy, sx, dy, dx, pt, pb, pl, pr;
    int xlo, xhi, wlo, whi;     /* data ranges */
    int izp, wzp;
    int32_t blo, bhi;           /* bias range */
    int bias1;
    at_q8 q;
    int expect_error;           /* the reference fails (REQUIRE) */
} dw_case;

static tosac_tensor g_in;

/* Fields left 0 take the common values: N, strides and dilations 1, full int8 data ranges,
 * biases within +-50000. */
static void defaults(dw_case *c)
{
    int *one[] = {&c->N, &c->sy, &c->sx, &c->dy, &c->dx};
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
        *one[i] = *one[i] ? *one[i] : 1;
    if (!c->xlo && !c->xhi)
        c->xlo = -128, c->xhi = 127;
    if (!c->wlo && !c->whi)
        c->wlo = -128, c->whi = 127;
    if (!c->blo && !c->bhi)
        c->blo = -50000, c->bhi = 50000;
}

/* The graph of c; fills g_in with random input. */
static tosa_graph *build(const dw_case *c)
{
    tosa_graph *g;
    tosa_block *b = at_graph(&g);
    int OH = (c->H - 1 + c->pt + c->pb - (c->KH - 1) * c->dy) / c->sy + 1;
    int OW = (c->W - 1 + c->pl + c->pr - (c->KW - 1) * c->dx) / c->sx + 1;
    int64_t ish[4] = {c->N, c->H, c->W, c->C}, wsh[4] = {c->KH, c->KW, c->C, 1};
    int64_t osh[4] = {c->N, OH, OW, c->C}, bc = c->bias1 ? 1 : c->C;
    size_t nw = (size_t)c->KH * (size_t)c->KW * (size_t)c->C;
    int8_t *w = malloc(nw);
    at_fill_i8(w, nw, c->wlo, c->whi);
    int32_t *bias = malloc(sizeof(int32_t) * (size_t)bc);
    for (int i = 0; i < bc; i++)
        bias[i] = (int32_t)at_rand(c->blo, c->bhi);
    int x = at_tensor(b, TOSAC_DT_I8, 4, ish);
    int tw = at_const(b, TOSAC_DT_I8, 4, wsh, w, nw);
    int tb = at_const(b, TOSAC_DT_I32, 1, &bc, bias, sizeof(int32_t) * (size_t)bc);
    int tiz = at_const_i8(b, (int8_t)c->izp), twz = at_const_i8(b, (int8_t)c->wzp);
    int acc = at_tensor(b, TOSAC_DT_I32, 4, osh);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.n_stride = 2, a.stride[0] = c->sy, a.stride[1] = c->sx;
    a.n_dilation = 2, a.dilation[0] = c->dy, a.dilation[1] = c->dx;
    a.n_pad = 4, a.pad[0] = c->pt, a.pad[1] = c->pb, a.pad[2] = c->pl, a.pad[3] = c->pr;
    a.acc_type = TOSAC_DT_I32;
    int in5[5] = {x, tw, tb, tiz, twz};
    assert_true(tosa_block_add_op(b, TOSA_OP_DEPTHWISE_CONV2D, &a, in5, 5, &acc, 1, NULL) >= 0);
    int y = at_q8_tail(b, acc, osh, &c->q);
    assert_int_equal(tosa_block_set_io(b, &x, 1, &y, 1, NULL), TOSAC_OK);
    at_input_i8(&g_in, ish, c->xlo, c->xhi);
    free(w), free(bias);
    return g;
}

/* The reference run, then every variant (1 and 3 threads): equal bytes, family installed. */
static void check_case(const dw_case *cc)
{
    dw_case d = *cc, *c = &d;
    defaults(c);
    tosa_graph *g = build(c);
    at_check_variants(g, &g_in, 2 + (c->q.clamp != 0), c->expect_error); /* DW, RESCALE (, CLAMP) */
    free(g_in.data);
    tosa_graph_free(g);
}

/* mobilenet_v2's shape of layer: 3x3, stride 1, pad 1, channels a multiple of 32 */
static void test_mobilenet_3x3_s1(void **state)
{
    dw_case c = {.H = 9, .W = 11, .C = 64, .KH = 3, .KW = 3, .pt = 1, .pb = 1, .pl = 1,
                 .pr = 1, .izp = -5, .wzp = 0, .q.ozp = -128, .q.slo = 33, .q.shi = 40};
    check_case(&c);
}

/* stride 2 with pad [1,0,1,0]; 20 channels: one vector of 16 and a 4-channel tail */
static void test_stride2_tail_channels(void **state)
{
    dw_case c = {.H = 10, .W = 12, .C = 20, .KH = 3, .KW = 3, .sy = 2, .sx = 2, .pt = 1,
                 .pb = 0, .pl = 1, .pr = 0, .izp = 17, .wzp = -3, .q.ozp = 4, .q.slo = 34, .q.shi = 45};
    check_case(&c);
}

/* 1x5 taps (odd count), dilation 2x3, N = 2, 7 channels (no full vector), DOUBLE_ROUND with
 * shifts around 31 (its 2^30 adjustment applies above 31), a CLAMP after the RESCALE */
static void test_dilation_odd_taps_double_round_clamp(void **state)
{
    dw_case c = {.N = 2, .H = 7, .W = 15, .C = 23, .KH = 1, .KW = 5, .dy = 2, .dx = 3,
                 .pt = 0, .pb = 0, .pl = 2, .pr = 3, .izp = -128, .wzp = 127, .q.ozp = 10,
                 .q.slo = 32, .q.shi = 38, .q.rm = 2, .q.clamp = 1, .q.cmin = -50,
                 .q.cmax = 90};
    check_case(&c);
    dw_case d = c; /* full vectors (32 + 16 on AVX-512) under DOUBLE_ROUND, shifts 32..34
                    * where its 2^30 moves results most, both signs of v */
    d.C = 48, d.KH = 3, d.KW = 3, d.dy = 1, d.dx = 1, d.pt = d.pb = d.pl = d.pr = 1;
    d.q.slo = 32, d.q.shi = 34, d.q.clamp = 0, d.izp = 0, d.q.ozp = 0;
    check_case(&d);
}

/* 48 channels (3 AVX2 steps, 32 + 16 on AVX-512), extreme zero points and saturating data,
 * one scale for all channels, one bias value, INEXACT_ROUND, shifts up to 62 */
static void test_extremes_per_tensor(void **state)
{
    dw_case c = {.H = 6, .W = 5, .C = 48, .KH = 3, .KW = 3, .pt = 2, .pb = 2, .pl = 1,
                 .pr = 1, .izp = 127, .wzp = -128, .q.ozp = 127, .q.slo = 36, .q.shi = 62,
                 .q.mlo = 0, .q.mhi = INT32_MAX, .q.per_tensor = 1, .bias1 = 1,
                 .q.rm = 1};
    check_case(&c);
    dw_case d = c;
    d.izp = -128, d.wzp = 127, d.q.ozp = -128, d.q.slo = 20, d.q.shi = 24, d.q.rm = 2;
    d.q.per_tensor = 0, d.bias1 = 0;
    check_case(&d); /* results clip at both ends */
}

/* a 1x1 kernel with padding 2: the border pixels' windows lie wholly in the padding */
static void test_window_in_padding(void **state)
{
    dw_case c = {.H = 3, .W = 4, .C = 33, .KH = 1, .KW = 1, .pt = 2, .pb = 2, .pl = 2,
                 .pr = 2, .izp = 3, .wzp = 1, .q.ozp = 0, .q.slo = 30, .q.shi = 33};
    check_case(&c);
}

/* small shifts (value REQUIRE checked by the kernel) on data that respects it; then shift 2
 * with data that breaks it: both runs fail */
static void test_small_shifts_and_require(void **state)
{
    dw_case c = {.H = 5, .W = 6, .C = 40, .KH = 3, .KW = 3, .pt = 1, .pb = 1, .pl = 1,
                 .pr = 1, .xlo = -3, .xhi = 3, .wlo = -4, .whi = 4, .izp = 0, .wzp = 0,
                 .q.ozp = 0, .q.slo = 9, .q.shi = 12, .blo = -100, .bhi = 100, .q.mlo = 1,
                 .q.mhi = 1 << 12};
    check_case(&c);
    dw_case d = c;
    d.xlo = -128, d.xhi = 127, d.wlo = -128, d.whi = 127, d.q.slo = 2, d.q.shi = 2;
    d.C = 32; /* no portable tail: the vector code must see it */
    d.expect_error = 1;
    check_case(&d);
}

int main(void)
{
    at_print_variants("dwconv");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mobilenet_3x3_s1),
        cmocka_unit_test(test_stride2_tail_channels),
        cmocka_unit_test(test_dilation_odd_taps_double_round_clamp),
        cmocka_unit_test(test_extremes_per_tensor),
        cmocka_unit_test(test_window_in_padding),
        cmocka_unit_test(test_small_shifts_and_require),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
