/* The depthwise twin cases of the M55 twin tests (twins.c): each variant, as dwconv_q8_select
 * picks it, against a reference of the TOSA arithmetic written here (sum over taps of
 * (x - izp) * (w - wzp) + bias wrapping in int32, apply_scale_32, + ozp, clamp), on random and
 * edge cases: channel counts off the vector step, odd tap counts, padding taps, extreme zero
 * points, shifts 2..62, double rounding, saturation and REQUIRE failures. */
#include <stdint.h>
#include <string.h>

#include "twins.h"
#include "ukernels/dwconv.h"

#define MAX_C 100
#define MAX_TAPS 25
#define MAX_PIX 9
#define N_ROWS 12
#define SENTINEL 0x5a

typedef struct dcase {
    int C, n_taps, n_pix;
    int32_t izp, wzp, ozp, lo, hi;
    int shift_lo, shift_hi, dbl, extremes;
} dcase;

static const dcase g_cases[] = {
    /* C, taps, pixels, izp, wzp, ozp, lo, hi, shift lo..hi, dbl, extremes */
    {8, 9, 3, 0, 0, 0, -128, 127, 2, 20, 0, 0},
    {16, 9, 5, -128, 127, 5, -128, 127, 20, 40, 1, 0},
    {24, 1, 4, 127, -128, -7, -100, 100, 30, 45, 1, 0},
    {13, 9, 2, 3, -5, 0, -128, 127, 32, 62, 0, 0},
    {96, 25, 3, -128, 0, 127, 0, 127, 2, 62, 1, 0},
    {40, 2, 9, 17, 1, -128, -128, 127, 33, 36, 1, 0},
    {7, 4, 2, 0, 0, 0, -128, 127, 31, 33, 0, 0},
    {32, 9, 6, -5, 3, 2, -128, 127, 33, 34, 0, 0},
    {24, 9, 3, 9, -9, -1, -128, 127, 35, 48, 0, 0},
    {100, 9, 4, -128, -128, 0, -128, 127, 40, 62, 1, 1},
    {16, 9, 2, 127, 127, 0, -128, 127, 2, 8, 0, 1},
};

static int8_t g_rows[N_ROWS][MAX_C];
static int8_t g_w[MAX_TAPS * MAX_C];
static int16_t g_pw[(MAX_TAPS + 1) / 2 * MAX_C * 2];
static int32_t g_bias[MAX_C], g_vlo[MAX_C], g_vhi[MAX_C], g_m32[MAX_C];
static int g_sh[MAX_C];
static int64_t g_mult[MAX_C], g_round[MAX_C], g_dadj[MAX_C], g_shift[MAX_C], g_sub[MAX_C];
static const int8_t *g_taps[MAX_PIX * (MAX_TAPS + 1)];
static int8_t g_got[MAX_PIX * MAX_C + 32], g_want[MAX_PIX * MAX_C + 32];

/* Pixel i, channel c: bias + sum over taps, wrapping. */
static int32_t raw_sum(const dcase *g, int i, int c, int np)
{
    uint32_t acc = (uint32_t)g_bias[c];
    for (int k = 0; k < g->n_taps; k++)
        acc += (uint32_t)((g_taps[i * 2 * np + k][c] - g->izp) * (g_w[k * g->C + c] - g->wzp));
    return (int32_t)acc;
}

/* q8_requant as the accelerated tail prepares it (rt_accel_q8tail.c, dwconv.h). */
static void requant_arrays(const dcase *g, q8_requant *q)
{
    q->check = q->dbl = 0;
    q->eo = NULL; /* the AVX-512 twin's arrays: not on the M55 */
    for (int c = 0; c < g->C; c++) {
        int s = g_sh[c], d = g->dbl && s > 31;
        g_vlo[c] = s >= 32 ? INT32_MIN : -(int32_t)((int64_t)1 << (s - 1));
        g_vhi[c] = s >= 32 ? INT32_MAX : (int32_t)(((int64_t)1 << (s - 1)) - 1);
        g_mult[c] = g_m32[c];
        g_round[c] = ((int64_t)1 << (s - 1)) + (d ? (int64_t)1 << 30 : 0) + ((int64_t)1 << 62);
        g_dadj[c] = d ? (int64_t)1 << 31 : 0;
        g_shift[c] = s;
        g_sub[c] = (int64_t)1 << (62 - s);
        q->check |= s < 32;
        q->dbl |= d;
    }
    q->bias = g_bias;
    q->mult = g_mult;
    q->round = g_round;
    q->dadj = g_dadj;
    q->shift = g_shift;
    q->sub = g_sub;
    q->vlo = g_vlo;
    q->vhi = g_vhi;
    q->ozp = g->ozp;
    q->lo = g->lo;
    q->hi = g->hi;
}

static int run_case(const dcase *g, kern_isa isa, int idx)
{
    const int C = g->C, np = (g->n_taps + 1) / 2;
    twins_seed(1000 + idx);
    for (int r = 0; r < N_ROWS; r++) /* row 0: the padding row, input_zp */
        for (int c = 0; c < C; c++)
            g_rows[r][c] = (int8_t)(r == 0 ? g->izp
                                    : g->extremes ? (twins_rnd() & 1 ? 127 : -128)
                                                  : (int8_t)twins_rnd());
    for (int k = 0; k < g->n_taps * C; k++)
        g_w[k] = (int8_t)(g->extremes ? (twins_rnd() & 1 ? 127 : -128) : (int8_t)twins_rnd());
    for (int i = 0; i < g->n_pix; i++)
        for (int k = 0; k < 2 * np; k++) /* every fifth tap and the odd count's spare: padding */
            g_taps[i * 2 * np + k] =
                g_rows[k >= g->n_taps || (i + k) % 5 == 0 ? 0 : 1 + (i * 7 + k * 3) % (N_ROWS - 1)];
    for (int c = 0; c < C; c++) {
        g_bias[c] = g->extremes ? (twins_rnd() & 1 ? INT32_MAX : INT32_MIN)
                                : (int32_t)twins_rnd() >> 14;
        g_sh[c] = twins_rnd_in(g->shift_lo, g->shift_hi);
        g_m32[c] = INT32_MAX;
        if (!g->extremes) {
            uint32_t big = 0;
            for (int i = 0; i < g->n_pix; i++) {
                int32_t v = raw_sum(g, i, c, np);
                uint32_t a = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
                big = a > big ? a : big;
            }
            twins_fit(big, &g_sh[c], &g_m32[c]);
        }
    }
    int want_rc = 0;
    memset(g_want, SENTINEL, sizeof g_want);
    for (int i = 0; i < g->n_pix; i++)
        for (int c = 0; c < C; c++)
            want_rc |= twins_rescale(raw_sum(g, i, c, np), g_m32[c], g_sh[c], g->dbl, g->ozp,
                                     g->lo, g->hi, &g_want[16 + i * C + c]);
    dwconv_q8_params p;
    p.C = C;
    p.n_pairs = np;
    p.w = g_pw;
    dwconv_q8_pack(g_pw, g_w, C, g->n_taps, g->wzp);
    requant_arrays(g, &p.q);
    /* as the operator prepares it: input_zp folded into (a copy of) the bias */
    static int32_t folded[sizeof g_bias / sizeof g_bias[0]];
    memcpy(folded, g_bias, sizeof folded);
    dwconv_q8_fold_zp(folded, g_pw, C, np, g->izp);
    p.q.bias = folded;
    /* the variant the operator would pick with isa active */
    kern_isa before = kern_isa_active();
    kern_isa_force(isa);
    dwconv_q8_fn fn = dwconv_q8_select();
    kern_isa_force(before);
    memset(g_got, SENTINEL, sizeof g_got);
    int rc = fn(&p, g_taps, g->n_pix, g_got + 16);
    if (rc != want_rc) {
        twins_case_failed("dwconv", isa, idx, "wrong status");
        return 0;
    }
    if (!rc && memcmp(g_got, g_want, sizeof g_got) != 0) {
        twins_case_failed("dwconv", isa, idx, "output bytes differ");
        return 0;
    }
    return 1;
}

int twins_dwconv(kern_isa isa, int *n_cases)
{
    int n = (int)(sizeof g_cases / sizeof g_cases[0]), failed = 0;
    for (int c = 0; c < n; c++)
        failed += !run_case(&g_cases[c], isa, c);
    *n_cases = n;
    return failed;
}
