/* Accelerated TRANSPOSE_CONV2D -> RESCALE (-> CLAMP), every kernel variant this machine runs,
 * against the reference interpreter byte for byte: strides, negative and positive out_pad
 * (cropping and growing), odd input channel counts (a half pair), output channels off the
 * vector block, extreme zero points, the rounding modes, N > 1, a (serial) thread pool; each
 * run checks the family installed itself, and a value breaking apply_scale_32's REQUIRE fails
 * the accelerated run as it fails the reference. */
#include "testutil.h"

#include "accel_run_testutil.h"

typedef struct tc_case {
    int N, H, W, IC, OC, KH, KW, sy, sx, pt, pb, pl, pr;
    int izp, wzp, bias1, expect_error;
    at_q8 q;
} tc_case;

static tosac_tensor g_in;

static tosa_graph *build(const tc_case *c)
{
    tosa_graph *g;
    tosa_block *b = at_graph(&g);
    int OH = (c->H - 1) * c->sy + c->pt + c->pb + c->KH;
    int OW = (c->W - 1) * c->sx + c->pl + c->pr + c->KW;
    int64_t ish[4] = {c->N, c->H, c->W, c->IC}, wsh[4] = {c->OC, c->KH, c->KW, c->IC};
    int64_t osh[4] = {c->N, OH, OW, c->OC}, bc = c->bias1 ? 1 : c->OC;
    size_t nw = (size_t)c->OC * (size_t)c->KH * (size_t)c->KW * (size_t)c->IC;
    int8_t *w = malloc(nw);
    at_fill_i8(w, nw, -128, 127);
    int32_t *bias = malloc(sizeof(int32_t) * (size_t)bc);
    for (int i = 0; i < bc; i++)
        bias[i] = (int32_t)at_rand(-40000, 40000);
    int x = at_tensor(b, TOSAC_DT_I8, 4, ish);
    int tw = at_const(b, TOSAC_DT_I8, 4, wsh, w, nw);
    int tb = at_const(b, TOSAC_DT_I32, 1, &bc, bias, sizeof(int32_t) * (size_t)bc);
    int tiz = at_const_i8(b, (int8_t)c->izp), twz = at_const_i8(b, (int8_t)c->wzp);
    int acc = at_tensor(b, TOSAC_DT_I32, 4, osh);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.n_stride = 2, a.stride[0] = c->sy, a.stride[1] = c->sx;
    a.n_out_pad = 4, a.out_pad[0] = c->pt, a.out_pad[1] = c->pb, a.out_pad[2] = c->pl;
    a.out_pad[3] = c->pr, a.acc_type = TOSAC_DT_I32;
    int in5[5] = {x, tw, tb, tiz, twz};
    assert_true(tosa_block_add_op(b, TOSA_OP_TRANSPOSE_CONV2D, &a, in5, 5, &acc, 1, NULL) >= 0);
    int y = at_q8_tail(b, acc, osh, &c->q);
    assert_int_equal(tosa_block_set_io(b, &x, 1, &y, 1, NULL), TOSAC_OK);
    at_input_i8(&g_in, ish, -128, 127);
    free(w), free(bias);
    return g;
}

static void check_case(tc_case c)
{
    c.N = c.N ? c.N : 1;
    tosa_graph *g = build(&c);
    at_check_variants(g, &g_in, 2 + (c.q.clamp != 0), c.expect_error); /* TC, RESCALE (, CLAMP) */
    free(g_in.data);
    tosa_graph_free(g);
}

/* an upsampling layer: 3x3, stride 2, 32 output channels (one AVX2 block) */
static void test_stride2_upsample(void **state)
{
    check_case((tc_case){.H = 4, .W = 5, .IC = 16, .OC = 32, .KH = 3, .KW = 3, .sy = 2, .sx = 2,
                         .izp = -7, .q = {.slo = 36, .shi = 44, .ozp = 3}});
}

/* 7 input channels (a half pair), 37 outputs (32 + a 5-channel tail), out_pad cropping and
 * growing, N = 2, extreme zero points, DOUBLE_ROUND, a CLAMP */
static void test_odd_channels_out_pad_clamp(void **state)
{
    check_case((tc_case){.N = 2, .H = 3, .W = 4, .IC = 7, .OC = 37, .KH = 2, .KW = 3, .sy = 2,
                         .sx = 3, .pt = -1, .pb = 1, .pl = 2, .pr = -2, .izp = 127, .wzp = -128,
                         .q = {.slo = 31, .shi = 40, .ozp = -128, .rm = 2, .clamp = 1,
                               .cmin = -100, .cmax = 20}});
}

/* stride 1, a 4x1 kernel, 8 output channels (no vector block), one scale and one bias */
static void test_stride1_per_tensor(void **state)
{
    check_case((tc_case){.H = 5, .W = 3, .IC = 12, .OC = 8, .KH = 4, .KW = 1, .sy = 1, .sx = 1,
                         .izp = -128, .wzp = 127, .bias1 = 1,
                         .q = {.slo = 40, .shi = 62, .mlo = 0, .mhi = INT32_MAX, .per_tensor = 1,
                               .rm = 1, .ozp = 127}});
}

/* shift 2 on full-range data breaks the REQUIRE: both runs fail (vector block only) */
static void test_require(void **state)
{
    check_case((tc_case){.H = 2, .W = 2, .IC = 4, .OC = 32, .KH = 2, .KW = 2, .sy = 1, .sx = 1,
                         .expect_error = 1, .q = {.slo = 2, .shi = 2}});
}

int main(void)
{
    at_print_variants("tconv");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stride2_upsample),
        cmocka_unit_test(test_odd_channels_out_pad_clamp),
        cmocka_unit_test(test_stride1_per_tensor),
        cmocka_unit_test(test_require),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
