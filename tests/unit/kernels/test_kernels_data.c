/* Data-movement, reduction, quantization and resize kernels on hand-checked values
 * (the expected numbers are derived in the comments). */
#include "testutil.h"

#include <stdint.h>

#include "kernels/layout.h"
#include "kernels/pool.h"
#include "kernels/quant.h"
#include "kernels/reduce.h"
#include "kernels/resize.h"

static void test_strided_copy_and_pad(void **state)
{
    (void)state;
    /* transpose of [2,3] = 0..5: view shape [3,2] with strides [1,3] */
    int32_t x[6] = {0, 1, 2, 3, 4, 5}, y[6];
    int64_t shape[2] = {3, 2}, stride[2] = {1, 3};
    kern_strided_copy(4, 2, shape, stride, 0, x, y);
    int32_t want[6] = {0, 3, 1, 4, 2, 5};
    assert_memory_equal(y, want, sizeof want);
    /* reversed slice: start at 5, step -2 */
    int64_t s1[1] = {3}, st1[1] = {-2};
    kern_strided_copy(4, 1, s1, st1, 5, x, y);
    assert_true(y[0] == 5 && y[1] == 3 && y[2] == 1);
    int8_t v[3] = {1, 2, 3}, o[7], zero = 0;
    int64_t in[1] = {3}, b[1] = {2}, a[1] = {2};
    kern_pad(1, 1, in, b, a, KERN_PAD_REFLECT, &zero, v, o);
    int8_t refl[7] = {3, 2, 1, 2, 3, 2, 1};
    assert_memory_equal(o, refl, 7);
    kern_pad(1, 1, in, b, a, KERN_PAD_EDGE, &zero, v, o);
    int8_t edge[7] = {1, 1, 1, 2, 3, 3, 3};
    assert_memory_equal(o, edge, 7);
    kern_pad(1, 1, in, b, a, KERN_PAD_WRAP, &zero, v, o);
    int8_t wrap[7] = {2, 3, 1, 2, 3, 1, 2};
    assert_memory_equal(o, wrap, 7);
    int64_t idx[2] = {-1, 0};
    assert_int_equal(kern_gather(1, 1, 3, 1, idx, 2, v, o), 0);
    assert_true(o[0] == 3 && o[1] == 1);
    idx[0] = 3;
    assert_int_equal(kern_gather(1, 1, 3, 1, idx, 2, v, o), -1);
}

static void test_reductions(void **state)
{
    (void)state;
    float x[6] = {1, 2, 3, 4, 5, 6}, y[3];
    int64_t shape[2] = {2, 3};
    uint8_t m1[2] = {0, 1}, m0[2] = {1, 0};
    assert_int_equal(kern_reduce(KERN_RED_SUM, TOSAC_DT_F32, 2, shape, m1, x, y), 0);
    assert_true(y[0] == 6 && y[1] == 15);
    assert_int_equal(kern_reduce(KERN_RED_MEAN, TOSAC_DT_F32, 2, shape, m0, x, y), 0);
    assert_true(y[0] == 2.5f && y[1] == 3.5f && y[2] == 4.5f);
    int64_t big[2] = {INT64_MAX, 1}, r;
    int64_t s2[1] = {2};
    uint8_t all[1] = {1};
    assert_int_equal(kern_reduce(KERN_RED_SUM, TOSAC_DT_I64, 1, s2, all, big, &r), 0);
    assert_true(r == INT64_MIN); /* wraps like onnxruntime's int64 arithmetic */
    /* bool Max/Min (opset 20): any/all per row of {1,0,0},{0,0,0}; sums are not bool ops */
    uint8_t bx[6] = {1, 0, 0, 0, 0, 0}, by[2] = {9, 9};
    assert_int_equal(kern_reduce(KERN_RED_MAX, TOSAC_DT_BOOL, 2, shape, m1, bx, by), 0);
    assert_true(by[0] == 1 && by[1] == 0);
    uint8_t bx1[6] = {1, 1, 1, 1, 0, 1};
    assert_int_equal(kern_reduce(KERN_RED_MIN, TOSAC_DT_BOOL, 2, shape, m1, bx1, by), 0);
    assert_true(by[0] == 1 && by[1] == 0);
    assert_int_equal(kern_reduce(KERN_RED_SUM, TOSAC_DT_BOOL, 2, shape, m1, bx, by), -1);
    float a[3] = {1, 3, 3};
    int64_t arg;
    kern_argextreme(TOSAC_DT_F32, 1, 0, 1, 3, 1, a, &arg);
    assert_int_equal(arg, 1);
    kern_argextreme(TOSAC_DT_F32, 1, 1, 1, 3, 1, a, &arg);
    assert_int_equal(arg, 2);
    /* TopK: ties keep the lower index first */
    float t[4] = {3, 1, 3, 2}, tv[2];
    int64_t ti[2], scratch[4];
    kern_topk(TOSAC_DT_F32, 1, 1, 4, 1, 2, t, tv, ti, scratch);
    assert_true(tv[0] == 3 && tv[1] == 3 && ti[0] == 0 && ti[1] == 2);
    kern_topk(TOSAC_DT_F32, 0, 1, 4, 1, 2, t, tv, ti, scratch);
    assert_true(tv[0] == 1 && tv[1] == 2 && ti[0] == 1 && ti[1] == 3);
    /* exclusive reverse cumsum of [1,2,3]: [2+3, 3, 0] */
    int32_t c[3] = {1, 2, 3}, cs[3];
    kern_cumsum(TOSAC_DT_I32, 1, 1, 1, 3, 1, c, cs);
    assert_true(cs[0] == 5 && cs[1] == 3 && cs[2] == 0);
}

static void test_quantize(void **state)
{
    (void)state;
    /* round half to even, then saturate */
    float x[5] = {0.5f, 1.5f, 2.5f, -0.5f, 300}, s = 1;
    int8_t q[5];
    kern_quantize_f32(5, 1, 1, x, &s, TOSAC_DT_I8, NULL, q);
    assert_true(q[0] == 0 && q[1] == 2 && q[2] == 2 && q[3] == 0 && q[4] == 127);
    uint8_t zp = 10, u;
    float neg = -20;
    kern_quantize_f32(1, 1, 1, &neg, &s, TOSAC_DT_U8, &zp, &u);
    assert_int_equal(u, 0); /* -20 + 10 saturates at 0 */
    /* per channel: 2 channels of 2, scales 0.5 and 2 */
    float xc[4] = {1, 1, 1, 1}, sc[2] = {0.5f, 2};
    int16_t qc[4];
    kern_quantize_f32(1, 2, 2, xc, sc, TOSAC_DT_I16, NULL, qc);
    assert_true(qc[0] == 2 && qc[1] == 2 && qc[2] == 0 && qc[3] == 0); /* 1/2 = 0.5 -> 0 */
    uint8_t d[2] = {0, 255}, dz = 128;
    float half = 0.5f, dy[2];
    kern_dequantize_f32(2, 1, 1, TOSAC_DT_U8, d, &half, &dz, dy);
    assert_true(dy[0] == -64 && dy[1] == 63.5f);
    int32_t acc[2] = {7, -7};
    float mult = 0.5f;
    int8_t rq[2];
    kern_requantize(2, 1, 1, acc, &mult, TOSAC_DT_I8, 1, rq);
    assert_true(rq[0] == 5 && rq[1] == -3); /* 3.5 -> 4, -3.5 -> -4, + zp 1 */
}

static void test_resize(void **state)
{
    (void)state;
    kern_resize_params p = {.rank = 1, .in = {2}, .out = {4}, .scale = {2}, .roi_end = {1},
                            .mode = KERN_RESIZE_NEAREST, .coord = KERN_COORD_ASYMMETRIC,
                            .nearest = KERN_NEAREST_ROUND_PREFER_FLOOR, .cubic_a = -0.75};
    float x[2] = {1, 2}, y[4];
    /* asymmetric: x_orig = o / 2 = 0, 0.5, 1, 1.5; prefer floor on ties */
    kern_resize(&p, TOSAC_DT_F32, x, y);
    assert_true(y[0] == 1 && y[1] == 1 && y[2] == 2 && y[3] == 2);
    /* linear, half_pixel: x_orig = (o + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25, edges clamp */
    p.mode = KERN_RESIZE_LINEAR;
    p.coord = KERN_COORD_HALF_PIXEL;
    kern_resize(&p, TOSAC_DT_F32, x, y);
    assert_true(y[0] == 1 && y[1] == 1.25f && y[2] == 1.75f && y[3] == 2);
}

static void test_reverse_sequence_and_unpool(void **state)
{
    (void)state;
    /* batch-major [2,3], lengths 2 and 3: [1,2,3] -> [2,1,3], [4,5,6] -> [6,5,4] */
    int32_t x[6] = {1, 2, 3, 4, 5, 6}, y[6];
    int64_t lens[2] = {2, 3};
    assert_int_equal(kern_reverse_sequence(4, 2, 3, 1, 0, lens, x, y), 0);
    int32_t want0[6] = {2, 1, 3, 6, 5, 4};
    assert_memory_equal(y, want0, sizeof want0);
    /* time-major [3,2]: the same sequences stored column-wise */
    int32_t xt[6] = {1, 4, 2, 5, 3, 6};
    assert_int_equal(kern_reverse_sequence(4, 3, 2, 1, 1, lens, xt, y), 0);
    int32_t want1[6] = {2, 6, 1, 5, 3, 4};
    assert_memory_equal(y, want1, sizeof want1);
    int64_t bad[2] = {2, 4};
    assert_int_equal(kern_reverse_sequence(4, 2, 3, 1, 0, bad, x, y), -1);
    /* MaxUnpool: 5 goes to index 3, 6 to index 0, the rest is zero */
    float v[2] = {5, 6}, u[4] = {9, 9, 9, 9};
    int64_t idx[2] = {3, 0};
    assert_int_equal(kern_max_unpool(4, 2, v, idx, 4, u), 0);
    assert_true(u[0] == 6 && u[1] == 0 && u[2] == 0 && u[3] == 5);
    idx[0] = 4;
    assert_int_equal(kern_max_unpool(4, 2, v, idx, 4, u), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reverse_sequence_and_unpool),
        cmocka_unit_test(test_strided_copy_and_pad),
        cmocka_unit_test(test_reductions),
        cmocka_unit_test(test_quantize),
        cmocka_unit_test(test_resize),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
