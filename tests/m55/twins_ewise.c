/* The elementwise twin cases of the M55 twin tests (twins.c): each variant's RESCALE, int32
 * ADD / SUB / MUL and CLAMP kernel, as ukr_rescale_select / ukr_arith_select /
 * ukr_clamp_select pick it, against references of the TOSA arithmetic written here
 * (arith_apply_scale_32 of the interpreter, int64 sums): int8 / int16 / int32 in and out,
 * shifts on both sides of 32 (the Helium twin's vector and portable paths), DOUBLE_ROUND,
 * extreme zero points, saturating outputs, REQUIRE failures, lengths off the vector step. */
#include <stdint.h>
#include <string.h>

#include "interp/interp_arith.h"
#include "tosac/tosa.h"
#include "twins.h"
#include "ukernels/ewise.h"

#define MAX_N 70
#define SENTINEL 0x5a

typedef struct rcase {
    int n, in_bits, out_bits, shift_lo, shift_hi, dbl;
    int32_t izp, ozp;
    int extremes; /* inputs at the type's bounds */
} rcase;

static const rcase g_rcases[] = {
    /* n, in, out, shift lo..hi, dbl, izp, ozp, extremes */
    {1, 8, 8, 33, 40, 0, 0, 0, 0},
    {17, 8, 8, 34, 62, 0, -128, 127, 0},
    {33, 8, 32, 40, 50, 0, 127, -5, 1},
    {7, 16, 16, 33, 45, 0, 0, 0, 0},
    {70, 16, 8, 33, 36, 0, 0, -128, 1},
    {13, 32, 8, 50, 58, 0, 0, 3, 0},
    {64, 32, 16, 35, 62, 0, 0, 0, 1},
    {5, 32, 32, 33, 34, 0, 0, 0, 1},
    {19, 8, 8, 10, 31, 0, 7, 0, 0},   /* shifts up to 31: the portable path */
    {23, 32, 8, 2, 20, 0, 0, 0, 0},   /* REQUIRE failures */
    {29, 16, 8, 32, 40, 1, 0, 1, 0},  /* DOUBLE_ROUND */
    {3, 8, 16, 32, 32, 0, -100, 0, 0},
};

static int32_t g_x[MAX_N], g_y[MAX_N];
static int32_t g_want[MAX_N + 8], g_gotw[MAX_N + 8];
static unsigned char g_in[4 * MAX_N + 16], g_got[4 * MAX_N + 32], g_exp[4 * MAX_N + 32];

static int64_t bits_min(int b) { return -((int64_t)1 << (b - 1)); }
static int64_t bits_max(int b) { return ((int64_t)1 << (b - 1)) - 1; }

static void put(int bits, void *buf, int i, int64_t v)
{
    if (bits == 8)
        ((int8_t *)buf)[i] = (int8_t)v;
    else if (bits == 16)
        ((int16_t *)buf)[i] = (int16_t)v;
    else
        ((int32_t *)buf)[i] = (int32_t)v;
}

static kern_isa g_before;
static void use(kern_isa isa)
{
    g_before = kern_isa_active();
    kern_isa_force(isa);
}

static int rescale_case(const rcase *g, kern_isa isa, int idx)
{
    twins_seed(2000 + idx);
    int32_t mult = (int32_t)(twins_rnd() >> 1);
    int shift = twins_rnd_in(g->shift_lo, g->shift_hi);
    int64_t lo = bits_min(g->out_bits), hi = bits_max(g->out_bits);
    int want_bad = 0;
    memset(g_exp, SENTINEL, sizeof g_exp);
    for (int i = 0; i < g->n; i++) {
        int64_t x = g->extremes ? (twins_rnd() & 1 ? bits_max(g->in_bits) : bits_min(g->in_bits))
                                : (int64_t)(int32_t)twins_rnd() >> (32 - g->in_bits);
        put(g->in_bits, g_in, i, x);
        int32_t r = 0;
        if (arith_apply_scale_32((int32_t)(x - g->izp), mult, shift,
                                 g->dbl ? TOSA_ROUND_DOUBLE : TOSA_ROUND_SINGLE, &r) != ARITH_OK)
            want_bad = 1;
        int64_t o = (int64_t)r + g->ozp;
        put(g->out_bits, g_exp + 16, i, o < lo ? lo : o > hi ? hi : o);
    }
    ukr_rescale_ch ch;
    ukr_rescale_ch_init(&ch, mult, shift, g->dbl != 0);
    ukr_rescale p;
    memset(&p, 0, sizeof p);
    p.in_bits = g->in_bits;
    p.out_bits = g->out_bits;
    p.in_zp = g->izp;
    p.out_zp = g->ozp;
    p.lo = lo;
    p.hi = hi;
    p.n_ch = 1;
    p.ch = &ch;
    use(isa);
    ukr_rescale_fn fn = ukr_rescale_select(kern_isa_active());
    kern_isa_force(g_before);
    memset(g_got, SENTINEL, sizeof g_got);
    bool ok = fn(&p, g_in, g_got + 16, g->n);
    if (ok == (bool)want_bad) {
        twins_case_failed("ewise rescale", isa, idx, "wrong status");
        return 0;
    }
    if (ok && memcmp(g_got, g_exp, sizeof g_got) != 0) {
        twins_case_failed("ewise rescale", isa, idx, "output bytes differ");
        return 0;
    }
    return 1;
}

/* ADD, SUB, MUL (shift 0 and 5) over n values of magnitude below 2^bits. */
static int arith_case(int what, int shift, int n, int bits, kern_isa isa, int idx)
{
    twins_seed(3000 + idx);
    int want_bad = 0;
    for (int i = 0; i < n; i++) {
        g_x[i] = (int32_t)twins_rnd() >> (32 - bits);
        g_y[i] = (int32_t)twins_rnd() >> (32 - bits);
        if (i == 0 && bits == 32) /* the extremes */
            g_x[i] = INT32_MAX, g_y[i] = what == UKR_SUB ? INT32_MIN : INT32_MAX;
        int64_t v;
        if (what == UKR_ADD)
            v = (int64_t)g_x[i] + g_y[i];
        else if (what == UKR_SUB)
            v = (int64_t)g_x[i] - g_y[i];
        else if (shift == 0)
            v = (int32_t)(uint32_t)((uint64_t)(int64_t)g_x[i] * (uint64_t)(int64_t)g_y[i]);
        else { /* round half up, as the spec's MUL with a shift */
            int64_t p = (int64_t)g_x[i] * g_y[i];
            v = (p + ((int64_t)1 << (shift - 1))) >> shift;
        }
        want_bad |= v < INT32_MIN || v > INT32_MAX;
        g_want[i] = (int32_t)v;
    }
    use(isa);
    ukr_arith_fn fn = ukr_arith_select(kern_isa_active());
    kern_isa_force(g_before);
    memset(g_gotw, SENTINEL, sizeof g_gotw);
    bool ok = fn(what, shift, g_x, g_y, g_gotw, n);
    if (ok == (bool)want_bad) {
        twins_case_failed("ewise arith", isa, idx, "wrong status");
        return 0;
    }
    for (int i = 0; ok && i < n + 8; i++)
        if (i < n ? g_gotw[i] != g_want[i] : g_gotw[i] != (int32_t)0x5a5a5a5a) {
            twins_case_failed("ewise arith", isa, idx, "output differs");
            return 0;
        }
    return 1;
}

static int clamp_case(int bits, int n, kern_isa isa, int idx)
{
    twins_seed(4000 + idx);
    int64_t a = (int64_t)(int32_t)twins_rnd() >> (32 - bits);
    int64_t b = (int64_t)(int32_t)twins_rnd() >> (32 - bits);
    int64_t lo = a < b ? a : b, hi = a < b ? b : a;
    if (idx % 3 == 0) /* the type's whole range: a copy */
        lo = bits_min(bits), hi = bits_max(bits);
    memset(g_exp, SENTINEL, sizeof g_exp);
    for (int i = 0; i < n; i++) {
        int64_t x = (int64_t)(int32_t)twins_rnd() >> (32 - bits);
        put(bits, g_in, i, x);
        put(bits, g_exp + 16, i, x < lo ? lo : x > hi ? hi : x);
    }
    use(isa);
    ukr_clamp_fn fn = ukr_clamp_select(kern_isa_active());
    kern_isa_force(g_before);
    memset(g_got, SENTINEL, sizeof g_got);
    fn(bits, lo, hi, g_in, g_got + 16, n);
    if (memcmp(g_got, g_exp, sizeof g_got) != 0) {
        twins_case_failed("ewise clamp", isa, idx, "output bytes differ");
        return 0;
    }
    return 1;
}

int twins_ewise(kern_isa isa, int *n_cases)
{
    int n = 0, failed = 0;
    for (size_t c = 0; c < sizeof g_rcases / sizeof g_rcases[0]; c++, n++)
        failed += !rescale_case(&g_rcases[c], isa, (int)c);
    static const int lens[] = {1, 3, 4, 9, 70};
    for (int w = 0; w < 4; w++) /* ADD, SUB, MUL, MUL with shift 5 */
        for (int l = 0; l < 5; l++)
            for (int b = 0; b < 2; b++, n++) {
                int what = w < 2 ? w : UKR_MUL, shift = w == 3 ? 5 : 0;
                /* 20 bits: no overflow; 32 (28 for MUL >> 5): REQUIRE failures */
                int bits = b == 0 ? 20 : w == 3 ? 28 : 32;
                failed += !arith_case(what, shift, lens[l], bits, isa, n);
            }
    for (int bits = 8; bits <= 16; bits += 8)
        for (int l = 0; l < 5; l++, n++)
            failed += !clamp_case(bits, lens[l] + 9 * (bits == 16), isa, n);
    *n_cases = n;
    return failed;
}
