/* kern_conv_f32's three paths (pointwise GEMM, im2col + GEMM, depthwise window kernel)
 * against a naive double-precision convolution on odd sizes: 1-D, 2-D and 3-D, padding
 * (asymmetric: the end pad is implied by the output size), strides, dilations, groups,
 * depthwise with a channel multiplier, 3x3 / 5x5 / other windows, batch > 1; every
 * available variant of KERN_ISA_LIST gives the portable bits and fuses multiply-adds. Tolerance as in test_kernels_sgemm: a float
 * sum of K products is within ~K * FLT_EPSILON * sum|terms| of the exact value. */
#include "testutil.h"
#include "kern_testrand.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/conv.h"
#include "kernels/isa.h"

static int64_t prod(const int64_t *v, int n)
{
    int64_t r = 1;
    for (int i = 0; i < n; i++)
        r *= v[i];
    return r;
}

/* Output size for the given end pad. */
static void set_out(kern_conv_params *p, const int64_t *pad_end)
{
    for (int i = 0; i < p->nsp; i++)
        p->out[i] = (p->in[i] + p->pad[i] + pad_end[i] - (p->k[i] - 1) * p->dil[i] - 1) /
                        p->stride[i] + 1;
}

/* Naive reference at output (n, m, o[]) in double, with sum|terms| in *mag. */
static double ref_at(const kern_conv_params *p, const float *x, const float *w, const float *b,
                     int64_t n, int64_t m, const int64_t *o, double *mag)
{
    const int64_t cg = p->c / p->group, mg = p->m / p->group, grp = m / mg;
    const int64_t ksz = prod(p->k, p->nsp), in_sz = prod(p->in, p->nsp);
    double s = 0;
    *mag = 0;
    for (int64_t cc = 0; cc < cg; cc++)
        for (int64_t q = 0; q < ksz; q++) {
            int64_t rem = q, xi = 0, ok = 1;
            int64_t kq[3];
            for (int d = p->nsp - 1; d >= 0; d--) {
                kq[d] = rem % p->k[d];
                rem /= p->k[d];
            }
            for (int d = 0; d < p->nsp; d++) {
                int64_t i = o[d] * p->stride[d] - p->pad[d] + kq[d] * p->dil[d];
                if (i < 0 || i >= p->in[d])
                    ok = 0;
                xi = xi * p->in[d] + i;
            }
            if (!ok)
                continue;
            double t = (double)x[(n * p->c + grp * cg + cc) * in_sz + xi] * w[(m * cg + cc) * ksz + q];
            s += t;
            *mag += fabs(t);
        }
    if (b) {
        s += b[m];
        *mag += fabs(b[m]);
    }
    return s;
}

/* Runs the kernel on random data; checks every output; returns y (caller frees). */
static float *check_conv(const kern_conv_params *p, int with_bias)
{
    const int64_t in_sz = prod(p->in, p->nsp), out_sz = prod(p->out, p->nsp);
    const int64_t ksz = prod(p->k, p->nsp), cg = p->c / p->group;
    const int64_t nx = p->n * p->c * in_sz, nw = p->m * cg * ksz, ny = p->n * p->m * out_sz;
    float *x = malloc((size_t)nx * sizeof(float)), *w = malloc((size_t)nw * sizeof(float));
    float *b = malloc((size_t)p->m * sizeof(float)), *y = malloc((size_t)ny * sizeof(float));
    float *s = malloc(kern_conv_f32_scratch(p) * sizeof(float) + 1);
    assert_true(x && w && b && y && s);
    for (int64_t i = 0; i < nx; i++)
        x[i] = frand();
    for (int64_t i = 0; i < nw; i++)
        w[i] = frand();
    for (int64_t i = 0; i < p->m; i++)
        b[i] = frand();
    for (int64_t i = 0; i < ny; i++)
        y[i] = NAN;
    kern_conv_f32(p, x, w, with_bias ? b : NULL, y, s);
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t m = 0; m < p->m; m++)
            for (int64_t j = 0; j < out_sz; j++) {
                int64_t o[3], rem = j;
                for (int d = p->nsp - 1; d >= 0; d--) {
                    o[d] = rem % p->out[d];
                    rem /= p->out[d];
                }
                double mag, ref = ref_at(p, x, w, with_bias ? b : NULL, n, m, o, &mag);
                double tol = (double)(cg * ksz + 2) * FLT_EPSILON * mag + 1e-30;
                float got = y[(n * p->m + m) * out_sz + j];
                if (!(fabs(got - ref) <= tol))
                    fail_msg("conv c=%lld m=%lld group=%lld: y[%lld][%lld][%lld] = %.9g, want "
                             "%.9g", (long long)p->c, (long long)p->m, (long long)p->group,
                             (long long)n, (long long)m, (long long)j, got, ref);
            }
    free(x);
    free(w);
    free(b);
    free(s);
    return y;
}

static kern_conv_params conv2(int64_t n, int64_t c, int64_t m, int64_t group, int64_t h,
                              int64_t wd, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe)
{
    kern_conv_params p = {.nsp = 2, .n = n, .c = c, .m = m, .group = group};
    const int64_t in[2] = {h, wd}, pad_end[2] = {pe, pe};
    for (int i = 0; i < 2; i++) {
        p.in[i] = in[i];
        p.k[i] = k;
        p.stride[i] = s;
        p.dil[i] = d;
        p.pad[i] = pb;
    }
    set_out(&p, pad_end);
    return p;
}

static void test_pointwise(void **state)
{
    (void)state;
    static const int64_t ch[] = {1, 3, 7, 17, 33};
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            kern_conv_params p = conv2(1 + (i == 2), ch[i], ch[j], 1, 7, 3 + j, 1, 1, 1, 0, 0);
            free(check_conv(&p, (i + j) & 1));
        }
    /* more input channels than one k block of the GEMM */
    kern_conv_params p = conv2(1, 300, 5, 1, 3, 3, 1, 1, 1, 0, 0);
    free(check_conv(&p, 1));
}

static void test_im2col_general(void **state)
{
    (void)state;
    /* 3x3 pad 1, stride 2 with asymmetric end pad, dilation 2, 1x1 stride 2, 2x2 */
    kern_conv_params cases[] = {
        conv2(1, 3, 8, 1, 17, 17, 3, 2, 1, 1, 1),
        conv2(2, 5, 7, 1, 9, 13, 3, 1, 1, 1, 1),
        conv2(1, 4, 3, 1, 17, 11, 3, 1, 2, 2, 0),
        conv2(1, 6, 9, 1, 7, 7, 1, 2, 1, 0, 0),
        conv2(1, 3, 4, 1, 8, 9, 2, 2, 1, 0, 1),
        conv2(1, 2, 3, 1, 1, 1, 3, 1, 1, 1, 1),   /* 1x1 image, all but one tap padding */
        conv2(1, 6, 4, 2, 11, 7, 3, 1, 1, 1, 1),  /* 2 groups */
        conv2(1, 9, 6, 3, 7, 7, 5, 2, 1, 2, 2),   /* 3 groups, 5x5 stride 2 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        free(check_conv(&cases[i], (int)(i & 1)));
    /* im2col blocks: rows * columns beyond one block (1 MiB) */
    kern_conv_params big = conv2(1, 64, 3, 1, 40, 40, 3, 1, 1, 1, 1);
    free(check_conv(&big, 1));
}

static void test_1d_and_3d(void **state)
{
    (void)state;
    kern_conv_params p1 = {.nsp = 1, .n = 2, .c = 3, .m = 5, .group = 1, .in = {33}, .k = {4},
                           .stride = {3}, .dil = {2}, .pad = {2}};
    const int64_t pe1[1] = {1};
    set_out(&p1, pe1);
    free(check_conv(&p1, 1));
    kern_conv_params p3 = {.nsp = 3, .n = 1, .c = 2, .m = 3, .group = 1, .in = {5, 6, 7},
                           .k = {3, 2, 3}, .stride = {1, 2, 1}, .dil = {1, 1, 2},
                           .pad = {1, 0, 2}};
    const int64_t pe3[3] = {1, 1, 0};
    set_out(&p3, pe3);
    free(check_conv(&p3, 0));
    /* 1-D depthwise goes to the window kernel with height 1 */
    kern_conv_params d1 = {.nsp = 1, .n = 1, .c = 4, .m = 8, .group = 4, .in = {17}, .k = {3},
                           .stride = {2}, .dil = {1}, .pad = {1}};
    const int64_t ped[1] = {1};
    set_out(&d1, ped);
    assert_true(kern_conv_is_depthwise(&d1));
    free(check_conv(&d1, 1));
}

static void test_depthwise(void **state)
{
    (void)state;
    /* k, stride, dilation, pad: the 3x3/5x5 stride 1/2 fast loops and the generic one */
    static const int64_t cfg[][5] = {
        {3, 1, 1, 1, 1}, {3, 2, 1, 1, 1}, {3, 2, 1, 1, 0}, {5, 1, 1, 2, 2}, {5, 2, 1, 2, 2},
        {3, 1, 2, 2, 2}, {2, 1, 1, 0, 1}, {7, 3, 1, 3, 3}, {1, 1, 1, 0, 0}, {3, 1, 1, 0, 0},
        /* stride 2 over split planes: pads 0 to 2 on either side */
        {3, 2, 1, 0, 1}, {3, 2, 1, 2, 2}, {5, 2, 1, 1, 0}, {5, 2, 1, 0, 2}, {3, 2, 2, 1, 1},
    };
    static const int64_t hw[] = {1, 3, 7, 17, 33};
    for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++)
        for (int j = 0; j < 5; j++) {
            if ((cfg[i][0] - 1) * cfg[i][2] + 1 > hw[j] + cfg[i][3] + cfg[i][4])
                continue; /* window larger than the padded input */
            kern_conv_params p = conv2(1 + (j == 1), 3, 3, 3, hw[j], hw[4 - j] > 1 ? hw[4 - j] : 5,
                                       cfg[i][0], cfg[i][1], cfg[i][2], cfg[i][3], cfg[i][4]);
            if ((p.k[1] - 1) * p.dil[1] + 1 > p.in[1] + cfg[i][3] + cfg[i][4])
                continue;
            assert_true(kern_conv_is_depthwise(&p));
            free(check_conv(&p, (int)((i + (size_t)j) & 1)));
        }
    /* channel multiplier 2 */
    kern_conv_params p = conv2(1, 5, 10, 5, 9, 8, 3, 1, 1, 1, 1);
    assert_true(kern_conv_is_depthwise(&p));
    free(check_conv(&p, 1));
}

/* Every available variant of KERN_ISA_LIST gives the portable bits on each path. */
static void test_twins_bit_identical(void **state)
{
    (void)state;
    kern_conv_params cases[] = {
        conv2(1, 16, 24, 1, 14, 14, 1, 1, 1, 0, 0), /* pointwise */
        conv2(1, 3, 16, 1, 23, 23, 3, 2, 1, 1, 1),  /* im2col */
        conv2(1, 8, 8, 8, 19, 19, 3, 1, 1, 1, 1),   /* depthwise 3x3 s1 */
        conv2(1, 8, 8, 8, 19, 19, 3, 2, 1, 1, 0),   /* depthwise 3x3 s2 */
        conv2(1, 8, 8, 8, 19, 19, 5, 2, 1, 2, 2),   /* depthwise 5x5 s2 */
        conv2(1, 6, 12, 6, 17, 15, 4, 3, 2, 2, 1),  /* depthwise, other window */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const kern_conv_params *p = &cases[i];
        size_t ny = (size_t)(p->n * p->m * prod(p->out, p->nsp));
        uint64_t seed = g_seed;
        assert_int_equal(kern_isa_force(KERN_ISA_PORTABLE), 0);
        float *y0 = check_conv(p, 1);
        for (int isa = 0; isa < KERN_ISA_COUNT; isa++) {
            if (!kern_isa_available((kern_isa)isa)) {
                assert_int_equal(kern_isa_force((kern_isa)isa), -1);
                continue;
            }
            if (i == 0)
                print_message("conv twin %s\n", kern_isa_name((kern_isa)isa));
            g_seed = seed; /* same data */
            assert_int_equal(kern_isa_force((kern_isa)isa), 0);
            float *y1 = check_conv(p, 1);
            assert_memory_equal(y0, y1, ny * sizeof(float));
            free(y1);
        }
        free(y0);
    }
    assert_int_equal(kern_isa_force(KERN_ISA_PORTABLE), 0);
}

/* The depthwise windows fuse their multiply-adds on every variant: a 2-tap window (1, u)
 * over the input row (-1, u) gives -1 + u*u = 2^-11 + 2^-24 only without rounding u*u
 * (u = 1 + 2^-12); each square window also starts from that sum (its other taps are 0). */
static void test_depthwise_fused(void **state)
{
    (void)state;
    const float u = 1.0f + ldexpf(1.0f, -12), want = ldexpf(1.0f, -11) + ldexpf(1.0f, -24);
    for (int64_t kw = 2; kw <= 5; kw++) {
        kern_conv_params p = conv2(1, 2, 2, 2, kw, kw + 1, kw, 1, 1, 0, 0);
        if (kw == 2) { /* a 1 x 2 window */
            p.k[0] = 1;
            p.in[0] = 1;
            p.out[0] = 1;
        }
        float x[2 * 6 * 6] = {0}, w[2 * 25] = {0}, y[2 * 2 * 2], s[256];
        assert_true(kern_conv_f32_scratch(&p) <= sizeof s / sizeof s[0]);
        const int64_t iw = p.in[1], ksz = p.k[0] * p.k[1];
        for (int c = 0; c < 2; c++) {
            float *xc = x + c * p.in[0] * iw;
            for (int64_t r = 0; r < p.in[0]; r++) { /* each output's first taps see (-1, u) */
                xc[r * iw] = r == 0 ? -1 : 0;
                xc[r * iw + 1] = r == 0 ? u : 0;
                xc[r * iw + 2] = r == 0 ? u : 0;
            }
            w[c * ksz] = 1;
            w[c * ksz + 1] = u;
        }
        for (int isa = 0; isa < KERN_ISA_COUNT; isa++) {
            if (kern_isa_force((kern_isa)isa))
                continue;
            kern_conv_f32(&p, x, w, NULL, y, s);
            for (int c = 0; c < 2; c++)
                if (y[c * p.out[0] * p.out[1]] != want)
                    fail_msg("%s %lldx%lld: y = %a, want %a", kern_isa_name((kern_isa)isa),
                             (long long)p.k[0], (long long)kw, y[c * p.out[0] * p.out[1]], want);
        }
    }
    assert_int_equal(kern_isa_force(KERN_ISA_PORTABLE), 0);
}

/* Weights packed once (kern_conv_f32_pack) give the bits of the unpacked convolution on every
 * variant: groups, more rows than an A block (MC) and a depth across two k blocks (KC), an
 * im2col kernel; a packing left by another variant (stale tag) is not misread. */
static void test_packed_weights(void **state)
{
    (void)state;
    kern_conv_params cases[] = {
        conv2(1, 300, 140, 1, 6, 7, 1, 1, 1, 0, 0), /* pointwise, m > MC, k > KC */
        conv2(2, 12, 18, 2, 9, 11, 3, 2, 1, 1, 0),  /* im2col, 2 groups, batch 2 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const kern_conv_params *p = &cases[i];
        const int64_t nx = p->n * p->c * prod(p->in, 2), ny = p->n * p->m * prod(p->out, 2);
        const int64_t nw = p->m * (p->c / p->group) * prod(p->k, 2);
        float *x = rand_vec(nx), *w = rand_vec(nw), *b = rand_vec(p->m);
        float *y0 = malloc((size_t)ny * sizeof(float)), *y1 = malloc((size_t)ny * sizeof(float));
        float *s = malloc(kern_conv_f32_scratch(p) * sizeof(float));
        const size_t np = kern_conv_f32_packed_size(p);
        assert_true(np > 0);
        float *wp = malloc(np * sizeof(float));
        assert_true(x && w && b && y0 && y1 && s && wp);
        int tag = -1;
        for (int isa = 0; isa < KERN_ISA_COUNT; isa++) {
            if (kern_isa_force((kern_isa)isa))
                continue;
            kern_conv_f32(p, x, w, b, y0, s);
            if (tag >= 0) { /* packed by the previous variant */
                kern_conv_f32_packed(p, x, w, wp, tag, b, NULL, y1, s);
                assert_memory_equal(y0, y1, (size_t)ny * sizeof(float));
            }
            tag = kern_conv_f32_pack(p, w, wp);
            assert_int_equal(tag, kern_conv_f32_pack_tag());
            for (int64_t j = 0; j < ny; j++)
                y1[j] = NAN;
            kern_conv_f32_packed(p, x, w, wp, tag, b, NULL, y1, s);
            assert_memory_equal(y0, y1, (size_t)ny * sizeof(float));
        }
        free(x);
        free(w);
        free(b);
        free(y0);
        free(y1);
        free(s);
        free(wp);
    }
    assert_int_equal(kern_isa_force(KERN_ISA_PORTABLE), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pointwise),
        cmocka_unit_test(test_im2col_general),
        cmocka_unit_test(test_1d_and_3d),
        cmocka_unit_test(test_depthwise),
        cmocka_unit_test(test_twins_bit_identical),
        cmocka_unit_test(test_depthwise_fused),
        cmocka_unit_test(test_packed_weights),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
