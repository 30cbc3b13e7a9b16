/* The blocked SGEMM (kernels/sgemm.c) against a naive double-precision product on odd
 * sizes: 1, 3, 7, 17, 33 and sizes crossing the KC/MC/NC block edges, transposed and
 * strided operands, the row bias, the few-row paths (on the default variant); every variant
 * of KERN_ISA_LIST the machine has gives the portable bits, and every variant fuses its
 * multiply-adds; a B packed once gives the per-call bits. Tolerance: a float sum of K products has error at most
 * ~K * FLT_EPSILON * sum|a*b| (the classic recursive-summation bound), so each output is
 * checked against (K + 2) * FLT_EPSILON * sum|a*b| computed alongside the reference. */
#include "testutil.h"
#include "kern_testrand.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/gemm.h"
#include "kernels/isa.h"
#include "kernels/sgemm.h"

/* Runs g (c is allocated here, m x n with ldc = n + 5 to check the stride) and compares
 * with the naive product of g.a and b (g.b may be NULL when g.b_packed serves); returns c
 * for twin comparisons (caller frees). */
static float *check_sgemm_b(kern_sgemm g, const float *b)
{
    const int64_t ldc = g.n + 5;
    float *c = malloc((size_t)(g.m * ldc + 1) * sizeof(float));
    float *s = malloc(kern_sgemm_scratch(g.m, g.n, g.k) * sizeof(float));
    assert_non_null(c);
    assert_non_null(s);
    for (int64_t i = 0; i < g.m * ldc; i++)
        c[i] = NAN; /* every element must be written */
    g.c = c;
    g.ldc = ldc;
    kern_sgemm_run(&g, s);
    for (int64_t i = 0; i < g.m; i++)
        for (int64_t j = 0; j < g.n; j++) {
            double ref = 0, mag = 0;
            for (int64_t kk = 0; kk < g.k; kk++) {
                double t = (double)g.a[i * g.a_rs + kk * g.a_cs] * b[kk * g.b_rs + j * g.b_cs];
                ref += t;
                mag += fabs(t);
            }
            if (g.row_bias) {
                ref += g.row_bias[i];
                mag += fabs(g.row_bias[i]);
            }
            double tol = (double)(g.k + 2) * FLT_EPSILON * mag + 1e-30;
            if (!(fabs(c[i * ldc + j] - ref) <= tol))
                fail_msg("m=%lld n=%lld k=%lld: C[%lld][%lld] = %.9g, want %.9g (tol %.3g)",
                         (long long)g.m, (long long)g.n, (long long)g.k, (long long)i,
                         (long long)j, c[i * ldc + j], ref, tol);
        }
    free(s);
    return c;
}

static float *check_sgemm(kern_sgemm g) { return check_sgemm_b(g, g.b); }

/* A and B row-major or transposed, optional bias. */
static void run_case(int64_t m, int64_t n, int64_t k, int ta, int tb, int bias)
{
    float *a = rand_vec(m * k), *b = rand_vec(k * n), *bv = rand_vec(m);
    kern_sgemm g = {.m = m, .n = n, .k = k, .a = a, .b = b, .row_bias = bias ? bv : NULL};
    g.a_rs = ta ? 1 : k;
    g.a_cs = ta ? m : 1;
    g.b_rs = tb ? 1 : n;
    g.b_cs = tb ? k : 1;
    free(check_sgemm(g));
    free(a);
    free(b);
    free(bv);
}

static void test_odd_sizes(void **state)
{
    (void)state;
    static const int64_t sz[] = {1, 3, 7, 17, 33};
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++)
            for (int l = 0; l < 5; l++)
                for (int t = 0; t < 4; t++)
                    run_case(sz[i], sz[j], sz[l], t & 1, t >> 1, (i + j + l + t) & 1);
}

static void test_block_edges(void **state)
{
    (void)state;
    /* k across KC (256), m across MC (128), n across NC (1024) and the NR/MR tiles */
    run_case(5, 9, KERN_SGEMM_KC + 1, 0, 0, 1);
    run_case(KERN_SGEMM_MC + 3, 19, 2 * KERN_SGEMM_KC + 7, 0, 1, 0);
    run_case(6, KERN_SGEMM_NC + 17, 40, 1, 0, 1);
    run_case(KERN_SGEMM_MR, KERN_SGEMM_NR, 1, 0, 0, 0);
    run_case(KERN_SGEMM_MR - 1, KERN_SGEMM_NR + 1, 300, 0, 1, 1); /* few rows, dot path */
}

static void test_general_strides(void **state)
{
    (void)state;
    /* B with neither stride 1 (every other column of a wider matrix, rows of 2*n + 3) and
     * few rows: the packed path must serve it */
    int64_t m = 2, n = 7, k = 9, ldb = 2 * n + 3;
    float *a = rand_vec(m * k), *b = rand_vec(k * ldb);
    kern_sgemm g = {.m = m, .n = n, .k = k, .a = a, .a_rs = k, .a_cs = 1, .b = b, .b_rs = ldb,
                    .b_cs = 2};
    free(check_sgemm(g));
    g.m = 11;
    free(a);
    a = rand_vec(11 * k);
    g.a = a;
    free(check_sgemm(g));
    free(a);
    free(b);
}

static void test_k_zero_gives_bias(void **state)
{
    (void)state;
    float bias[3] = {1.5f, -2, 0}, c[6] = {9, 9, 9, 9, 9, 9}, s[8];
    kern_sgemm g = {.m = 3, .n = 2, .k = 0, .a = bias, .b = bias, .c = c, .ldc = 2,
                    .row_bias = bias};
    kern_sgemm_run(&g, s);
    assert_true(c[0] == 1.5f && c[1] == 1.5f && c[2] == -2 && c[3] == -2 && c[4] == 0 &&
                c[5] == 0);
}

/* Every available variant of KERN_ISA_LIST must reproduce the portable result bit for bit
 * (see isa.h), on the tiled path (partial tiles of every variant's tile shape, two k blocks,
 * row-major and transposed B) and on both few-row paths. */
static void test_twins_bit_identical(void **state)
{
    (void)state;
    static const int64_t cases[][5] = {
        /* m, n, k, transposed B, bias */
        {37, 53, 300, 0, 1}, {19, 70, 33, 1, 0}, {3, 41, 300, 0, 1}, {2, 29, 70, 1, 1},
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const int64_t m = cases[ci][0], n = cases[ci][1], k = cases[ci][2];
        float *a = rand_vec(m * k), *b = rand_vec(k * n), *bv = rand_vec(m);
        kern_sgemm g = {.m = m, .n = n, .k = k, .a = a, .a_rs = k, .a_cs = 1, .b = b,
                        .row_bias = cases[ci][4] ? bv : NULL};
        g.b_rs = cases[ci][3] ? 1 : n;
        g.b_cs = cases[ci][3] ? k : 1;
        assert_int_equal(kern_isa_force(KERN_ISA_PORTABLE), 0);
        float *c0 = check_sgemm(g);
        for (int isa = 0; isa < KERN_ISA_COUNT; isa++) {
            if (!kern_isa_available((kern_isa)isa)) {
                assert_int_equal(kern_isa_force((kern_isa)isa), -1);
                continue;
            }
            assert_int_equal(kern_isa_force((kern_isa)isa), 0);
            if (ci == 0)
                print_message("sgemm twin %s (float level %d)\n", kern_isa_name((kern_isa)isa),
                              (int)kern_isa_float_level());
            float *c1 = check_sgemm(g);
            assert_memory_equal(c0, c1, (size_t)(m * (n + 5)) * sizeof(float));
            free(c1);
        }
        free(c0);
        free(a);
        free(b);
        free(bv);
    }
    assert_int_equal(kern_isa_force(KERN_ISA_PORTABLE), 0);
}

/* A B packed once (kern_sgemm_pack_b, a constant weight) gives the per-call product's bits
 * on every variant: row-major B (read in place but for its last partial panel) and
 * transposed B, partial tiles, two k blocks, B wider than NC; a tag of another variant is
 * ignored (B packed per call, same bits), and a product of few rows asks for nothing. */
static void test_prepacked_b_bit_identical(void **state)
{
    (void)state;
    static const int64_t cases[][4] = {
        /* m, n, k, transposed B */
        {37, 53, 300, 0}, {37, 53, 300, 1}, {4, 70, 33, 1}, {19, KERN_SGEMM_NC + 40, 20, 1},
        {9, 48, 17, 0},
    };
    assert_int_equal(kern_sgemm_packed_b_size(KERN_SGEMM_SMALL_M - 1, 50, 60), 0);
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const int64_t m = cases[ci][0], n = cases[ci][1], k = cases[ci][2];
        float *a = rand_vec(m * k), *b = rand_vec(k * n), *bv = rand_vec(m);
        kern_sgemm g = {.m = m, .n = n, .k = k, .a = a, .a_rs = k, .a_cs = 1, .b = b,
                        .row_bias = ci & 1 ? bv : NULL};
        g.b_rs = cases[ci][3] ? 1 : n;
        g.b_cs = cases[ci][3] ? k : 1;
        size_t np = kern_sgemm_packed_b_size(m, n, k);
        assert_int_equal(np, (size_t)((n + KERN_SGEMM_NR - 1) / KERN_SGEMM_NR * KERN_SGEMM_NR * k));
        float *bp = malloc(np * sizeof(float));
        assert_non_null(bp);
        for (int isa = 0; isa < KERN_ISA_COUNT; isa++) {
            if (kern_isa_force((kern_isa)isa))
                continue;
            float *c0 = check_sgemm(g);
            kern_sgemm gp = g;
            gp.b_packed = bp;
            gp.b_packed_tag = kern_sgemm_pack_b(&g, bp);
            assert_int_equal(gp.b_packed_tag, kern_sgemm_pack_b_tag());
            gp.b = NULL; /* the tiled path must not read B */
            float *c1 = check_sgemm_b(gp, b);
            assert_memory_equal(c0, c1, (size_t)(m * (n + 5)) * sizeof(float));
            free(c1);
            gp.b = b;
            gp.b_packed_tag = -1; /* another variant's layout: packed per call instead */
            c1 = check_sgemm(gp);
            assert_memory_equal(c0, c1, (size_t)(m * (n + 5)) * sizeof(float));
            free(c1);
            free(c0);
        }
        free(bp);
        free(a);
        free(b);
        free(bv);
    }
    assert_int_equal(kern_isa_force(KERN_ISA_PORTABLE), 0);
}

/* Every multiply-add is fused (one rounding) on every variant and path: with A row
 * (-1, u) and B column (1, u), u = 1 + 2^-12, the sum -1 + u*u is 2^-11 + 2^-24 exactly
 * when u*u is not rounded first (rounded, u*u = 1 + 2^-11 and the sum is 2^-11). */
static void test_fused_multiply_add(void **state)
{
    (void)state;
    const float u = 1.0f + ldexpf(1.0f, -12), want = ldexpf(1.0f, -11) + ldexpf(1.0f, -24);
    enum { M = 9, N = 40, K = 2 };
    float a[M * K], b[K * N], bt[N * K], c[M * N];
    for (int i = 0; i < M; i++) {
        a[i * K] = -1;
        a[i * K + 1] = u;
    }
    for (int j = 0; j < N; j++) {
        b[j] = bt[j * K] = 1;
        b[N + j] = bt[j * K + 1] = u;
    }
    float s[4096];
    assert_true(kern_sgemm_scratch(M, N, K) <= sizeof s / sizeof s[0]);
    for (int isa = 0; isa < KERN_ISA_COUNT; isa++) {
        if (kern_isa_force((kern_isa)isa))
            continue;
        for (int path = 0; path < 3; path++) { /* tiles, few rows x row-major B, x B^T */
            kern_sgemm g = {.m = path ? 2 : M, .n = N, .k = K, .a = a, .a_rs = K, .a_cs = 1,
                            .b = path == 2 ? bt : b, .b_rs = path == 2 ? 1 : N,
                            .b_cs = path == 2 ? K : 1, .c = c, .ldc = N};
            kern_sgemm_run(&g, s);
            for (int64_t i = 0; i < g.m * N; i++)
                if (c[i] != want)
                    fail_msg("%s path %d: C[%lld] = %a, want %a", kern_isa_name((kern_isa)isa),
                             path, (long long)i, c[i], want);
        }
    }
    assert_int_equal(kern_isa_force(KERN_ISA_PORTABLE), 0);
}

/* kern_gemm_f32: alpha, beta and the broadcast C on top of the product. */
static void test_gemm_epilogue(void **state)
{
    (void)state;
    int64_t m = 9, n = 21, k = 13;
    float *a = rand_vec(m * k), *b = rand_vec(n * k), *cm = rand_vec(m), *y = rand_vec(m * n);
    kern_gemm_params p = {.m = m, .n = n, .k = k, .trans_b = 1, .alpha = 0.5, .beta = -2,
                          .c_rs = 1, .c_cs = 0}; /* C is [m, 1] */
    float *s = malloc(kern_gemm_f32_scratch(&p) * sizeof(float));
    assert_non_null(s);
    kern_gemm_f32(&p, a, b, cm, y, s);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double ref = 0, mag = 0;
            for (int64_t kk = 0; kk < k; kk++) {
                ref += (double)a[i * k + kk] * b[j * k + kk];
                mag += fabs((double)a[i * k + kk] * b[j * k + kk]);
            }
            ref = 0.5 * ref - 2.0 * cm[i];
            assert_true(fabs(y[i * n + j] - ref) <= (k + 4) * FLT_EPSILON * (mag + 4 * fabs(cm[i])));
        }
    free(s);
    free(a);
    free(b);
    free(cm);
    free(y);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_odd_sizes),
        cmocka_unit_test(test_block_edges),
        cmocka_unit_test(test_general_strides),
        cmocka_unit_test(test_k_zero_gives_bias),
        cmocka_unit_test(test_twins_bit_identical),
        cmocka_unit_test(test_prepacked_b_bit_identical),
        cmocka_unit_test(test_fused_multiply_add),
        cmocka_unit_test(test_gemm_epilogue),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
