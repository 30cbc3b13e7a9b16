/* Accelerated MAX_POOL2D / AVG_POOL2D (int8, int16), every kernel variant this machine runs,
 * against the reference interpreter byte for byte: extreme data and zero points, padding
 * (windows with fewer counted cells at the borders), strides, global pooling, odd channel
 * counts, N > 1, a (serial) thread pool; each run checks that the family installed itself. */
#include "testutil.h"

#include "accel_run_testutil.h"

typedef struct pool_case {
    int avg, i16;
    int N, H, W, C, KY, KX, SY, SX, PT, PB, PL, PR;
    int izp, ozp;
} pool_case;

static tosac_tensor g_in;

static tosa_graph *build(const pool_case *c)
{
    tosa_graph *g;
    tosa_block *b = at_graph(&g);
    tosac_dtype dt = c->i16 ? TOSAC_DT_I16 : TOSAC_DT_I8;
    int OH = (c->H + c->PT + c->PB - c->KY) / c->SY + 1;
    int OW = (c->W + c->PL + c->PR - c->KX) / c->SX + 1;
    int64_t ish[4] = {c->N, c->H, c->W, c->C}, osh[4] = {c->N, OH, OW, c->C}, one = 1;
    int x = at_tensor(b, dt, 4, ish), y = at_tensor(b, dt, 4, osh);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.n_kernel = 2, a.kernel[0] = c->KY, a.kernel[1] = c->KX;
    a.n_stride = 2, a.stride[0] = c->SY, a.stride[1] = c->SX;
    a.n_pad = 4, a.pad[0] = c->PT, a.pad[1] = c->PB, a.pad[2] = c->PL, a.pad[3] = c->PR;
    if (c->avg) {
        a.acc_type = TOSAC_DT_I32;
        int16_t iz = (int16_t)c->izp, oz = (int16_t)c->ozp;
        int in3[3] = {x, c->i16 ? at_const(b, dt, 1, &one, &iz, 2) : at_const_i8(b, (int8_t)c->izp),
                      c->i16 ? at_const(b, dt, 1, &one, &oz, 2) : at_const_i8(b, (int8_t)c->ozp)};
        assert_true(tosa_block_add_op(b, TOSA_OP_AVG_POOL2D, &a, in3, 3, &y, 1, NULL) >= 0);
    } else {
        a.nan_mode = TOSA_NAN_PROPAGATE;
        assert_true(tosa_block_add_op(b, TOSA_OP_MAX_POOL2D, &a, &x, 1, &y, 1, NULL) >= 0);
    }
    assert_int_equal(tosa_block_set_io(b, &x, 1, &y, 1, NULL), TOSAC_OK);
    size_t n = (size_t)c->N * (size_t)c->H * (size_t)c->W * (size_t)c->C;
    memset(&g_in, 0, sizeof g_in);
    g_in.dtype = dt, g_in.rank = 4;
    memcpy(g_in.shape, ish, sizeof ish);
    g_in.nbytes = n * (c->i16 ? 2 : 1);
    g_in.data = malloc(g_in.nbytes);
    for (size_t i = 0; i < n; i++) {
        int64_t v = c->i16 ? at_rand(INT16_MIN, INT16_MAX) : at_rand(INT8_MIN, INT8_MAX);
        if (i % 7 == 3) /* runs of the extremes: saturated windows */
            v = c->i16 ? (i % 2 ? INT16_MIN : INT16_MAX) : (i % 2 ? INT8_MIN : INT8_MAX);
        if (c->i16)
            ((int16_t *)g_in.data)[i] = (int16_t)v;
        else
            ((int8_t *)g_in.data)[i] = (int8_t)v;
    }
    return g;
}

static void check_case(pool_case c)
{
    int *one[] = {&c.N, &c.SY, &c.SX};
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
        *one[i] = *one[i] ? *one[i] : 1;
    tosa_graph *g = build(&c);
    at_check_variants(g, &g_in, 1, 0);
    free(g_in.data);
    tosa_graph_free(g);
}

/* resnet18's pool: 3x3, stride 2, pad [1,0,1,0], 64 channels */
static void test_max_i8_resnet(void **state)
{
    check_case((pool_case){.H = 12, .W = 10, .C = 64, .KY = 3, .KX = 3, .SY = 2, .SX = 2,
                           .PT = 1, .PL = 1});
}

static void test_max_i16_odd(void **state)
{
    check_case((pool_case){.i16 = 1, .N = 2, .H = 7, .W = 9, .C = 5, .KY = 2, .KX = 3, .SY = 1,
                           .SX = 3, .PT = 1, .PB = 0, .PL = 2, .PR = 1});
}

/* mobilenet_v2's global pool (7x7 over 7x7), extreme zero points */
static void test_avg_i8_global(void **state)
{
    check_case((pool_case){.avg = 1, .H = 7, .W = 7, .C = 40, .KY = 7, .KX = 7, .izp = -128,
                           .ozp = 127});
    check_case((pool_case){.avg = 1, .H = 7, .W = 7, .C = 33, .KY = 7, .KX = 7, .izp = 127,
                           .ozp = -128});
}

/* padding: border windows count 4, 6 or 9 cells (different reciprocal scales) */
static void test_avg_i8_padded(void **state)
{
    check_case((pool_case){.avg = 1, .N = 2, .H = 6, .W = 5, .C = 17, .KY = 3, .KX = 3,
                           .PT = 1, .PB = 1, .PL = 1, .PR = 1, .izp = 5, .ozp = -3});
}

static void test_avg_i16(void **state)
{
    check_case((pool_case){.avg = 1, .i16 = 1, .H = 9, .W = 8, .C = 19, .KY = 3, .KX = 2,
                           .SY = 2, .SX = 2, .PT = 1, .PB = 1, .PL = 1, .PR = 1});
}

int main(void)
{
    at_print_variants("pool");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_max_i8_resnet),
        cmocka_unit_test(test_max_i16_odd),
        cmocka_unit_test(test_avg_i8_global),
        cmocka_unit_test(test_avg_i8_padded),
        cmocka_unit_test(test_avg_i16),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
