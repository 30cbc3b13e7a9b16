/* Float convolution as matrix products: per batch item and group,
 *   Y[mg, out] = W[mg, cg*ksz] x Col[cg*ksz, out] (+ bias per output channel).
 * A 1x1, stride-1, unpadded kernel is already in that form (Col is the image itself); any
 * other kernel copies blocks of Col columns into scratch first (im2col), a block small
 * enough to stay in cache while the product reads it. Depthwise convolutions go to
 * conv_depthwise.c instead: their product would have a single row. */
#include "kernels/conv.h"

#include <string.h>

#include "kernels/conv_sp3.h"
#include "kernels/sgemm.h"

/* im2col columns per block: about 4 MiB, and at least 256 columns so that packing the
 * weights again for every block costs under 1/256 of the product */
#define COL_BLOCK_FLOATS ((int64_t)1 << 20)
#define COL_BLOCK_MIN 256

static int is_pointwise(const sp3 *g)
{
    for (int i = 0; i < 3; i++)
        if (g->k[i] != 1 || g->s[i] != 1 || g->pad[i] != 0 || g->in[i] != g->out[i])
            return 0;
    return 1;
}

/* Columns per im2col block: a multiple of the micro-tile width. */
static int64_t col_block(int64_t rows, int64_t out_sz)
{
    int64_t nb = COL_BLOCK_FLOATS / (rows > 0 ? rows : 1);
    nb -= nb % KERN_SGEMM_NR;
    if (nb < COL_BLOCK_MIN)
        nb = COL_BLOCK_MIN;
    return nb < out_sz ? nb : out_sz;
}

size_t kern_conv_f32_scratch(const kern_conv_params *p)
{
    if (kern_conv_is_depthwise(p))
        return kern_conv_depthwise_scratch(p);
    sp3 g;
    to_sp3(p, &g);
    const int64_t cg = p->c / p->group, mg = p->m / p->group;
    const int64_t ksz = g.k[0] * g.k[1] * g.k[2], out_sz = g.out[0] * g.out[1] * g.out[2];
    const int64_t rows = cg * ksz;
    if (is_pointwise(&g))
        return kern_sgemm_scratch(mg, out_sz, rows);
    int64_t nb = col_block(rows, out_sz);
    return (size_t)(rows * nb) + kern_sgemm_scratch(mg, nb, rows);
}

/* col[r, j - j0] for j in [j0, j0 + nb): row r = (channel, k0, k1, k2) of the window, column
 * j an output position; taps that fall in the padding are 0. X is the group's first input
 * channel. Runs along the innermost output dimension copy with a fixed stride. */
static void im2col(const sp3 *g, int64_t cg, const float *X, int64_t j0, int64_t nb, float *col)
{
    const int64_t in_sz = g->in[0] * g->in[1] * g->in[2];
    const int64_t ksz = g->k[0] * g->k[1] * g->k[2];
    for (int64_t r = 0; r < cg * ksz; r++) {
        const int64_t c = r / ksz, q = r % ksz;
        const int64_t q0 = q / (g->k[1] * g->k[2]), q1 = q / g->k[2] % g->k[1], q2 = q % g->k[2];
        const float *Xc = X + c * in_sz;
        float *dst = col + r * nb;
        int64_t l2, h2;
        sp3_valid_range(g->out[2], g->in[2], g->s[2], g->pad[2], q2 * g->d[2], &l2, &h2);
        const int64_t off2 = q2 * g->d[2] - g->pad[2];
        int64_t j = j0;
        while (j < j0 + nb) {
            /* one run: output positions sharing (o0, o1) */
            const int64_t o2s = j % g->out[2], o01 = j / g->out[2];
            const int64_t o1 = o01 % g->out[1], o0 = o01 / g->out[1];
            int64_t run = g->out[2] - o2s;
            if (run > j0 + nb - j)
                run = j0 + nb - j;
            float *d = dst + (j - j0); /* d[t] is output position o2s + t */
            const int64_t i0 = o0 * g->s[0] - g->pad[0] + q0 * g->d[0];
            const int64_t i1 = o1 * g->s[1] - g->pad[1] + q1 * g->d[1];
            int64_t lo = 0, hi = 0; /* the taps t in [lo, hi) read the input */
            if (i0 >= 0 && i0 < g->in[0] && i1 >= 0 && i1 < g->in[1]) {
                lo = l2 > o2s ? l2 - o2s : 0;
                hi = h2 - o2s < run ? h2 - o2s : run;
                if (hi < lo)
                    hi = lo;
            }
            for (int64_t t = 0; t < lo; t++)
                d[t] = 0;
            if (hi > lo) {
                /* element of the first tap; every index below stays inside the channel */
                const float *xr = Xc + (i0 * g->in[1] + i1) * g->in[2] + (o2s + lo) * g->s[2] + off2;
                if (g->s[2] == 1)
                    memcpy(d + lo, xr, (size_t)(hi - lo) * sizeof(float));
                else
                    for (int64_t t = 0; t < hi - lo; t++)
                        d[lo + t] = xr[t * g->s[2]];
            }
            for (int64_t t = hi; t < run; t++)
                d[t] = 0;
            j += run;
        }
    }
}

/* One group's weights are the m x rows matrix A of its product; packed groups follow each
 * other at a fixed stride. */
static size_t group_packed(const kern_conv_params *p)
{
    sp3 g;
    to_sp3(p, &g);
    return kern_sgemm_packed_a_size(p->m / p->group, p->c / p->group * g.k[0] * g.k[1] * g.k[2]);
}

size_t kern_conv_f32_packed_size(const kern_conv_params *p)
{
    return kern_conv_is_depthwise(p) ? 0 : group_packed(p) * (size_t)p->group;
}

int kern_conv_f32_pack_tag(void) { return kern_sgemm_pack_tag(); }

int kern_conv_f32_pack(const kern_conv_params *p, const float *w, float *wp)
{
    sp3 g;
    to_sp3(p, &g);
    const int64_t mg = p->m / p->group, rows = p->c / p->group * g.k[0] * g.k[1] * g.k[2];
    int tag = kern_sgemm_pack_tag();
    for (int64_t grp = 0; !kern_conv_is_depthwise(p) && grp < p->group; grp++) {
        kern_sgemm s = {.m = mg, .k = rows, .a = w + grp * mg * rows, .a_rs = rows, .a_cs = 1};
        tag = kern_sgemm_pack_a(&s, wp + (size_t)grp * group_packed(p));
    }
    return tag;
}

void kern_conv_f32(const kern_conv_params *p, const float *x, const float *w, const float *bias,
                   float *y, float *scratch)
{
    kern_conv_f32_packed(p, x, w, NULL, 0, bias, NULL, y, scratch);
}

void kern_conv_f32_packed(const kern_conv_params *p, const float *x, const float *w,
                          const float *wp, int tag, const float *bias, const kern_out_act *act,
                          float *y, float *scratch)
{
    sp3 g;
    to_sp3(p, &g);
    const int64_t cg = p->c / p->group, mg = p->m / p->group;
    const int64_t in_sz = g.in[0] * g.in[1] * g.in[2];
    const int64_t out_sz = g.out[0] * g.out[1] * g.out[2];
    const int64_t ksz = g.k[0] * g.k[1] * g.k[2], rows = cg * ksz;
    if (out_sz <= 0 || p->n <= 0 || p->m <= 0)
        return;
    if (kern_conv_is_depthwise(p)) {
        kern_conv_depthwise_f32(p, x, w, bias, act, y, scratch);
        return;
    }
    const int pointwise = is_pointwise(&g);
    const int64_t nb = pointwise ? out_sz : col_block(rows, out_sz);
    float *col = scratch, *gemm_scratch = pointwise ? scratch : scratch + rows * nb;
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t grp = 0; grp < p->group; grp++) {
            const float *X = x + (n * p->c + grp * cg) * in_sz;
            float *Y = y + (n * p->m + grp * mg) * out_sz;
            kern_sgemm s = {.m = mg, .k = rows, .a = w + grp * mg * rows, .a_rs = rows,
                            .a_cs = 1, .ldc = out_sz, .row_bias = bias ? bias + grp * mg : NULL,
                            .a_packed = wp ? wp + (size_t)grp * group_packed(p) : NULL,
                            .a_packed_tag = tag, .act = act};
            for (int64_t j0 = 0; j0 < out_sz; j0 += nb) {
                s.n = out_sz - j0 < nb ? out_sz - j0 : nb;
                s.c = Y + j0;
                if (pointwise) {
                    s.b = X + j0;
                    s.b_rs = in_sz;
                    s.b_cs = 1;
                } else {
                    im2col(&g, cg, X, j0, s.n, col);
                    s.b = col;
                    s.b_rs = s.n;
                    s.b_cs = 1;
                }
                kern_sgemm_run(&s, gemm_scratch);
            }
        }
}
