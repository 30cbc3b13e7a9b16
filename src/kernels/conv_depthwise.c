/* Depthwise convolution (one input channel per group, any channel multiplier), 1-D and
 * 2-D: each input plane is copied once into scratch with its zero padding, then every
 * output channel reading it runs a bounds-free window loop (conv_dw_rows.inc). */
#include "kernels/conv.h"

#include <math.h>
#include <string.h>

#include "kernels/isa.h"

/* Square 3x3 / 5x5 windows of stride 2, dilation 1 read a split plane (see pad_plane). */
static int dw_split(int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t dw)
{
    return kh == kw && (kh == 3 || kh == 5) && sh == 2 && sw == 2 && dw == 1;
}

#define DW_SUFFIX(name) name##_portable
#define DW_ATTR
#include "kernels/conv_dw_rows.inc"
#undef DW_SUFFIX
#undef DW_ATTR

#if KERN_HAVE_AVX2_TWIN
#define DW_SUFFIX(name) name##_avx2
#define DW_ATTR KERN_AVX2_FMA_ATTR
#include "kernels/conv_dw_rows.inc"
#undef DW_SUFFIX
#undef DW_ATTR
#define DW_SUFFIX(name) name##_avx512
#define DW_ATTR KERN_AVX512_FMA_ATTR
#include "kernels/conv_dw_rows.inc"
#undef DW_SUFFIX
#undef DW_ATTR
#endif

typedef void (*dw_plane_fn)(const float *restrict xp, int64_t wp, const float *restrict w,
                            int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t dh,
                            int64_t dw, int64_t oh, int64_t ow, float bias,
                            const kern_out_act *act, float *restrict y);

/* 2-D geometry; a 1-D convolution is a 2-D one of height 1. */
typedef struct dw_geom {
    int64_t ih, iw, kh, kw, oh, ow, sh, sw, dh, dw, ph, pw;
    int64_t hp, wp; /* padded plane: the rows/columns the windows touch */
} dw_geom;

static void dw_geom_of(const kern_conv_params *p, dw_geom *g)
{
    int two = p->nsp == 2;
    g->ih = two ? p->in[0] : 1;
    g->kh = two ? p->k[0] : 1;
    g->oh = two ? p->out[0] : 1;
    g->sh = two ? p->stride[0] : 1;
    g->dh = two ? p->dil[0] : 1;
    g->ph = two ? p->pad[0] : 0;
    int l = p->nsp - 1;
    g->iw = p->in[l];
    g->kw = p->k[l];
    g->ow = p->out[l];
    g->sw = p->stride[l];
    g->dw = p->dil[l];
    g->pw = p->pad[l];
    g->hp = (g->oh - 1) * g->sh + (g->kh - 1) * g->dh + 1;
    g->wp = (g->ow - 1) * g->sw + (g->kw - 1) * g->dw + 1;
}

int kern_conv_is_depthwise(const kern_conv_params *p)
{
    return p->c == p->group && p->nsp <= 2 && p->group > 1;
}

size_t kern_conv_depthwise_scratch(const kern_conv_params *p)
{
    dw_geom g;
    dw_geom_of(p, &g);
    return (size_t)(g.hp * g.wp);
}

/* The plane of x as the windows see it: row r, column q of xp is x[r - ph][q - pw], or 0.
 * Split (dw_split): each row then holds its even columns q = 0, 2, ... followed by its odd
 * ones from (wp + 1) / 2, so stride-2 windows read consecutive floats. */
static void pad_row(const dw_geom *g, const float *x, int64_t r, float *d)
{
    int64_t iy = r - g->ph;
    if (iy < 0 || iy >= g->ih) {
        memset(d, 0, (size_t)g->wp * sizeof(float));
        return;
    }
    /* columns q with 0 <= q - pw < iw */
    int64_t lo = g->pw < g->wp ? g->pw : g->wp;
    int64_t hi = g->pw + g->iw < g->wp ? g->pw + g->iw : g->wp;
    if (hi < lo)
        hi = lo;
    memset(d, 0, (size_t)lo * sizeof(float));
    if (hi > lo)
        memcpy(d + lo, x + iy * g->iw + (lo - g->pw), (size_t)(hi - lo) * sizeof(float));
    memset(d + hi, 0, (size_t)(g->wp - hi) * sizeof(float));
}

/* n entries d[q] = padded column 2q + odd of the row xr (0 outside the input). */
static void split_half(const dw_geom *g, const float *xr, int odd, int64_t n, float *d)
{
    /* 0 <= 2q + odd - pw < iw */
    int64_t a = g->pw - odd, b = g->pw + g->iw - 1 - odd;
    int64_t lo = a <= 0 ? 0 : (a + 1) / 2, hi = b < 0 ? 0 : b / 2 + 1;
    if (hi > n)
        hi = n;
    if (lo > hi)
        lo = hi;
    memset(d, 0, (size_t)lo * sizeof(float));
    for (int64_t q = lo; q < hi; q++)
        d[q] = xr[2 * q + odd - g->pw];
    memset(d + hi, 0, (size_t)(n - hi) * sizeof(float));
}

static void pad_plane(const dw_geom *g, const float *x, float *xp)
{
    const int split = dw_split(g->kh, g->kw, g->sh, g->sw, g->dw);
    const int64_t we = (g->wp + 1) / 2;
    for (int64_t r = 0; r < g->hp; r++) {
        float *d = xp + r * g->wp;
        int64_t iy = r - g->ph;
        if (!split || iy < 0 || iy >= g->ih) {
            pad_row(g, x, r, d);
            continue;
        }
        split_half(g, x + iy * g->iw, 0, we, d);
        split_half(g, x + iy * g->iw, 1, g->wp / 2, d + we);
    }
}

void kern_conv_depthwise_f32(const kern_conv_params *p, const float *x, const float *w,
                             const float *bias, const kern_out_act *act, float *y, float *scratch)
{
    dw_geom g;
    dw_geom_of(p, &g);
    dw_plane_fn fn = dw_plane_portable;
#if KERN_HAVE_AVX2_TWIN
    kern_float_level fl = kern_isa_float_level();
    if (fl == KERN_FLOAT_AVX2)
        fn = dw_plane_avx2;
    else if (fl == KERN_FLOAT_AVX512)
        fn = dw_plane_avx512;
#endif
    const int64_t mg = p->m / p->group, ksz = g.kh * g.kw;
    const int64_t in_sz = g.ih * g.iw, out_sz = g.oh * g.ow;
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t c = 0; c < p->c; c++) {
            pad_plane(&g, x + (n * p->c + c) * in_sz, scratch);
            for (int64_t mm = 0; mm < mg; mm++) {
                int64_t m = c * mg + mm;
                fn(scratch, g.wp, w + m * ksz, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.oh, g.ow,
                   bias ? bias[m] : 0.0f, act, y + (n * p->m + m) * out_sz);
            }
        }
}
