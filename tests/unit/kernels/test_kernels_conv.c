/* Convolution, transposed convolution, Gemm and pooling kernels on small inputs whose
 * results are worked out by hand (comments show the arithmetic). */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "kernels/conv.h"
#include "kernels/gemm.h"
#include "kernels/pool.h"

/* Runs kern_conv_f32 with scratch of the size it asks for. */
static void conv_f32(const kern_conv_params *p, const float *x, const float *w, const float *b,
                     float *y)
{
    float *s = malloc(kern_conv_f32_scratch(p) * sizeof(float) + 1);
    assert_non_null(s);
    kern_conv_f32(p, x, w, b, y, s);
    free(s);
}

static void gemm_f32(const kern_gemm_params *p, const float *a, const float *b, const float *c,
                     float *y)
{
    float *s = malloc(kern_gemm_f32_scratch(p) * sizeof(float) + 1);
    assert_non_null(s);
    kern_gemm_f32(p, a, b, c, y, s);
    free(s);
}

static const float x9[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}; /* 3x3 image */

static kern_conv_params conv2d(int64_t k, int64_t out, int64_t s, int64_t pad)
{
    kern_conv_params p = {.nsp = 2, .n = 1, .c = 1, .m = 1, .group = 1};
    for (int i = 0; i < 2; i++) {
        p.in[i] = 3;
        p.k[i] = k;
        p.out[i] = out;
        p.stride[i] = s;
        p.dil[i] = 1;
        p.pad[i] = pad;
    }
    return p;
}

static void test_conv2d(void **state)
{
    (void)state;
    const float w[4] = {1, 0, 0, -1}; /* y = x[i][j] - x[i+1][j+1] */
    float y[4], bias = 0.5f;
    kern_conv_params p = conv2d(2, 2, 1, 0);
    conv_f32(&p, x9, w, &bias, y);
    for (int i = 0; i < 4; i++)
        assert_true(y[i] == -3.5f);
    /* pad 1, stride 2: windows start at -1 and 1; the zero padding drops x[-1][*] terms */
    p = conv2d(2, 2, 2, 1);
    conv_f32(&p, x9, w, NULL, y);
    assert_true(y[0] == -1 && y[1] == -3 && y[2] == -7 && y[3] == 5 - 9);
}

static void test_conv_groups_and_dilation(void **state)
{
    (void)state;
    /* depthwise: 2 channels, 1x1 kernels [2], [3] */
    kern_conv_params p = {.nsp = 1, .n = 1, .c = 2, .m = 2, .group = 2,
                          .in = {2}, .k = {1}, .out = {2}, .stride = {1}, .dil = {1}, .pad = {0}};
    float x[4] = {1, 2, 10, 20}, w[2] = {2, 3}, y[4];
    conv_f32(&p, x, w, NULL, y);
    assert_true(y[0] == 2 && y[1] == 4 && y[2] == 30 && y[3] == 60);
    /* 1-D, kernel [1, 1] with dilation 2: y[o] = x[o] + x[o+2] */
    kern_conv_params d = {.nsp = 1, .n = 1, .c = 1, .m = 1, .group = 1,
                          .in = {5}, .k = {2}, .out = {3}, .stride = {1}, .dil = {2}, .pad = {0}};
    float x5[5] = {1, 2, 3, 4, 5}, w2[2] = {1, 1}, y3[3];
    conv_f32(&d, x5, w2, NULL, y3);
    assert_true(y3[0] == 4 && y3[1] == 6 && y3[2] == 8);
    /* int32 twin */
    int32_t xi[5] = {1, 2, 3, 4, 5}, wi[2] = {1, -1}, yi[3], bi = 100;
    kern_conv_i32(&d, xi, wi, &bi, yi);
    assert_true(yi[0] == 98 && yi[1] == 98 && yi[2] == 98);
}

static void test_conv_transpose(void **state)
{
    (void)state;
    /* x = [1, 2], w = [1, 1, 1], stride 2: each input spreads over 3 outputs 2 apart */
    kern_conv_params p = {.nsp = 1, .n = 1, .c = 1, .m = 1, .group = 1,
                          .in = {2}, .k = {3}, .out = {5}, .stride = {2}, .dil = {1}, .pad = {0}};
    float x[2] = {1, 2}, w[3] = {1, 1, 1}, y[5], b = 1;
    kern_conv_transpose_f32(&p, x, w, &b, y);
    float want[5] = {2, 2, 4, 3, 3};
    for (int i = 0; i < 5; i++)
        assert_true(y[i] == want[i]);
}

static void test_gemm(void **state)
{
    (void)state;
    /* A = [[1,2,3],[4,5,6]], B = [[1,0],[0,1],[1,1]]: AB = [[4,5],[10,11]];
     * alpha 2, beta 0.5, C = [1, 2] broadcast over rows */
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 0, 1, 1, 1}, c[2] = {1, 2}, y[4];
    kern_gemm_params p = {.m = 2, .n = 2, .k = 3, .alpha = 2, .beta = 0.5, .c_rs = 0, .c_cs = 1};
    gemm_f32(&p, a, b, c, y);
    assert_true(y[0] == 8.5f && y[1] == 11 && y[2] == 20.5f && y[3] == 23);
    float at[6] = {1, 4, 2, 5, 3, 6}, bt[6] = {1, 0, 1, 0, 1, 1};
    kern_gemm_params q = {.m = 2, .n = 2, .k = 3, .trans_a = 1, .trans_b = 1, .alpha = 1};
    gemm_f32(&q, at, bt, NULL, y);
    assert_true(y[0] == 4 && y[1] == 5 && y[2] == 10 && y[3] == 11);
    int64_t ia[2] = {INT64_C(1) << 40, 3}, ib[2] = {4, 5}, iy[1];
    kern_matmul_int(TOSAC_DT_I64, 1, 1, 2, ia, ib, iy);
    assert_true(iy[0] == (INT64_C(1) << 42) + 15);
}

static kern_pool_params pool2d(kern_pool_kind kind, int64_t k, int64_t out, int64_t s, int64_t pad)
{
    kern_pool_params p = {.kind = kind, .nsp = 2, .nc = 1};
    for (int i = 0; i < 2; i++) {
        p.in[i] = 3;
        p.out[i] = out;
        p.k[i] = k;
        p.stride[i] = s;
        p.dil[i] = 1;
        p.pad_begin[i] = p.pad_end[i] = pad;
    }
    return p;
}

static void test_pool(void **state)
{
    (void)state;
    float y[4];
    int64_t idx[4];
    kern_pool_params p = pool2d(KERN_POOL_MAX, 2, 2, 1, 0);
    kern_pool_f32(&p, x9, y, idx);
    assert_true(y[0] == 5 && y[1] == 6 && y[2] == 8 && y[3] == 9);
    assert_true(idx[0] == 4 && idx[1] == 5 && idx[2] == 7 && idx[3] == 8);
    /* 3x3 window, pad 1, stride 2: corner windows see 4 real taps out of 9 */
    p = pool2d(KERN_POOL_AVG, 3, 2, 2, 1);
    kern_pool_f32(&p, x9, y, NULL);
    assert_true(y[0] == 3.0f && y[3] == 7.0f);       /* (1+2+4+5)/4, (5+6+8+9)/4 */
    p.count_include_pad = 1;
    kern_pool_f32(&p, x9, y, NULL);
    assert_true(y[0] == 12.0f / 9 && y[3] == 28.0f / 9);
    p = pool2d(KERN_POOL_LP, 3, 1, 1, 0);
    p.p = 1;
    kern_pool_f32(&p, x9, y, NULL);
    assert_true(y[0] == 45);
    int8_t xi[9] = {-1, -2, -3, -4, -5, -6, -7, -8, -9}, yi[4];
    p = pool2d(KERN_POOL_MAX, 2, 2, 1, 0);
    kern_maxpool_int(&p, TOSAC_DT_I8, xi, yi);
    assert_true(yi[0] == -1 && yi[3] == -5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv2d),
        cmocka_unit_test(test_conv_groups_and_dilation),
        cmocka_unit_test(test_conv_transpose),
        cmocka_unit_test(test_gemm),
        cmocka_unit_test(test_pool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
