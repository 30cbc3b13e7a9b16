/* Blocked SGEMM in the GotoBLAS arrangement: a KC x NC block of B is packed into NR-wide
 * panels, an MC x KC block of A into MR-high panels, and the micro-kernel computes one
 * MR x NR tile of C from a panel pair. Packing makes every micro-kernel read contiguous
 * whatever the operands' strides, and zero-pads the edges so the micro-kernel has no edge
 * cases; only the store step clips partial tiles. */
#include "kernels/sgemm.h"

#include <math.h>
#include <string.h>

#include "kernels/isa.h"

#define KC KERN_SGEMM_KC
#define MC KERN_SGEMM_MC
#define NC KERN_SGEMM_NC

/* One variant's inner loops (sgemm_ukernel.inc) and its micro-tile. */
typedef struct sgemm_isa {
    void (*tile)(int64_t kc, const float *restrict a, const float *restrict b, int64_t b_rs,
                 float *restrict c, int64_t ldc, int first, const float *restrict bias,
                 const kern_out_act *act);
    void (*row_axpy)(int64_t n, int64_t k, const float *restrict a, int64_t a_cs,
                     const float *restrict b, int64_t b_rs, float *restrict c, const float *bias);
    void (*row_dots)(int64_t n, int64_t k, const float *restrict ar, const float *restrict b,
                     int64_t b_cs, float *restrict c, const float *bias);
    int mr, nr;
} sgemm_isa;

/* portable: 4 x 16 (without a hardware FMA, fmaf is a library call: slow but exact) */
#define UK_FN(name) name##_portable
#define UK_ATTR
#define UK_MR 4
#define UK_NR 16
#include "kernels/sgemm_ukernel.inc"
#undef UK_FN
#undef UK_ATTR
#undef UK_MR
#undef UK_NR

#if KERN_HAVE_AVX2_TWIN
/* AVX2 + FMA: 4 x 16, 8 ymm accumulators (gcc spills a 6 x 16 tile written this way) */
#define UK_FN(name) name##_avx2
#define UK_ATTR KERN_AVX2_FMA_ATTR
#define UK_MR 4
#define UK_NR 16
#include "kernels/sgemm_ukernel.inc"
#undef UK_FN
#undef UK_ATTR
#undef UK_MR
#undef UK_NR
/* AVX-512 + FMA: 8 x 32, 16 zmm accumulators */
#define UK_FN(name) name##_avx512
#define UK_ATTR KERN_AVX512_FMA_ATTR
#define UK_MR KERN_SGEMM_MR
#define UK_NR KERN_SGEMM_NR
#include "kernels/sgemm_ukernel.inc"
#undef UK_FN
#undef UK_ATTR
#undef UK_MR
#undef UK_NR
#endif

static sgemm_isa sgemm_variant(void)
{
    switch (kern_isa_float_level()) {
#if KERN_HAVE_AVX2_TWIN
    case KERN_FLOAT_AVX512:
        return (sgemm_isa){tile_avx512, row_axpy_avx512, row_dots_avx512, KERN_SGEMM_MR,
                           KERN_SGEMM_NR};
    case KERN_FLOAT_AVX2:
        return (sgemm_isa){tile_avx2, row_axpy_avx2, row_dots_avx2, 4, 16};
#endif
    default:
        return (sgemm_isa){tile_portable, row_axpy_portable, row_dots_portable, 4, 16};
    }
}

static int64_t round_up(int64_t v, int64_t q) { return (v + q - 1) / q * q; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

size_t kern_sgemm_scratch(int64_t m, int64_t n, int64_t k)
{
    /* the largest over the variants: B panels NR wide, A panels up to MC + MR - 1 rows */
    int64_t kc = min64(k, KC);
    int64_t bsz = kc * round_up(min64(n, NC), KERN_SGEMM_NR);
    int64_t asz = kc * (min64(m, MC) + KERN_SGEMM_MR);
    return (size_t)(bsz + asz + k + 1); /* + k: the contiguous A row of the small-m path */
}

/* B block [k0, k0+kc) x [j0, j0+nc) as nr-wide panels of kc rows, zero-padded. */
static void pack_b(const kern_sgemm *g, int64_t k0, int64_t kc, int64_t j0, int64_t nc, int nr,
                   float *dst)
{
    for (int64_t jp = 0; jp < nc; jp += nr, dst += kc * nr) {
        int64_t w = min64(nr, nc - jp);
        const float *src = g->b + k0 * g->b_rs + (j0 + jp) * g->b_cs;
        if (g->b_cs == 1 && w == nr) {
            for (int64_t kk = 0; kk < kc; kk++)
                memcpy(dst + kk * nr, src + kk * g->b_rs, (size_t)nr * sizeof(float));
        } else if (g->b_rs == 1) { /* transposed B: each column is contiguous in k */
            for (int64_t t = 0; t < w; t++) {
                const float *col = src + t * g->b_cs;
                for (int64_t kk = 0; kk < kc; kk++)
                    dst[kk * nr + t] = col[kk];
            }
            for (int64_t kk = 0; kk < kc && w < nr; kk++)
                memset(dst + kk * nr + w, 0, (size_t)(nr - w) * sizeof(float));
        } else {
            for (int64_t kk = 0; kk < kc; kk++) {
                float *d = dst + kk * nr;
                const float *s = src + kk * g->b_rs;
                int64_t t = 0;
                for (; t < w; t++)
                    d[t] = s[t * g->b_cs];
                for (; t < nr; t++)
                    d[t] = 0;
            }
        }
    }
}

/* A block [i0, i0+mc) x [k0, k0+kc) as mr-high panels of kc columns, zero-padded. */
static void pack_a(const kern_sgemm *g, int64_t i0, int64_t mc, int64_t k0, int64_t kc, int mr,
                   float *dst)
{
    for (int64_t ip = 0; ip < mc; ip += mr, dst += kc * mr) {
        int64_t h = min64(mr, mc - ip);
        for (int64_t i = 0; i < mr; i++) {
            if (i >= h) {
                for (int64_t kk = 0; kk < kc; kk++)
                    dst[kk * mr + i] = 0;
                continue;
            }
            const float *row = g->a + (i0 + ip + i) * g->a_rs + k0 * g->a_cs;
            if (g->a_cs == 1)
                for (int64_t kk = 0; kk < kc; kk++)
                    dst[kk * mr + i] = row[kk];
            else
                for (int64_t kk = 0; kk < kc; kk++)
                    dst[kk * mr + i] = row[kk * g->a_cs];
        }
    }
}

size_t kern_sgemm_packed_a_size(int64_t m, int64_t k)
{
    return (size_t)((m + KERN_SGEMM_MR) * (k > 0 ? k : 1));
}

/* Panels of mr rows over the whole k: block (rows ir.., depth pc..) is the kc x mr run at
 * panel (ir / mr) + pc * mr, as pack_a lays out a block. The tag is mr (distinct per
 * variant tile height). */
int kern_sgemm_pack_a(const kern_sgemm *g, float *dst)
{
    const sgemm_isa v = sgemm_variant();
    if (g->m > 0 && g->k > 0)
        pack_a(g, 0, g->m, 0, g->k, v.mr, dst);
    return v.mr;
}

int kern_sgemm_pack_tag(void) { return sgemm_variant().mr; }

size_t kern_sgemm_packed_b_size(int64_t m, int64_t n, int64_t k)
{
    if (m < KERN_SGEMM_SMALL_M || n <= 0 || k <= 0)
        return 0;
    return (size_t)(round_up(n, KERN_SGEMM_NR) * k);
}

/* Panels of nr columns over the whole k: panel jp (columns jp * nr..) is k rows of nr at
 * dst + jp * nr * k, so the block at depth pc is the kc x nr run at + pc * nr, as pack_b
 * lays out one panel of a block. The tag is nr (distinct per variant tile width; variants
 * of the same width share the layout). */
int kern_sgemm_pack_b(const kern_sgemm *g, float *dst)
{
    const sgemm_isa v = sgemm_variant();
    if (g->n > 0 && g->k > 0)
        pack_b(g, 0, g->k, 0, g->n, v.nr, dst);
    return v.nr;
}

int kern_sgemm_pack_b_tag(void) { return sgemm_variant().nr; }

/* Adds (or, for the first k block, stores) an h x w part of a micro-tile (rows of nr) into
 * C; the last k block adds the row bias: the same operations as the tile's own store. */
static void store_tile(const kern_sgemm *g, const float *tile, int nr, int64_t i0, int64_t j0,
                       int64_t h, int64_t w, int first, int last)
{
    for (int64_t i = 0; i < h; i++) {
        float *c = g->c + (i0 + i) * g->ldc + j0;
        const float *t = tile + i * nr;
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
        if (last)
            kern_out_act_run(g->act, c, w);
    }
}

/* Few rows: a tile would be mostly padding, so stream B once per row instead. */
static int small_m(const kern_sgemm *g, const sgemm_isa *v, float *scratch)
{
    if (g->m >= KERN_SGEMM_SMALL_M || (g->b_cs != 1 && g->b_rs != 1))
        return 0;
    for (int64_t i = 0; i < g->m; i++) {
        float *c = g->c + i * g->ldc;
        const float *a = g->a + i * g->a_rs;
        const float *bias = g->row_bias ? g->row_bias + i : NULL;
        if (g->b_cs == 1) {
            v->row_axpy(g->n, g->k, a, g->a_cs, g->b, g->b_rs, c, bias);
        } else {
            float *ar = scratch; /* the row of A, contiguous */
            for (int64_t kk = 0; kk < g->k; kk++)
                ar[kk] = a[kk * g->a_cs];
            v->row_dots(g->n, g->k, ar, g->b, g->b_cs, c, bias);
        }
        kern_out_act_run(g->act, c, g->n);
    }
    return 1;
}

void kern_sgemm_run(const kern_sgemm *g, float *scratch)
{
    if (g->m <= 0 || g->n <= 0)
        return;
    if (g->k <= 0) {
        for (int64_t i = 0; i < g->m; i++) {
            for (int64_t j = 0; j < g->n; j++)
                g->c[i * g->ldc + j] = g->row_bias ? g->row_bias[i] : 0.0f;
            kern_out_act_run(g->act, g->c + i * g->ldc, g->n);
        }
        return;
    }
    const sgemm_isa v = sgemm_variant();
    if (small_m(g, &v, scratch))
        return;
    const int mr = v.mr, nr = v.nr;
    const int64_t mcmax = MC / mr * mr;
    /* Row-major B (the image of a 1x1 Conv, im2col columns) is read in place: full panels
     * are not copied and only a partial last panel is packed, so all of n is one block and
     * each A block is packed once per call. */
    const int b_direct = g->b_cs == 1;
    const int64_t ncmax = b_direct ? g->n : NC;
    const int64_t kcmax = min64(g->k, KC);
    const float *pre = g->a_packed && g->a_packed_tag == mr ? g->a_packed : NULL;
    const float *preb = g->b_packed && g->b_packed_tag == nr ? g->b_packed : NULL;
    float *bp = scratch;
    float *ap = scratch + kcmax * round_up(min64(g->n, NC), KERN_SGEMM_NR);
    float tile[KERN_SGEMM_MR * KERN_SGEMM_NR];
    for (int64_t jc = 0; jc < g->n; jc += ncmax) {
        const int64_t nc = min64(ncmax, g->n - jc);
        const int64_t edge = b_direct ? nc / nr * nr : 0; /* first packed column */
        for (int64_t pc = 0; pc < g->k; pc += KC) {
            const int64_t kc = min64(KC, g->k - pc);
            const int first = pc == 0, last = pc + kc == g->k;
            if (edge < nc && !preb)
                pack_b(g, pc, kc, jc + edge, nc - edge, nr, bp);
            for (int64_t ic = 0; ic < g->m; ic += mcmax) {
                const int64_t mc = min64(mcmax, g->m - ic);
                if (!pre)
                    pack_a(g, ic, mc, pc, kc, mr, ap);
                for (int64_t jr = 0; jr < nc; jr += nr) {
                    const int bd = jr < edge && !preb;
                    const float *b = preb ? preb + (jc + jr) * g->k + pc * nr
                                     : bd ? g->b + pc * g->b_rs + (jc + jr)
                                          : bp + (jr - edge) * kc;
                    const int64_t b_rs = bd ? g->b_rs : nr;
                    const int64_t w = min64(nr, nc - jr);
                    for (int64_t ir = 0; ir < mc; ir += mr) {
                        const int64_t h = min64(mr, mc - ir), i0 = ic + ir;
                        const float *a = pre ? pre + i0 * g->k + pc * mr : ap + ir * kc;
                        if (h == mr && w == nr) {
                            v.tile(kc, a, b, b_rs, g->c + i0 * g->ldc + jc + jr, g->ldc, first,
                                   last && g->row_bias ? g->row_bias + i0 : NULL,
                                   last ? g->act : NULL);
                        } else {
                            v.tile(kc, a, b, b_rs, tile, nr, 1, NULL, NULL);
                            store_tile(g, tile, nr, i0, jc + jr, h, w, first, last);
                        }
                    }
                }
            }
        }
    }
}
