/* Blocked SGEMM in the GotoBLAS arrangement: a KC x NC block of B is packed into NR-wide
 * panels, an MC x KC block of A into MR-high panels, and the micro-kernel computes one
 * MR x NR tile of C from a panel pair. Packing makes every micro-kernel read contiguous
 * whatever the operands' strides, and zero-pads the edges so the micro-kernel has no edge
 * cases; only the store step clips partial tiles. */
#include "kernels/sgemm.h"

#include <string.h>

#include "kernels/isa.h"

#define MR KERN_SGEMM_MR
#define NR KERN_SGEMM_NR
#define KC KERN_SGEMM_KC
#define MC KERN_SGEMM_MC
#define NC KERN_SGEMM_NC

typedef void (*ukernel_fn)(int64_t kc, const float *restrict a, const float *restrict b,
                           int64_t b_rs, float *restrict out);

#define UK_NAME ukernel_portable
#define UK_ATTR
#include "kernels/sgemm_ukernel.inc"
#undef UK_NAME
#undef UK_ATTR

#if KERN_HAVE_AVX2_TWIN
/* the same arithmetic (no FMA: see isa.h), 8-wide */
#define UK_NAME ukernel_avx2
#define UK_ATTR KERN_AVX2_ATTR
#include "kernels/sgemm_ukernel.inc"
#undef UK_NAME
#undef UK_ATTR
#endif

static int64_t round_up(int64_t v, int64_t q) { return (v + q - 1) / q * q; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

size_t kern_sgemm_scratch(int64_t m, int64_t n, int64_t k)
{
    int64_t kc = min64(k, KC);
    int64_t bsz = kc * round_up(min64(n, NC), NR);
    int64_t asz = kc * round_up(min64(m, MC), MR);
    return (size_t)(bsz + asz + k + 1); /* + k: the contiguous A row of the small-m path */
}

/* B block [k0, k0+kc) x [j0, j0+nc) as NR-wide panels of kc rows, zero-padded. With
 * direct set (row-major B), full panels are read in place and only a partial last panel
 * is packed. */
static void pack_b(const kern_sgemm *g, int64_t k0, int64_t kc, int64_t j0, int64_t nc,
                   int direct, float *dst)
{
    for (int64_t jp = 0; jp < nc; jp += NR, dst += kc * NR) {
        int64_t w = min64(NR, nc - jp);
        const float *src = g->b + k0 * g->b_rs + (j0 + jp) * g->b_cs;
        if (direct && w == NR)
            continue;
        if (g->b_cs == 1 && w == NR) {
            for (int64_t kk = 0; kk < kc; kk++)
                memcpy(dst + kk * NR, src + kk * g->b_rs, NR * sizeof(float));
        } else if (g->b_rs == 1) { /* transposed B: each column is contiguous in k */
            for (int64_t t = 0; t < w; t++) {
                const float *col = src + t * g->b_cs;
                for (int64_t kk = 0; kk < kc; kk++)
                    dst[kk * NR + t] = col[kk];
            }
            for (int64_t kk = 0; kk < kc && w < NR; kk++)
                memset(dst + kk * NR + w, 0, (size_t)(NR - w) * sizeof(float));
        } else {
            for (int64_t kk = 0; kk < kc; kk++) {
                float *d = dst + kk * NR;
                const float *s = src + kk * g->b_rs;
                int64_t t = 0;
                for (; t < w; t++)
                    d[t] = s[t * g->b_cs];
                for (; t < NR; t++)
                    d[t] = 0;
            }
        }
    }
}

/* A block [i0, i0+mc) x [k0, k0+kc) as MR-high panels of kc columns, zero-padded. */
static void pack_a(const kern_sgemm *g, int64_t i0, int64_t mc, int64_t k0, int64_t kc,
                   float *dst)
{
    for (int64_t ip = 0; ip < mc; ip += MR, dst += kc * MR) {
        int64_t h = min64(MR, mc - ip);
        for (int64_t i = 0; i < MR; i++) {
            if (i >= h) {
                for (int64_t kk = 0; kk < kc; kk++)
                    dst[kk * MR + i] = 0;
                continue;
            }
            const float *row = g->a + (i0 + ip + i) * g->a_rs + k0 * g->a_cs;
            if (g->a_cs == 1)
                for (int64_t kk = 0; kk < kc; kk++)
                    dst[kk * MR + i] = row[kk];
            else
                for (int64_t kk = 0; kk < kc; kk++)
                    dst[kk * MR + i] = row[kk * g->a_cs];
        }
    }
}

/* Adds (or, for the first k block, stores) an h x w part of a micro-tile into C; the last
 * k block adds the row bias. */
static void store_tile(const kern_sgemm *g, const float *tile, int64_t i0, int64_t j0, int64_t h,
                       int64_t w, int first, int last)
{
    for (int64_t i = 0; i < h; i++) {
        float *c = g->c + (i0 + i) * g->ldc + j0;
        const float *t = tile + i * NR;
        if (first)
            for (int64_t j = 0; j < w; j++)
                c[j] = t[j];
        else
            for (int64_t j = 0; j < w; j++)
                c[j] += t[j];
        if (last && g->row_bias) {
            const float bv = g->row_bias[i0 + i];
            for (int64_t j = 0; j < w; j++)
                c[j] += bv;
        }
    }
}

/* Few rows: a tile would be mostly padding, so stream B once per row instead. Row-major B
 * takes scaled row additions (k in order); transposed B takes dot products with 16
 * interleaved partial sums, which vectorise without reassociation by the compiler. */
static int small_m(const kern_sgemm *g, float *scratch)
{
    if (g->m >= MR || (g->b_cs != 1 && g->b_rs != 1))
        return 0;
    for (int64_t i = 0; i < g->m; i++) {
        float *c = g->c + i * g->ldc;
        const float *a = g->a + i * g->a_rs;
        const float bias = g->row_bias ? g->row_bias[i] : 0.0f;
        if (g->b_cs == 1) {
            for (int64_t j = 0; j < g->n; j++)
                c[j] = 0;
            for (int64_t kk = 0; kk < g->k; kk++) {
                const float av = a[kk * g->a_cs];
                const float *b = g->b + kk * g->b_rs;
                for (int64_t j = 0; j < g->n; j++)
                    c[j] += av * b[j];
            }
            if (g->row_bias)
                for (int64_t j = 0; j < g->n; j++)
                    c[j] += bias;
            continue;
        }
        float *ar = scratch; /* the row of A, contiguous */
        for (int64_t kk = 0; kk < g->k; kk++)
            ar[kk] = a[kk * g->a_cs];
        for (int64_t j = 0; j < g->n; j++) {
            const float *b = g->b + j * g->b_cs;
            float part[16] = {0};
            int64_t kk = 0;
            for (; kk + 16 <= g->k; kk += 16)
                for (int l = 0; l < 16; l++)
                    part[l] += ar[kk + l] * b[kk + l];
            float s = 0;
            for (int l = 0; l < 16; l++)
                s += part[l];
            for (; kk < g->k; kk++)
                s += ar[kk] * b[kk];
            c[j] = g->row_bias ? s + bias : s;
        }
    }
    return 1;
}

void kern_sgemm_run(const kern_sgemm *g, float *scratch)
{
    if (g->m <= 0 || g->n <= 0)
        return;
    if (g->k <= 0) {
        for (int64_t i = 0; i < g->m; i++)
            for (int64_t j = 0; j < g->n; j++)
                g->c[i * g->ldc + j] = g->row_bias ? g->row_bias[i] : 0.0f;
        return;
    }
    if (small_m(g, scratch))
        return;
    ukernel_fn uk = ukernel_portable;
#if KERN_HAVE_AVX2_TWIN
    if (kern_isa_float_avx2())
        uk = ukernel_avx2;
#endif
    const int64_t kcmax = min64(g->k, KC);
    float *bp = scratch;
    float *ap = scratch + kcmax * round_up(min64(g->n, NC), NR);
    /* Row-major B (the image of a 1x1 Conv, im2col columns) is read in place: no copy per
     * call; only a partial edge panel is packed. */
    const int b_direct = g->b_cs == 1;
    float tile[MR * NR];
    for (int64_t jc = 0; jc < g->n; jc += NC) {
        const int64_t nc = min64(NC, g->n - jc);
        for (int64_t pc = 0; pc < g->k; pc += KC) {
            const int64_t kc = min64(KC, g->k - pc);
            const int first = pc == 0, last = pc + kc == g->k;
            pack_b(g, pc, kc, jc, nc, b_direct, bp);
            for (int64_t ic = 0; ic < g->m; ic += MC) {
                const int64_t mc = min64(MC, g->m - ic);
                pack_a(g, ic, mc, pc, kc, ap);
                for (int64_t jr = 0; jr < nc; jr += NR) {
                    const int bd = b_direct && jr + NR <= nc;
                    const float *b = bd ? g->b + pc * g->b_rs + (jc + jr) : bp + jr * kc;
                    const int64_t b_rs = bd ? g->b_rs : NR;
                    for (int64_t ir = 0; ir < mc; ir += MR) {
                        uk(kc, ap + ir * kc, b, b_rs, tile);
                        store_tile(g, tile, ic + ir, jc + jr, min64(MR, mc - ir),
                                   min64(NR, nc - jr), first, last);
                    }
                }
            }
        }
    }
}
