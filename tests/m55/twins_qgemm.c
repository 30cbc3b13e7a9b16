/* The qgemm twin cases of the M55 twin tests (twins.c): each variant against a reference of
 * the TOSA arithmetic written here, on random and edge cases. */
#include <stdint.h>
#include <string.h>

#include "twins.h"
#include "ukernels/qgemm.h"

#define MAX_M 7
#define MAX_K 600
#define MAX_N 136
#define SENTINEL 0x5a

static int8_t g_a[MAX_M * (MAX_K + 3)];
static int8_t g_b[MAX_K * MAX_N];
static int32_t g_bias[MAX_N], g_mult[MAX_N];
static int8_t g_shift[MAX_N];
/* qgemm_packed_size(MAX_K, MAX_N): K to 608, N to 192 (checked before packing) */
static unsigned char g_mem[608 * 192 + (6 * 4 + 3 * 8) * 192 + 64] __attribute__((aligned(16)));
static unsigned char g_got[MAX_M * MAX_N * 4 + 64], g_want[MAX_M * MAX_N * 4 + 64];

/* One qgemm case: shapes, zero points, the epilogue, the data: amp 0 = any int8, else
 * A and B in [-amp, amp] (small sums, for small shifts); extremes: every value -128 or 127,
 * bias +-2^31, multiplier 2^31 - 1 (wrapping sums, saturation, REQUIRE failures). Otherwise
 * each column's multiplier is chosen from its largest |value| so that results spread over
 * the int8 range (a saturated output would hide an error), and its shift is raised where
 * needed so that apply_scale_32's REQUIRE holds. */
typedef struct gcase {
    int M, K, N, n0, n1;
    int32_t a_zp, out_zp, lo, hi;
    qgemm_out out;
    int n_rq, n_bias, double_round, shift_lo, shift_hi, extremes, amp;
} gcase;

/* The reference of one case into g_want (sentinel outside the stored columns); its status. */
/* Row m, column n: sum_k (A - a_zp) * B + bias, wrapping as the reference's i32 does. */
static int32_t raw_sum(const gcase *g, const qgemm_params *q, size_t lda, int m, int n)
{
    uint32_t acc = q->bias ? (uint32_t)q->bias[q->n_bias == 1 ? 0 : n] : 0u;
    for (int k = 0; k < g->K; k++)
        acc += (uint32_t)(((int32_t)g_a[(size_t)m * lda + (size_t)k] - g->a_zp) *
                          g_b[(size_t)k * (size_t)g->N + (size_t)n]);
    return (int32_t)acc;
}

static int reference(const gcase *g, const qgemm_params *q, size_t lda, size_t ldc)
{
    size_t esz = g->out == QGEMM_OUT_I32 ? 4 : 1;
    int rc = QGEMM_OK;
    memset(g_want, SENTINEL, sizeof g_want);
    for (int m = 0; m < g->M; m++)
        for (int n = g->n0; n < g->n1; n++) {
            uint32_t acc = (uint32_t)raw_sum(g, q, lda, m, n);
            unsigned char *c = g_want + ((size_t)m * ldc + (size_t)n) * esz;
            if (g->out == QGEMM_OUT_I32) {
                memcpy(c, &acc, 4);
                continue;
            }
            int r = q->n_rq == 1 ? 0 : n;
            if (twins_rescale((int32_t)acc, q->mult[r], q->shift[r], g->double_round, g->out_zp,
                              g->lo, g->hi, (int8_t *)c))
                rc = QGEMM_ERR_RANGE;
        }
    return rc;
}

/* Runs case g in variant isa against the reference; 1 when identical. */
static int run_case(const gcase *g, kern_isa isa, int idx)
{
    size_t lda = (size_t)g->K + (size_t)(idx % 3), ldc = (size_t)g->N + 1;
    twins_seed(idx);
    int amp = g->amp ? g->amp : 128;
    for (size_t i = 0; i < (size_t)g->M * lda; i++)
        g_a[i] = g->extremes ? (twins_rnd() & 1 ? 127 : -128) : (int8_t)twins_rnd_in(-amp, amp - !g->amp);
    for (size_t i = 0; i < (size_t)g->K * (size_t)g->N; i++)
        g_b[i] = g->extremes ? (twins_rnd() & 1 ? 127 : -128) : (int8_t)twins_rnd_in(-amp, amp - !g->amp);
    for (int n = 0; n < g->N; n++) {
        g_bias[n] = g->extremes ? (twins_rnd() & 1 ? INT32_MAX : INT32_MIN)
                                : g->amp ? twins_rnd_in(-4 * amp * amp, 4 * amp * amp)
                                         : (int32_t)twins_rnd() >> 12;
        g_mult[n] = INT32_MAX;
        g_shift[n] = (int8_t)twins_rnd_in(g->shift_lo, g->shift_hi);
    }
    qgemm_params q = {g->K, g->N, g_b, g->N, 1, g->n_bias ? g_bias : NULL, g->n_bias,
                      g->a_zp, g->out, g_mult, g_shift, g->n_rq, g->double_round, g->out_zp,
                      g->lo, g->hi};
    for (int r = 0; !g->extremes && r < (g->n_rq == 1 ? 1 : g->N); r++) {
        uint32_t big = 0; /* the largest |value| the parameters r apply to */
        for (int m = 0; m < g->M; m++)
            for (int n = g->n_rq == 1 ? 0 : r; n < (g->n_rq == 1 ? g->N : r + 1); n++) {
                int32_t v = raw_sum(g, &q, lda, m, n);
                uint32_t a = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
                big = a > big ? a : big;
            }
        int sh = g_shift[r];
        twins_fit(big, &sh, &g_mult[r]);
        g_shift[r] = (int8_t)sh;
    }
    int want_rc = reference(g, &q, lda, ldc);
    qgemm_packed p;
    if (qgemm_packed_size(g->K, g->N) > sizeof g_mem || !qgemm_pack(&p, isa, &q, g_mem)) {
        twins_case_failed("qgemm", isa, idx, "pack failed");
        return 0;
    }
    memset(g_got, SENTINEL, sizeof g_got);
    int rc = qgemm_run(&p, g_a, lda, g->M, g->n0, g->n1, g_got, ldc);
    if (rc != want_rc) {
        twins_case_failed("qgemm", isa, idx, "wrong status");
        return 0;
    }
    /* After a REQUIRE failure only the status is defined. */
    if (rc == QGEMM_OK && memcmp(g_got, g_want, sizeof g_got) != 0) {
        twins_case_failed("qgemm", isa, idx, "output bytes differ");
        return 0;
    }
    return 1;
}

static const gcase g_cases[] = {
    /* M, K, N, n0, n1, a_zp, out_zp, lo, hi, out, n_rq, n_bias, dbl, shift lo..hi, extremes,
     * amp */
    {1, 1, 1, 0, 1, 0, 0, -128, 127, QGEMM_OUT_I8, 1, 1, 0, 2, 12, 0, 3},
    {3, 21, 37, 0, 37, 0, -5, -128, 127, QGEMM_OUT_I8, 37, 37, 0, 2, 14, 0, 2},
    {2, 16, 11, 0, 11, 0, 3, -128, 127, QGEMM_OUT_I8, 1, 11, 1, 2, 9, 0, 1},
    {3, 16, 4, 0, 4, -128, 127, -128, 127, QGEMM_OUT_I8, 4, 4, 0, 20, 40, 0, 0},
    {2, 17, 5, 0, 5, 127, -128, -128, 127, QGEMM_OUT_I8, 5, 1, 1, 30, 40, 0, 0},
    {7, 27, 63, 0, 63, 5, -3, -100, 90, QGEMM_OUT_I8, 63, 63, 1, 32, 45, 0, 0},
    {4, 33, 64, 0, 64, -7, 11, 0, 127, QGEMM_OUT_I8, 64, 64, 0, 2, 62, 0, 0},
    {5, 144, 65, 0, 65, 0, 0, -128, 127, QGEMM_OUT_I8, 65, 65, 1, 33, 62, 0, 0},
    {3, 96, 130, 64, 130, -128, 0, -128, 127, QGEMM_OUT_I8, 130, 130, 0, 36, 50, 0, 0},
    {2, 577, 9, 0, 7, 3, 2, -128, 127, QGEMM_OUT_I8, 9, 9, 1, 38, 62, 0, 0},
    {4, 48, 20, 0, 20, -3, 4, -128, 127, QGEMM_OUT_I8, 20, 20, 0, 33, 34, 0, 0},
    {3, 40, 19, 0, 19, 0, 0, -128, 127, QGEMM_OUT_I32, 0, 19, 0, 2, 2, 0, 0},
    {2, 600, 70, 64, 70, -128, 0, -128, 127, QGEMM_OUT_I32, 0, 1, 0, 2, 2, 1, 0},
    /* extremes: saturation at both ends, values that fail apply_scale_32's REQUIRE */
    {3, 64, 12, 0, 12, -128, -128, -128, 127, QGEMM_OUT_I8, 12, 12, 1, 40, 62, 1, 0},
    {2, 31, 8, 0, 8, 127, 127, -128, 127, QGEMM_OUT_I8, 8, 8, 0, 2, 10, 1, 0},
    {1, 600, 136, 0, 136, -128, 0, -128, 127, QGEMM_OUT_I8, 1, 0, 1, 62, 62, 1, 0},
};


int twins_qgemm(kern_isa isa, int *n_cases)
{
    int n = (int)(sizeof g_cases / sizeof g_cases[0]), failed = 0;
    for (int c = 0; c < n; c++)
        failed += !run_case(&g_cases[c], isa, c);
    *n_cases = n;
    return failed;
}
