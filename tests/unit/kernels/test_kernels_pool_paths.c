/* The pooling fast paths of kern_pool_f32 (global average/max, 2-D max/average without
 * indices) against a naive reference on odd sizes with padding, strides, dilations,
 * count_include_pad and ceil-mode end padding (windows that hang over the end, empty
 * windows). Max is exact; averages are compared with a relative bound of 1e-6 (the
 * kernel sums in double and rounds once, so it is within half an ulp of the reference
 * barring double-rounding ties). */
#include "testutil.h"
#include "kern_testrand.h"

#include <math.h>
#include <stdlib.h>

#include "kernels/pool.h"

/* Naive pooling of one 2-D plane at (oy, ox): taps counted by definition. */
static double ref2d(const kern_pool_params *p, const float *X, int64_t oy, int64_t ox)
{
    double acc = p->kind == KERN_POOL_MAX ? -INFINITY : 0;
    int64_t count = 0, padded = 0;
    for (int64_t ky = 0; ky < p->k[0]; ky++)
        for (int64_t kx = 0; kx < p->k[1]; kx++) {
            int64_t iy = oy * p->stride[0] - p->pad_begin[0] + ky * p->dil[0];
            int64_t ix = ox * p->stride[1] - p->pad_begin[1] + kx * p->dil[1];
            if (iy < p->in[0] + p->pad_end[0] && ix < p->in[1] + p->pad_end[1])
                padded++;
            if (iy < 0 || iy >= p->in[0] || ix < 0 || ix >= p->in[1])
                continue;
            double v = X[iy * p->in[1] + ix];
            if (p->kind == KERN_POOL_MAX)
                acc = count == 0 || v > acc ? v : acc;
            else
                acc += v;
            count++;
        }
    if (p->kind == KERN_POOL_AVG)
        acc /= (double)(p->count_include_pad ? padded : count);
    return acc;
}

static void check(const kern_pool_params *p)
{
    const int64_t in_sz = p->in[0] * p->in[1], out_sz = p->out[0] * p->out[1];
    float *x = rand_vec(p->nc * in_sz), *y = rand_vec(p->nc * out_sz);
    assert_true(x && y);
    kern_pool_f32(p, x, y, NULL);
    for (int64_t nc = 0; nc < p->nc; nc++)
        for (int64_t oy = 0; oy < p->out[0]; oy++)
            for (int64_t ox = 0; ox < p->out[1]; ox++) {
                double want = ref2d(p, x + nc * in_sz, oy, ox);
                float got = y[nc * out_sz + oy * p->out[1] + ox];
                int ok = isnan(want) ? isnan(got)
                         : p->kind == KERN_POOL_MAX ? got == (float)want
                                                    : fabs(got - want) <= 1e-6 * fabs(want) + 1e-30;
                if (!ok)
                    fail_msg("%s k=%lldx%lld s=%lld pad=%lld/%lld: y[%lld][%lld][%lld] = %.9g, "
                             "want %.9g", p->kind == KERN_POOL_MAX ? "max" : "avg",
                             (long long)p->k[0], (long long)p->k[1], (long long)p->stride[0],
                             (long long)p->pad_begin[0], (long long)p->pad_end[0], (long long)nc,
                             (long long)oy, (long long)ox, got, want);
            }
    free(x);
    free(y);
}

static kern_pool_params pool(kern_pool_kind kind, int64_t nc, int64_t h, int64_t w, int64_t k,
                             int64_t s, int64_t d, int64_t pb, int64_t pe)
{
    kern_pool_params p = {.kind = kind, .nsp = 2, .nc = nc};
    const int64_t in[2] = {h, w};
    for (int i = 0; i < 2; i++) {
        p.in[i] = in[i];
        p.k[i] = k;
        p.stride[i] = s;
        p.dil[i] = d;
        p.pad_begin[i] = pb;
        p.pad_end[i] = pe;
        p.out[i] = (in[i] + pb + pe - (k - 1) * d - 1) / s + 1;
    }
    return p;
}

static void test_global(void **state)
{
    (void)state;
    static const int64_t hw[] = {1, 3, 7, 17, 33};
    for (int kind = 0; kind < 2; kind++)
        for (int i = 0; i < 5; i++) {
            kern_pool_params p = pool(kind ? KERN_POOL_AVG : KERN_POOL_MAX, 3, hw[i], hw[4 - i],
                                      1, 1, 1, 0, 0);
            p.k[0] = p.in[0];
            p.k[1] = p.in[1];
            p.out[0] = p.out[1] = 1;
            check(&p);
        }
}

static void test_windows(void **state)
{
    (void)state;
    /* k, stride, dilation, pad begin, pad end */
    static const int64_t cfg[][5] = {
        {3, 2, 1, 1, 1}, {3, 1, 1, 1, 1}, {2, 2, 1, 0, 0}, {3, 2, 1, 0, 1}, /* ceil end pad */
        {3, 1, 2, 2, 2}, {5, 3, 1, 2, 2}, {1, 2, 1, 0, 0}, {2, 1, 1, 1, 1},
        {3, 3, 1, 2, 2}, /* pads as wide as the window less one: windows of padding only */
    };
    static const int64_t hw[] = {1, 3, 7, 17, 33};
    for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++)
        for (int i = 0; i < 5; i++)
            for (int kind = 0; kind < 3; kind++) {
                if ((cfg[c][0] - 1) * cfg[c][2] + 1 > hw[i] + cfg[c][3] + cfg[c][4] ||
                    (cfg[c][0] - 1) * cfg[c][2] + 1 > hw[4 - i] + cfg[c][3] + cfg[c][4])
                    continue;
                kern_pool_params p = pool(kind ? KERN_POOL_AVG : KERN_POOL_MAX, 2, hw[i],
                                          hw[4 - i], cfg[c][0], cfg[c][1], cfg[c][2], cfg[c][3],
                                          cfg[c][4]);
                p.count_include_pad = kind == 2;
                check(&p);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_global),
        cmocka_unit_test(test_windows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
